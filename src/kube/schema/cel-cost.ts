/**
 * The static CEL cost estimate kube-apiserver 1.25+ makes when a CRD is written, so a rule that would be refused
 * there is caught here (kube-apiserver 1.20 ignores CEL, and the embedded store has no budget). It follows
 * apiextensions-apiserver and cel-go's checker:
 *  - `self` is typed from the schema: a string's size is maxLength × 4 (bytes), an enum's its longest value, and
 *    an unbounded string, list or map is sized by what fits in a 3 MiB request (`estimateMax…` in
 *    k8s.io/apiserver/pkg/cel/common/schemas.go);
 *  - each rule's cost (cel-go `checker.Cost` with the Kubernetes library's call costs) is multiplied by how often
 *    it can run: the product of maxItems/maxProperties above it, or, when any is unbounded, how many of its
 *    smallest serialisation fit in a request;
 *  - a rule may cost 10,000,000 (StaticEstimatedCostLimit) and a CRD version 100,000,000 in all
 *    (StaticEstimatedCRDCostLimit).
 * Only the functions openregion's rules use have a cost model; any other is an error, never a guess.
 */
import { parse } from '@bufbuild/cel';
import type { JSONSchemaProps } from './types.ts';
import { defined } from '../../util/defined.ts';

export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
/** cel-go's unknown size and saturation point (MaxUint64). */
const UNBOUNDED = 2 ** 64 - 1;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;

type Expr = ReturnType<typeof parse>['expr'];
type Kind = 'object' | 'list' | 'map' | 'string' | 'bytes' | 'int' | 'double' | 'bool' | 'duration' | 'time' | 'dyn';

/** What CEL sees of a schema node: apiserver's DeclType (kind, MaxElements, MinSerializedSize). */
interface Decl {
  readonly kind: Kind;
  readonly maxElements: number;
  readonly minSize: number;
  readonly fields?: ReadonlyMap<string, Decl>;
  readonly elem?: Decl;
  /** Where maxElements is only the 3 MiB estimate: the node that lacks maxLength, maxItems or maxProperties. */
  readonly estimated?: string;
}

const add = (a: number, b: number) => Math.min(UNBOUNDED, a + b);
const times = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(UNBOUNDED, a * b));
const factor = (size: number, f: number) => Math.min(UNBOUNDED, Math.ceil(size * f));
const perRequest = (minSize: number) => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 1));

const scalar = (kind: Kind, minSize: number, maxElements = 0, estimated?: string): Decl => ({
  kind,
  minSize,
  maxElements,
  ...defined({ estimated }),
});
const child = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);

/**
 * SchemaDeclType: the CEL declaration of the schema node at `path`; the resource root gains kind, apiVersion and
 * metadata.
 */
function declOf(schema: JSONSchemaProps, isRoot = false, path = ''): Decl {
  const at = path === '' ? '<root>' : path;
  if (schema['x-kubernetes-int-or-string'] === true)
    return schema.maxLength !== undefined
      ? scalar('dyn', 1, schema.maxLength * 4)
      : scalar('dyn', 1, MAX_REQUEST_SIZE_BYTES - 2, at);
  switch (schema.type) {
    case 'array': {
      const elem = schema.items === undefined ? scalar('dyn', 1) : declOf(schema.items, false, `${path}[*]`);
      return schema.maxItems !== undefined
        ? { kind: 'list', elem, minSize: 2, maxElements: schema.maxItems }
        : { kind: 'list', elem, minSize: 2, maxElements: perRequest(elem.minSize), estimated: at };
    }
    case 'object': {
      if (typeof schema.additionalProperties === 'object') {
        const elem = declOf(schema.additionalProperties, false, `${path}{*}`);
        return schema.maxProperties !== undefined
          ? { kind: 'map', elem, minSize: 2, maxElements: schema.maxProperties }
          : {
              kind: 'map',
              elem,
              minSize: 2,
              maxElements: Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSize + 6)),
              estimated: at,
            };
      }
      const properties: Record<string, JSONSchemaProps> = { ...schema.properties };
      if (isRoot) {
        properties['kind'] ??= { type: 'string' };
        properties['apiVersion'] ??= { type: 'string' };
        properties['metadata'] = {
          type: 'object',
          properties: { name: { type: 'string' }, generateName: { type: 'string' } },
        };
      }
      const fields = new Map<string, Decl>();
      let minSize = 2;
      for (const [name, property] of Object.entries(properties)) {
        const decl = declOf(property, false, child(path, name));
        fields.set(name, decl);
        if (schema.required?.includes(name) === true && property.default === undefined)
          minSize += name.length + decl.minSize + 4;
      }
      return { kind: 'object', fields, minSize, maxElements: 0 };
    }
    case 'string':
      return stringDecl(schema, at);
    case 'boolean':
      return scalar('bool', 4);
    case 'number':
      return scalar('double', 1);
    case 'integer':
      return scalar('int', 1);
    default:
      return scalar('dyn', 1);
  }
}

function stringDecl(schema: JSONSchemaProps, at: string): Decl {
  switch (schema.format) {
    case 'byte':
      return schema.maxLength !== undefined
        ? scalar('bytes', 2, schema.maxLength)
        : scalar('bytes', 2, MAX_REQUEST_SIZE_BYTES - 2, at);
    case 'duration':
      return scalar('duration', 3, 32);
    case 'date':
      return scalar('time', 12, 12);
    case 'date-time':
      return scalar('time', 21, 32);
  }
  if (schema.maxLength !== undefined) return scalar('string', 2, schema.maxLength * 4);
  const values = (schema.enum ?? []).filter((v): v is string => typeof v === 'string');
  if (values.length > 0) return scalar('string', 2, Math.max(...values.map((v) => v.length)));
  return scalar('string', 2, MAX_REQUEST_SIZE_BYTES - 2, at);
}

/** An expression's estimate: its maximum cost, and what is known of its value. */
interface Estimate {
  readonly cost: number;
  /** The maximum size (characters, bytes, items), UNBOUNDED when unknown. */
  readonly size: number;
  readonly kind: Kind | undefined;
  readonly decl?: Decl;
  /** The schema node whose missing bound the size comes from. */
  readonly estimated?: string | undefined;
}

const fromDecl = (cost: number, decl: Decl | undefined): Estimate =>
  decl === undefined
    ? { cost, size: UNBOUNDED, kind: undefined }
    : { cost, size: decl.maxElements, kind: decl.kind, decl, estimated: decl.estimated };

/** `__import__` → `import`: CEL's escaping of property names that are keywords or hold `-`, `.`, `/`. */
function unescape(name: string): string {
  const match = /^__(.*)__$/.exec(name);
  const inner = match?.[1];
  if (inner === undefined) return name;
  return inner
    .replaceAll('__underscores__', '_')
    .replaceAll('__dot__', '.')
    .replaceAll('__dash__', '-')
    .replaceAll('__slash__', '/');
}

class Estimator {
  readonly #scopes = new Map<string, Estimate[]>();
  /** Schema nodes the rule walks whose size is only estimated (unbounded). */
  readonly unbounded = new Set<string>();

  constructor(self: Decl) {
    this.#scopes.set('self', [fromDecl(1, self)]);
    this.#scopes.set('oldSelf', [fromDecl(1, self)]);
  }

  estimate(e: Expr | undefined): Estimate {
    const k = e?.exprKind;
    switch (k?.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        if (c.case === 'stringValue') return { cost: 0, size: Array.from(c.value).length, kind: 'string' }; // runes
        if (c.case === 'bytesValue') return { cost: 0, size: c.value.length, kind: 'bytes' };
        const kind: Kind = c.case === 'boolValue' ? 'bool' : c.case === 'doubleValue' ? 'double' : 'int';
        return { cost: 0, size: 1, kind };
      }
      case 'identExpr': {
        const bound = this.#scopes.get(k.value.name)?.at(-1);
        if (bound === undefined) throw new Error(`undeclared reference to '${k.value.name}'`);
        return { ...bound, cost: 1 };
      }
      case 'selectExpr': {
        const operand = this.estimate(k.value.operand);
        if (k.value.testOnly) return { cost: operand.cost, size: 1, kind: 'bool' }; // has(): free in Kubernetes
        const structured = operand.kind === 'object' || operand.kind === 'map' || operand.kind === undefined;
        const decl =
          operand.decl?.kind === 'map' ? operand.decl.elem : operand.decl?.fields?.get(unescape(k.value.field));
        return fromDecl(add(operand.cost, structured ? 1 : 0), decl);
      }
      case 'listExpr': {
        const cost = k.value.elements.reduce((sum, el) => add(sum, this.estimate(el).cost), LIST_CREATE);
        return { cost, size: k.value.elements.length, kind: 'list' };
      }
      case 'structExpr': {
        let cost = MAP_CREATE;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') cost = add(cost, this.estimate(entry.keyKind.value).cost);
          cost = add(cost, this.estimate(entry.value).cost);
        }
        return { cost, size: k.value.entries.length, kind: 'map' };
      }
      case 'comprehensionExpr':
        return this.#comprehension(k.value);
      case 'callExpr':
        return this.#call(k.value.function, k.value.target, k.value.args);
      default:
        throw new Error(`no cost model for expression kind ${String(k?.case)}`);
    }
  }

  #bind<T>(name: string, value: Estimate, body: () => T): T {
    const stack = this.#scopes.get(name) ?? [];
    stack.push(value);
    this.#scopes.set(name, stack);
    try {
      return body();
    } finally {
      stack.pop();
    }
  }

  /**
   * The size of a string or list the rule walks (a macro's range, a string function's subject); one that is only
   * the 3 MiB estimate names its unbounded schema node.
   */
  #size(e: Estimate | undefined): number {
    if (e === undefined) return UNBOUNDED;
    if (e.estimated !== undefined && e.size > 0) this.unbounded.add(e.estimated);
    return e.size;
  }

  /** The smaller of two sizes: what an equality compares (costed, but a comparison, not a walk). */
  #smaller(a: Estimate | undefined, b: Estimate | undefined): number {
    return Math.min(a?.size ?? UNBOUNDED, b?.size ?? UNBOUNDED);
  }

  /** cel-go costComprehension: range, init and result once; condition and step once per element of the range. */
  #comprehension(c: Extract<NonNullable<Expr['exprKind']>, { case: 'comprehensionExpr' }>['value']): Estimate {
    const range = this.estimate(c.iterRange);
    const init = this.estimate(c.accuInit);
    const element: Estimate =
      range.decl?.kind === 'list' && range.decl.elem !== undefined
        ? fromDecl(1, range.decl.elem)
        : range.decl?.kind === 'map'
          ? { cost: 1, size: 0, kind: 'string' } // a map's keys: the StringType of NewMapType, MaxElements 0
          : { cost: 1, size: UNBOUNDED, kind: undefined };
    return this.#bind(c.accuVar, init, () => {
      const perElement = this.#bind(c.iterVar, element, () =>
        add(this.estimate(c.loopCondition).cost, this.estimate(c.loopStep).cost),
      );
      const result = this.estimate(c.result);
      const cost = add(add(add(range.cost, init.cost), result.cost), times(this.#size(range), perElement));
      return { ...result, cost };
    });
  }

  #call(fn: string, target: Expr | undefined, argExprs: readonly Expr[]): Estimate {
    const self = target === undefined ? undefined : this.estimate(target);
    const args = argExprs.map((a) => this.estimate(a));
    const argCost = args.reduce((sum, a) => add(sum, a.cost), 0);
    const [a, b, c] = args;
    const on = (cost: number, result: Omit<Estimate, 'cost'>): Estimate => ({
      ...result,
      cost: add(add(self?.cost ?? 0, argCost), cost),
    });
    const int = { size: 1, kind: 'int' } as const;
    const bool = { size: 1, kind: 'bool' } as const;
    const textual = (e: Estimate | undefined) => e?.kind === 'string' || e?.kind === 'bytes';
    switch (fn) {
      case '_&&_':
      case '_||_':
        return { cost: argCost, ...bool };
      case '_?_:_': {
        const larger = (b?.size ?? UNBOUNDED) >= (c?.size ?? UNBOUNDED) ? b : c;
        return {
          cost: add(a?.cost ?? 0, Math.max(b?.cost ?? 0, c?.cost ?? 0)),
          size: larger?.size ?? UNBOUNDED,
          kind: b?.kind,
          estimated: larger?.estimated,
        };
      }
      case '_==_':
      case '_!=_':
        return on(factor(this.#smaller(a, b), STRING_TRAVERSAL), bool);
      case '_<_':
      case '_<=_':
      case '_>_':
      case '_>=_':
        return textual(a) ? on(factor(this.#smaller(a, b), STRING_TRAVERSAL), bool) : on(1, bool);
      case '_+_': {
        if (textual(a)) {
          const size = add(this.#size(a), this.#size(b));
          return on(factor(size, STRING_TRAVERSAL), { size, kind: a?.kind });
        }
        const size = a?.kind === 'list' ? add(a.size, b?.size ?? UNBOUNDED) : 1;
        return on(1, { size, kind: a?.kind });
      }
      case '_-_':
      case '_*_':
      case '_/_':
      case '_%_':
      case '-_':
        return on(1, { size: 1, kind: a?.kind });
      case '!_':
      case '@not_strictly_false':
        return on(1, bool);
      case '@in':
        return on(b?.kind === 'list' ? this.#size(b) : 1, bool);
      case 'size':
        return on(1, int);
      case '_[_]':
        return on(1, fromDecl(0, a?.decl?.elem));
      case 'int':
      case 'uint':
        return on(1, int);
      case 'double':
        return on(1, { size: 1, kind: 'double' });
      case 'duration':
        return on(1, { size: 1, kind: 'duration' });
      case 'timestamp':
        return on(1, { size: 1, kind: 'time' });
      case 'string':
        return on(1, { size: UNBOUNDED, kind: 'string' });
      case 'dyn':
        return { ...(a ?? fromDecl(0, undefined)), cost: add(argCost, 1) };
      case 'contains':
        return on(times(factor(this.#size(self), STRING_TRAVERSAL), factor(this.#size(a), STRING_TRAVERSAL)), bool);
      case 'startsWith':
      case 'endsWith':
        return on(factor(this.#size(a), STRING_TRAVERSAL), bool);
      case 'matches': {
        const subject = target === undefined ? a : self;
        const regex = target === undefined ? b : a;
        const text = factor(add(this.#size(subject), 1), STRING_TRAVERSAL);
        return on(times(text, factor(this.#size(regex), REGEX_LENGTH)), bool);
      }
      case 'split': {
        // Kubernetes' strings library: two traversals; at most as many parts as characters (or the literal limit).
        const size = this.#size(self);
        const literal =
          argExprs[1]?.exprKind.case === 'constExpr' ? argExprs[1].exprKind.value.constantKind : undefined;
        const limit = literal?.case === 'int64Value' ? Number(literal.value) : size;
        return on(factor(size, 2 * STRING_TRAVERSAL), { size: limit, kind: 'list' });
      }
      case 'lowerAscii':
      case 'upperAscii':
      case 'trim': {
        const size = this.#size(self);
        return on(factor(size, STRING_TRAVERSAL), { size, kind: 'string', estimated: self?.estimated });
      }
      default:
        throw new Error(`no cost model for the CEL function '${fn}'`);
    }
  }
}

/** One evaluation's maximum cost (cel-go), and the unbounded schema nodes it walks (iterates, or traverses). */
function estimateRule(
  rule: string,
  schema: JSONSchemaProps,
  isRoot = false,
  path = '',
): { cost: number; unbounded: string[] } {
  const estimator = new Estimator(declOf(schema, isRoot, path));
  const { cost } = estimator.estimate(parse(rule).expr);
  return { cost, unbounded: [...estimator.unbounded].sort() };
}

export const estimateRuleCost = (rule: string, schema: JSONSchemaProps): number => estimateRule(rule, schema).cost;

interface RuleCost {
  /** Where the rule sits: `<root>`, `spec.listeners[*]`, `spec.tags{*}`. */
  readonly path: string;
  readonly rule: string;
  /** One evaluation's maximum cost. */
  readonly cost: number;
  /** How many times it can run in one object. */
  readonly cardinality: number;
  /** cost × cardinality: what the per-rule limit applies to. */
  readonly total: number;
  /** Lists, maps and strings the rule iterates or traverses that lack maxItems/maxProperties/maxLength. */
  readonly unbounded: readonly string[];
}

/**
 * Every rule of a CRD version's schema with its estimated cost, the way ValidateCustomResourceDefinition walks it:
 * a node's cardinality is its parent's times the parent's maxItems (arrays) or maxProperties (maps), or unbounded
 * (then estimated from the rule's own smallest serialisation) once any is missing.
 */
export function estimateSchemaCosts(root: JSONSchemaProps): RuleCost[] {
  const costs: RuleCost[] = [];
  const walk = (schema: JSONSchemaProps, path: string, cardinality: number | undefined, isRoot: boolean) => {
    const self = isRoot ? '' : path;
    for (const { rule, messageExpression } of schema['x-kubernetes-validations'] ?? []) {
      const { cost, unbounded } = estimateRule(rule, schema, isRoot, self);
      const runs = cardinality ?? perRequest(declOf(schema, isRoot).minSize);
      costs.push({ path, rule, cost, cardinality: runs, total: times(cost, runs), unbounded });
      if (messageExpression !== undefined) {
        const message = estimateRule(messageExpression, schema, isRoot, self);
        costs.push({ path, rule: messageExpression, cardinality: 1, total: message.cost, ...message });
      }
    }
    const bound = (max: number | undefined) =>
      cardinality === undefined || max === undefined ? undefined : times(cardinality, max);
    for (const [name, property] of Object.entries(schema.properties ?? {}))
      walk(property, isRoot ? name : `${path}.${name}`, bound(1), false);
    if (schema.items !== undefined) walk(schema.items, `${path}[*]`, bound(schema.maxItems), false);
    if (typeof schema.additionalProperties === 'object')
      walk(schema.additionalProperties, `${path}{*}`, bound(schema.maxProperties), false);
  };
  walk(root, '<root>', 1, true);
  return costs;
}
