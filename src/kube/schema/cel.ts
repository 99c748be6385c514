/**
 * CRD `x-kubernetes-validations` evaluated with @bufbuild/cel, binding `self` (and `oldSelf` for transition rules,
 * on update only, when the old value exists) the way kube-apiserver does. A rule that needs a function this library
 * does not provide is refused when the CRD is written, never discovered on a later object write.
 */
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import type * as Cel from '@bufbuild/cel';
import type * as CelExtensions from '@bufbuild/cel/ext';
import type { StatusCause } from '../errors.ts';
import { childPath, propertySchema } from './structural.ts';
import type { JSONSchemaProps, ValidationRule } from './types.ts';

type Expr = ReturnType<typeof Cel.parse>['expr'];
type Program = ReturnType<typeof Cel.plan>;

/** Operators the planner implements itself rather than through the function table. */
const BUILTIN_OPERATORS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '@not_strictly_false']);

let loaded: { readonly cel: typeof Cel; readonly env: Cel.CelEnv } | undefined;

/**
 * The CEL library, loaded on first use through its CommonJS build (synchronously, as rules are checked inside a
 * write): its imports are over half of a short command's start-up, and commands that only read the store (`get`,
 * a completion Tab) never evaluate a rule.
 */
function library(): { readonly cel: typeof Cel; readonly env: Cel.CelEnv } {
  if (loaded === undefined) {
    const load = createRequire(import.meta.url);
    const cel = load('@bufbuild/cel') as typeof Cel;
    const { strings } = load('@bufbuild/cel/ext') as typeof CelExtensions;
    loaded = { cel, env: cel.celEnv({ funcs: strings }) };
  }
  return loaded;
}

interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program: Program;
  readonly transition: boolean;
}

/** The reason a rule cannot be compiled, or the compiled rule. */
export function compileRule(rule: ValidationRule): CompiledRule | string {
  const { cel, env } = library();
  let parsed: ReturnType<typeof Cel.parse>;
  try {
    parsed = cel.parse(rule.rule);
  } catch (error) {
    return `compilation failed: ${(error as Error).message}`;
  }
  const problems: string[] = [];
  let transition = false;
  const walk = (e: Expr | undefined, scope: ReadonlySet<string>): void => {
    if (e === undefined) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        if (k.value.name === 'oldSelf') transition = true;
        else if (k.value.name !== 'self' && !scope.has(k.value.name))
          problems.push(`undeclared reference to '${k.value.name}'`);
        return;
      case 'callExpr':
        if (!BUILTIN_OPERATORS.has(k.value.function) && env.funcs.find(k.value.function) === undefined) {
          problems.push(`function '${k.value.function}' is not supported by this CEL library`);
        }
        walk(k.value.target, scope);
        for (const a of k.value.args) walk(a, scope);
        return;
      case 'selectExpr':
        walk(k.value.operand, scope);
        return;
      case 'listExpr':
        for (const el of k.value.elements) walk(el, scope);
        return;
      case 'structExpr':
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, scope);
          walk(entry.value, scope);
        }
        return;
      case 'comprehensionExpr': {
        const inner = new Set([...scope, k.value.iterVar, k.value.accuVar]);
        walk(k.value.iterRange, scope);
        walk(k.value.accuInit, scope);
        walk(k.value.loopCondition, inner);
        walk(k.value.loopStep, inner);
        walk(k.value.result, inner);
        return;
      }
      default:
        return;
    }
  };
  walk(parsed.expr, new Set());
  if (problems.length > 0) return `compilation failed: ${problems.join('; ')}`;
  return { rule, program: cel.plan(env, parsed), transition };
}

/** Every rule in a schema that does not compile, as CRD field causes. */
export function ruleErrors(schema: JSONSchemaProps, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const compiled = compileRule(rule);
    if (typeof compiled === 'string') {
      causes.push({
        field: `${path}.x-kubernetes-validations[${i}].rule`,
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(rule.rule)}: ${compiled}`,
      });
    }
  });
  for (const [k, sub] of Object.entries(schema.properties ?? {}))
    causes.push(...ruleErrors(sub, `${path}.properties[${k}]`));
  if (typeof schema.additionalProperties === 'object')
    causes.push(...ruleErrors(schema.additionalProperties, `${path}.additionalProperties`));
  if (schema.items) causes.push(...ruleErrors(schema.items, `${path}.items`));
  return causes;
}

/** A JSON value as CEL sees it under its schema: integers are CEL ints (bigint), other numbers doubles. */
function toCel(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (typeof value === 'number') {
    const integer =
      schema?.type === 'integer' || (schema?.['x-kubernetes-int-or-string'] === true && Number.isInteger(value));
    return integer && Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => toCel(v, schema?.items));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[celName(k)] = toCel(v, schema ? propertySchema(schema, k) : undefined);
    return out;
  }
  return value;
}

const compiledCache = new WeakMap<ValidationRule, CompiledRule | string>();

function compiled(rule: ValidationRule): CompiledRule | string {
  let c = compiledCache.get(rule);
  if (c === undefined) {
    c = compileRule(rule);
    compiledCache.set(rule, c);
  }
  return c;
}

const ruled = new WeakMap<JSONSchemaProps, boolean>();

/** Whether `schema` or any schema under it carries x-kubernetes-validations (memoised: schemas are not mutated). */
function hasRules(schema: JSONSchemaProps): boolean {
  let known = ruled.get(schema);
  if (known === undefined) {
    known =
      (schema['x-kubernetes-validations'] ?? []).length > 0 ||
      Object.values(schema.properties ?? {}).some(hasRules) ||
      (typeof schema.additionalProperties === 'object' && hasRules(schema.additionalProperties)) ||
      (schema.items !== undefined && hasRules(schema.items));
    ruled.set(schema, known);
  }
  return known;
}

/** Evaluates every rule under `schema` against `value`; `old` is the stored value on update, undefined on create. */
export function evaluateRules(value: unknown, old: unknown, schema: JSONSchemaProps, path: string): StatusCause[] {
  // A subtree without rules has nothing to evaluate: a Server's status, written most, is walked no more.
  if (value === undefined || value === null || !hasRules(schema)) return [];
  const causes: StatusCause[] = [];
  // Ratcheting (KEP-4008): a rule without oldSelf is not evaluated again on a value the update left as it was;
  // a transition rule always is. Each side is converted for CEL once, whatever the number of rules.
  let unchanged: boolean | undefined;
  let self: unknown;
  let oldSelf: unknown;
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    const c = compiled(rule);
    if (typeof c === 'string') {
      causes.push({ field: path, reason: 'FieldValueInvalid', message: c });
      continue;
    }
    if (c.transition && (old === undefined || old === null)) continue;
    if (!c.transition && (unchanged ??= old !== undefined && isDeepStrictEqual(value, old))) continue;
    self ??= toCel(value, schema);
    const bindings: Record<string, unknown> = { self };
    if (c.transition) bindings.oldSelf = oldSelf ??= toCel(old, schema);
    const result = c.program(bindings as Parameters<Program>[0]);
    if (result === true) continue;
    const field = rule.fieldPath ? `${path}${rule.fieldPath}` : path;
    const message = library().cel.isCelError(result)
      ? `${rule.rule}: evaluation failed: ${result.message}`
      : (rule.message ?? `Invalid value: "object": failed rule: ${rule.rule}`);
    causes.push({ field, reason: rule.reason ?? 'FieldValueInvalid', message });
  }
  const oldObj =
    typeof old === 'object' && old !== null && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
  if (typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      const sub = propertySchema(schema, k);
      if (sub) causes.push(...evaluateRules(v, oldObj?.[k], sub, childPath(path, k)));
    }
  } else if (Array.isArray(value) && schema.items) {
    // Kubernetes correlates list items for oldSelf only in map-keyed lists; atomic lists get no oldSelf.
    const items = schema.items;
    value.forEach((v, i) => causes.push(...evaluateRules(v, undefined, items, `${path}[${i}]`)));
  }
  return causes;
}

const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** A property name as Kubernetes CEL spells it: reserved words as `__word__`, and `__`, `.`, `-`, `/` escaped. */
function celName(name: string): string {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  return name.replace(
    /__|[.\-/]/g,
    (m) => ({ __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' })[m] ?? m,
  );
}
