/**
 * Structural schemas as kube-apiserver applies them to a custom resource on write: defaults first, then pruning of
 * unknown fields, then OpenAPI value validation. Messages follow apimachinery's field errors.
 */
import { isDeepStrictEqual } from 'node:util';
import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from './types.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The schema for a map value: a property's, or additionalProperties'. */
export function propertySchema(schema: JSONSchemaProps, key: string): JSONSchemaProps | undefined {
  const prop = schema.properties?.[key];
  if (prop) return prop;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/** Fills absent fields that declare a default, and drops nulls a non-nullable field may not hold. */
export function applyDefaults(value: unknown, schema: JSONSchemaProps): unknown {
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      const sub = propertySchema(schema, k);
      if (v === null && sub && !sub.nullable) continue;
      out[k] = sub ? applyDefaults(v, sub) : v;
    }
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if (!Object.hasOwn(out, k) && sub.default !== undefined)
        out[k] = applyDefaults(structuredClone(sub.default), sub);
    }
    return out;
  }
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    return value.map((v) => applyDefaults(v, items));
  }
  return value;
}

/** Removes fields the schema does not declare, except under x-kubernetes-preserve-unknown-fields. */
export function prune(value: unknown, schema: JSONSchemaProps, isRoot = false): unknown {
  if (isObject(value)) {
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      if (isRoot && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) {
        out[k] = v;
        continue;
      }
      const sub = propertySchema(schema, k);
      if (sub) out[k] = prune(v, sub);
      else if (preserve || schema.additionalProperties === true) out[k] = v;
    }
    return out;
  }
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    return value.map((v) => prune(v, items));
  }
  return value;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function show(v: unknown): string {
  const json = JSON.stringify(v) as string | undefined;
  return json ?? String(v);
}

const FORMATS: Readonly<Record<string, RegExp>> = {
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  ipv4: /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/,
  hostname: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
  byte: /^[A-Za-z0-9+/]*={0,2}$/,
};

/** OpenAPI value validation; every failure becomes one cause, so a client sees them all at once. */
export function validateValue(value: unknown, schema: JSONSchemaProps, path: string, old?: unknown): StatusCause[] {
  // Ratcheting, as Kubernetes does since 1.30 (KEP-4008): an update's value equal to the stored one is not judged
  // again, so a status write does not re-validate the spec it cannot change.
  if (old !== undefined && isDeepStrictEqual(value, old)) return [];
  const causes: StatusCause[] = [];
  const invalid = (message: string): void => {
    causes.push({ field: path, reason: 'FieldValueInvalid', message: `Invalid value: ${show(value)}: ${message}` });
  };
  if (value === null) {
    if (!schema.nullable) invalid(`${path} in body must be of type ${schema.type ?? 'object'}: "null"`);
    return causes;
  }
  const actual = typeName(value);
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  if (intOrString) {
    if (actual !== 'integer' && actual !== 'string') invalid(`${path} in body must be of type integer or string`);
  } else if (schema.type !== undefined) {
    const ok = schema.type === 'number' ? actual === 'number' || actual === 'integer' : actual === schema.type;
    if (!ok) {
      invalid(`${path} in body must be of type ${schema.type}: "${actual}"`);
      return causes;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    causes.push({
      field: path,
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${show(value)}: supported values: ${schema.enum.map(show).join(', ')}`,
    });
  }
  if (typeof value === 'number') validateNumber(value, schema, path, invalid);
  if (typeof value === 'string') validateString(value, schema, path, invalid);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      invalid(`${path} in body should have at least ${schema.minItems} items`);
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      causes.push({
        field: path,
        reason: 'FieldValueTooMany',
        message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
      });
    }
    const items = schema.items;
    if (items) value.forEach((v, i) => causes.push(...validateValue(v, items, `${path}[${i}]`)));
    causes.push(...listTypeDuplicates(value, schema, path));
  }
  if (isObject(value)) causes.push(...validateObject(value, schema, path, invalid, isObject(old) ? old : undefined));
  causes.push(...validateCombinators(value, schema, path, invalid));
  return causes;
}

/**
 * x-kubernetes-list-type set and map, as kube-apiserver enforces them (1.18+): no two items alike (set), no two
 * items with the same values of the map keys (map); each later duplicate is one cause, on its index.
 */
function listTypeDuplicates(value: readonly unknown[], schema: JSONSchemaProps, path: string): StatusCause[] {
  const listType = schema['x-kubernetes-list-type'];
  if (listType !== 'set' && listType !== 'map') return [];
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const identity = (item: unknown): unknown =>
    listType === 'set' || !isObject(item) ? item : Object.fromEntries(keys.map((k) => [k, item[k]]));
  const seen = new Set<string>();
  const causes: StatusCause[] = [];
  value.forEach((item, i) => {
    const id = identity(item);
    const key = JSON.stringify(id);
    if (seen.has(key)) {
      causes.push({ field: `${path}[${i}]`, reason: 'FieldValueDuplicate', message: `Duplicate value: ${key}` });
    }
    seen.add(key);
  });
  return causes;
}

function validateNumber(value: number, schema: JSONSchemaProps, path: string, invalid: (m: string) => void): void {
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum) {
      invalid(
        `${path} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
      );
    }
  }
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum) {
      invalid(`${path} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`);
    }
  }
}

function validateString(value: string, schema: JSONSchemaProps, path: string, invalid: (m: string) => void): void {
  // Lengths count code points, as Go's utf8.RuneCountInString does.
  const length = value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '_').length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    invalid(`${path} in body should be at least ${schema.minLength} chars long`);
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    invalid(`${path} in body may not be longer than ${schema.maxLength}`);
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
    invalid(`${path} in body should match '${schema.pattern}'`);
  }
  const format = schema.format === undefined ? undefined : FORMATS[schema.format];
  if (format && !format.test(value)) invalid(`${path} in body must be of type ${schema.format ?? ''}: ${show(value)}`);
}

function validateObject(
  value: Json,
  schema: JSONSchemaProps,
  path: string,
  invalid: (m: string) => void,
  old: Json | undefined,
): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(value, key)) {
      causes.push({ field: childPath(path, key), reason: 'FieldValueRequired', message: 'Required value' });
    }
  }
  const count = Object.keys(value).length;
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    invalid(`${path} in body should have at least ${schema.minProperties} properties`);
  }
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    invalid(`${path} in body should have at most ${schema.maxProperties} properties`);
  }
  for (const [k, v] of Object.entries(value)) {
    const sub = schema.properties?.[k];
    if (sub) causes.push(...validateValue(v, sub, childPath(path, k), old?.[k]));
    else if (typeof schema.additionalProperties === 'object') {
      causes.push(...validateValue(v, schema.additionalProperties, `${path}[${k}]`, old?.[k]));
    }
  }
  return causes;
}

function validateCombinators(
  value: unknown,
  schema: JSONSchemaProps,
  path: string,
  invalid: (m: string) => void,
): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const sub of schema.allOf ?? []) causes.push(...validateValue(value, sub, path));
  if (schema.anyOf && !schema.anyOf.some((s) => validateValue(value, s, path).length === 0)) {
    invalid(`${path} in body must match at least one schema in anyOf`);
  }
  if (schema.oneOf && schema.oneOf.filter((s) => validateValue(value, s, path).length === 0).length !== 1) {
    invalid(`${path} in body must match exactly one schema in oneOf`);
  }
  if (schema.not && validateValue(value, schema.not, path).length === 0)
    invalid(`${path} in body must not match the schema in not`);
  return causes;
}

/** Structural-schema rules checked when a CRD is written: every node says its type, the root is an object. */
export function structuralErrors(schema: JSONSchemaProps, path: string, isRoot = true): StatusCause[] {
  const causes: StatusCause[] = [];
  const exempt =
    schema['x-kubernetes-int-or-string'] === true || schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (isRoot && schema.type !== 'object') {
    causes.push({ field: `${path}.type`, reason: 'FieldValueInvalid', message: 'must be object at the root' });
  } else if (schema.type === undefined && !exempt) {
    causes.push({
      field: `${path}.type`,
      reason: 'FieldValueRequired',
      message: 'Required value: must not be empty for specified object fields',
    });
  }
  if (schema.pattern !== undefined) {
    try {
      new RegExp(schema.pattern, 'u');
    } catch {
      causes.push({
        field: `${path}.pattern`,
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${show(schema.pattern)}: not a valid regular expression`,
      });
    }
  }
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    causes.push(...structuralErrors(sub, `${path}.properties[${k}]`, false));
  }
  if (typeof schema.additionalProperties === 'object') {
    causes.push(...structuralErrors(schema.additionalProperties, `${path}.additionalProperties`, false));
  }
  if (schema.items) causes.push(...structuralErrors(schema.items, `${path}.items`, false));
  return causes;
}
