/**
 * How `openregion get` prints objects, as kubectl does: the CRD's printer columns (`-o wide` adds those of priority
 * above 0) with ages as kubectl words them, `-o name`, `-o jsonpath=TEMPLATE`, `-o custom-columns=SPEC`, and YAML or
 * JSON without managedFields unless asked. Pure: the command reads, this formats.
 */
import { JSONPath } from 'jsonpath-plus';
import { stringify } from 'yaml';
import type { PrinterColumn } from '../kube/crd.ts';
import type { EventFields, KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import { CliError } from './connect.ts';

/** How kubectl names a kind in its messages: lower-case, with its group (`server.region.unikorn-cloud.org`). */
export const kindName = (type: ResourceType): string =>
  `${type.kind.toLowerCase()}${type.group === '' ? '' : `.${type.group}`}`;

/** kubectl's `-o name`: `server.region.unikorn-cloud.org/x`, `secret/y`. */
export const objectName = (type: ResourceType, name: string): string => `${kindName(type)}/${name}`;

/** kubectl's age words (apimachinery's HumanDuration): 45s, 3m12s, 15m, 2h30m, 20h, 3d4h, 21d, 2y30d, 9y. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${String(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  const withRest = (big: number, unit: string, rest: number, restUnit: string) =>
    rest === 0 ? `${String(big)}${unit}` : `${String(big)}${unit}${String(rest)}${restUnit}`;
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${String(minutes)}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${String(hours)}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return withRest(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${String(days)}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return withRest(years, 'y', days % 365, 'd');
  return `${String(years)}y`;
}

/**
 * A kubectl field path (`.status.conditions[?(@.type=="Ready")].status`, `.metadata.labels.a\.b/c`) as the
 * JSONPath jsonpath-plus evaluates: `$` first, and each escaped-dot key bracketed.
 */
function toJsonPath(path: string): string {
  const trimmed = path.trim();
  if (trimmed === '' || trimmed === '.' || trimmed === '@') return '$';
  let out = '$';
  let key = '';
  const flush = () => {
    if (key !== '') out += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    key = '';
  };
  for (let i = trimmed.startsWith('.') ? 1 : 0; i < trimmed.length; i++) {
    const ch = trimmed[i] ?? '';
    if (ch === '\\' && trimmed[i + 1] === '.') {
      key += '.';
      i++;
    } else if (ch === '.') {
      flush();
    } else if (ch === '[') {
      flush();
      const end = closingBracket(trimmed, i);
      out += trimmed.slice(i, end + 1);
      i = end;
    } else {
      key += ch;
    }
  }
  flush();
  return out;
}

function closingBracket(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']' && --depth === 0) return i;
  }
  throw new CliError(`unclosed [ in the path "${text}"`);
}

/** Every value `path` selects in `value` (none when a field along it is absent). */
export function select(value: unknown, path: string): unknown[] {
  const json = value as object | unknown[];
  return JSONPath<unknown[]>({ path: toJsonPath(path), json, wrap: true, eval: 'safe' });
}

/** A selected value as kubectl prints it: strings as they are, anything else as JSON. */
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** A printer column's cell: empty when nothing is selected, several values comma-joined, dates as ages. */
function cell(object: KubeObject, column: PrinterColumn, now: number): string {
  const values = select(object, column.jsonPath);
  if (values.length === 0 || values[0] === null) return '';
  if (column.type === 'date' && typeof values[0] === 'string') {
    return humanDuration(now - Date.parse(values[0]));
  }
  return values.map(text).join(',');
}

/** The printer columns kubectl shows for a kind with none of its own. */
export const DEFAULT_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

interface TableOptions {
  readonly columns: readonly PrinterColumn[];
  readonly wide: boolean;
  /** kubectl's NAMESPACE column: listed across namespaces (-A). */
  readonly withNamespace: boolean;
  readonly now: number;
  /** Name each row `kind.group/name`, as kubectl does when it shows more than one kind (or `all`). */
  readonly withKind?: ResourceType | undefined;
}

/** kubectl's table: upper-case headers, columns three spaces apart, the last one unpadded. */
export function table(items: readonly KubeObject[], options: TableOptions): string {
  const columns = options.columns.filter((c) => options.wide || (c.priority ?? 0) === 0);
  const header = [...(options.withNamespace ? ['NAMESPACE'] : []), 'NAME', ...columns.map((c) => c.name)];
  const rows = items.map((o) => [
    ...(options.withNamespace ? [o.metadata.namespace ?? ''] : []),
    options.withKind === undefined ? o.metadata.name : objectName(options.withKind, o.metadata.name),
    ...columns.map((c) => cell(o, c, options.now)),
  ]);
  return aligned([header.map((h) => h.toUpperCase()), ...rows]);
}

/**
 * `get events` as kubectl prints them (the API server's Event table): LAST SEEN, TYPE, REASON, OBJECT, MESSAGE,
 * and with -o wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT and NAME too; no NAME column otherwise.
 */
export function eventTable(items: readonly KubeObject[], options: Omit<TableOptions, 'columns'>): string {
  const since = (timestamp: string | undefined) =>
    timestamp === undefined || timestamp === '' ? '<unknown>' : humanDuration(options.now - Date.parse(timestamp));
  const header = options.wide
    ? ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']
    : ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'];
  const rows = items.map((object) => {
    const e = object as KubeObject & EventFields;
    const first = since(e.firstTimestamp ?? e.eventTime);
    let last = e.lastTimestamp === undefined ? first : since(e.lastTimestamp);
    let count = e.count ?? 1;
    if (e.series !== undefined) {
      last = since(e.series.lastObservedTime);
      count = e.series.count ?? count;
    }
    const involved = e.involvedObject ?? {};
    const kind = (involved.kind ?? '').toLowerCase();
    const target = involved.name === undefined || involved.name === '' ? kind : `${kind}/${involved.name}`;
    const source = [e.source?.component, e.source?.host].filter((p) => p !== undefined && p !== '').join(', ');
    const cells = options.wide
      ? [last, e.type ?? '', e.reason ?? '', target, involved.fieldPath ?? '', source, e.message ?? '', first].concat([
          String(count),
          object.metadata.name,
        ])
      : [last, e.type ?? '', e.reason ?? '', target, e.message ?? ''];
    return [...(options.withNamespace ? [object.metadata.namespace ?? ''] : []), ...cells];
  });
  return aligned([[...(options.withNamespace ? ['NAMESPACE'] : []), ...header], ...rows]);
}

function aligned(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3))).join(''))
    .map((line) => line.trimEnd())
    .join('\n')
    .concat('\n');
}

/** `-o custom-columns=HEADER:PATH,…` over `items`. */
export function customColumns(items: readonly KubeObject[], spec: string): string {
  const columns = spec.split(',').map((part) => {
    const at = part.indexOf(':');
    if (at <= 0) throw new CliError(`custom-columns: "${part}" is not HEADER:PATH`);
    return { header: part.slice(0, at), path: part.slice(at + 1) };
  });
  const rows = items.map((o) =>
    columns.map((c) => {
      const values = select(o, c.path);
      return values.length === 0 ? '<none>' : values.map(text).join(',');
    }),
  );
  return aligned([columns.map((c) => c.header), ...rows]);
}

/**
 * `-o jsonpath=TEMPLATE`: text with `{PATH}` fields, `{"literal"}` strings and `{range PATH}…{end}` loops, as
 * kubectl's templates have them; several values of one field are space-separated.
 */
export function jsonpathTemplate(value: unknown, template: string): string {
  const tokens = tokenize(template);
  let index = 0;
  const run = (scope: unknown, untilEnd: boolean): string => {
    let out = '';
    while (index < tokens.length) {
      const token = tokens[index++] ?? { literal: '' };
      if ('literal' in token) out += token.literal;
      else if (token.expression === 'end') {
        if (untilEnd) return out;
        throw new CliError('jsonpath: {end} without {range}');
      } else if (token.expression.startsWith('range ')) {
        const start = index;
        const items = select(scope, token.expression.slice('range '.length));
        if (items.length === 0) skipToEnd();
        for (const item of items) {
          index = start;
          out += run(item, true);
        }
      } else if (/^".*"$/s.test(token.expression)) {
        out += JSON.parse(token.expression) as string;
      } else {
        out += select(scope, token.expression).map(text).join(' ');
      }
    }
    if (untilEnd) throw new CliError('jsonpath: {range} without {end}');
    return out;
  };
  const skipToEnd = () => {
    for (let depth = 1; index < tokens.length && depth > 0; index++) {
      const t = tokens[index];
      if (t !== undefined && 'expression' in t) {
        if (t.expression.startsWith('range ')) depth++;
        else if (t.expression === 'end') depth--;
      }
    }
  };
  return run(value, false);
}

type Token = { readonly literal: string } | { readonly expression: string };

function tokenize(template: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      tokens.push({ literal: template.slice(i) });
      break;
    }
    if (open > i) tokens.push({ literal: template.slice(i, open) });
    const close = closingBrace(template, open);
    tokens.push({ expression: template.slice(open + 1, close).trim() });
    i = close + 1;
  }
  return tokens;
}

function closingBrace(text: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < text.length; i++) {
    const ch = text[i];
    if (quote !== undefined) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '}') return i;
  }
  throw new CliError(`jsonpath: unclosed { in "${text}"`);
}

/** The object without metadata.managedFields (kubectl hides them unless --show-managed-fields). */
export function withoutManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields: _hidden, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** The value with every map's keys sorted, as kubectl prints any object (its maps go through Go's encoding/json). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortedKeys(v)]));
}

/**
 * YAML as kubectl writes it (go-yaml): keys sorted, a sequence level with its key, no folding, and strings YAML 1.1
 * would read as something else (timestamps, yes/no, numbers) quoted.
 */
export const asYaml = (value: unknown): string =>
  stringify(sortedKeys(value), { indentSeq: false, lineWidth: 0, version: '1.1' });
export const asJson = (value: unknown): string => `${JSON.stringify(sortedKeys(value), null, 4)}\n`;
