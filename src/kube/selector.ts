/**
 * Label and field selectors with Kubernetes' grammar (apimachinery labels.Parse and fields.ParseSelector), so a
 * selector string means the same on the embedded backend as on a real API server.
 */
import { KubeBadRequestError } from './errors.ts';

type LabelRequirement =
  | { readonly op: 'exists' | 'notexists'; readonly key: string }
  | { readonly op: 'in' | 'notin'; readonly key: string; readonly values: readonly string[] }
  | { readonly op: 'gt' | 'lt'; readonly key: string; readonly value: number };

type LabelSelector = readonly LabelRequirement[];

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkKey(key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const prefixOk = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
  if (!prefixOk || name.length > 63 || !NAME.test(name)) throw new KubeBadRequestError(`invalid label key "${key}"`);
}

function checkValue(value: string): void {
  if (value.length > 63 || (value !== '' && !NAME.test(value))) {
    throw new KubeBadRequestError(`invalid label value "${value}"`);
  }
}

/** A tokenizer over the selector text; identifiers end at whitespace or an operator character. */
class Scanner {
  #pos = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.#pos < this.text.length && /\s/.test(this.text.charAt(this.#pos))) this.#pos++;
  }
  done(): boolean {
    this.skipSpace();
    return this.#pos >= this.text.length;
  }
  peek(s: string): boolean {
    this.skipSpace();
    return this.text.startsWith(s, this.#pos);
  }
  eat(s: string): boolean {
    if (!this.peek(s)) return false;
    this.#pos += s.length;
    return true;
  }
  expect(s: string): void {
    if (!this.eat(s)) throw new KubeBadRequestError(`label selector "${this.text}": expected "${s}" at ${this.#pos}`);
  }
  word(): string {
    this.skipSpace();
    const start = this.#pos;
    while (this.#pos < this.text.length && !/[\s,()=!<>]/.test(this.text.charAt(this.#pos))) this.#pos++;
    return this.text.slice(start, this.#pos);
  }
  /** `in`/`notin` must be followed by a separator so a key like `index` is not read as an operator. */
  keyword(k: string): boolean {
    this.skipSpace();
    const after = this.text.charAt(this.#pos + k.length);
    if (this.text.startsWith(k, this.#pos) && (after === '' || /[\s(]/.test(after))) {
      this.#pos += k.length;
      return true;
    }
    return false;
  }
}

export function parseLabelSelector(text: string): LabelSelector {
  const s = new Scanner(text);
  const out: LabelRequirement[] = [];
  if (s.done()) return out;
  for (;;) {
    out.push(parseRequirement(s));
    if (s.done()) return out;
    s.expect(',');
  }
}

function parseRequirement(s: Scanner): LabelRequirement {
  if (s.eat('!')) {
    const key = s.word();
    checkKey(key);
    return { op: 'notexists', key };
  }
  const key = s.word();
  checkKey(key);
  if (s.eat('==') || s.eat('=')) return single(s, key, 'in');
  if (s.eat('!=')) return single(s, key, 'notin');
  if (s.eat('>')) return numeric(s, key, 'gt');
  if (s.eat('<')) return numeric(s, key, 'lt');
  if (s.keyword('notin')) return { op: 'notin', key, values: valueSet(s) };
  if (s.keyword('in')) return { op: 'in', key, values: valueSet(s) };
  if (s.done() || s.peek(',')) return { op: 'exists', key };
  throw new KubeBadRequestError(`label selector "${s.text}": unexpected text after "${key}"`);
}

function single(s: Scanner, key: string, op: 'in' | 'notin'): LabelRequirement {
  const value = s.word();
  checkValue(value);
  return { op, key, values: [value] };
}

function numeric(s: Scanner, key: string, op: 'gt' | 'lt'): LabelRequirement {
  const raw = s.word();
  const value = Number(raw);
  if (raw === '' || !Number.isInteger(value)) {
    throw new KubeBadRequestError(`label selector "${s.text}": "${raw}" is not an integer`);
  }
  return { op, key, value };
}

function valueSet(s: Scanner): string[] {
  s.expect('(');
  const values: string[] = [];
  if (s.eat(')')) return values;
  for (;;) {
    const v = s.word();
    checkValue(v);
    values.push(v);
    if (s.eat(')')) return values;
    s.expect(',');
  }
}

export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  return selector.every((r) => {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    const value = has ? labels[r.key] : undefined;
    switch (r.op) {
      case 'exists':
        return has;
      case 'notexists':
        return !has;
      case 'in':
        return value !== undefined && r.values.includes(value);
      case 'notin':
        return value === undefined || !r.values.includes(value);
      case 'gt':
      case 'lt': {
        const n = value === undefined ? NaN : Number(value);
        if (!Number.isInteger(n)) return false;
        return r.op === 'gt' ? n > r.value : n < r.value;
      }
    }
  });
}

interface FieldRequirement {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

/** `metadata.name=x,status.phase!=Done`; `\,` `\=` `\!` `\\` escape, as fields.ParseSelector allows. */
export function parseFieldSelector(text: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const part of splitUnescaped(text, ',')) {
    if (part.trim() === '') continue;
    const m = /^([^=!]+?)\s*(==|!=|=)(.*)$/s.exec(part.trim());
    if (m === null || m[1] === undefined || m[2] === undefined || m[3] === undefined) {
      throw new KubeBadRequestError(`invalid field selector "${text}"`);
    }
    out.push({ field: m[1].trim(), op: m[2] === '!=' ? '!=' : '=', value: unescape(m[3]) });
  }
  return out;
}

function splitUnescaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '\\' && i + 1 < text.length) {
      current += c + text.charAt(++i);
    } else if (c === sep) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function unescape(v: string): string {
  return v.replace(/\\(.)/g, '$1');
}

/** The string form of the field at a dotted path, as the server compares it; undefined fields read as "". */
function fieldValue(object: unknown, path: string): string {
  let cur: unknown = object;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return '';
}

export function matchesFields(selector: readonly FieldRequirement[], object: unknown): boolean {
  return selector.every((r) => (fieldValue(object, r.field) === r.value) === (r.op === '='));
}
