/** Reading untyped request bodies without `any`: small accessors that answer undefined for the wrong shape. */
export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export const objectAt = (v: unknown, key: string): JsonObject | undefined => {
  const inner = isObject(v) ? v[key] : undefined;
  return isObject(inner) ? inner : undefined;
};

export const stringAt = (v: unknown, key: string): string | undefined => {
  const inner = isObject(v) ? v[key] : undefined;
  return typeof inner === 'string' ? inner : undefined;
};

export const numberAt = (v: unknown, key: string): number | undefined => {
  const inner = isObject(v) ? v[key] : undefined;
  return typeof inner === 'number' ? inner : undefined;
};

export const booleanAt = (v: unknown, key: string): boolean | undefined => {
  const inner = isObject(v) ? v[key] : undefined;
  return typeof inner === 'boolean' ? inner : undefined;
};

export const arrayAt = (v: unknown, key: string): unknown[] | undefined => {
  const inner = isObject(v) ? v[key] : undefined;
  return Array.isArray(inner) ? (inner as unknown[]) : undefined;
};

/** A string-to-string map (metadata, extra specs); undefined when any value is not a string. */
export const stringMapAt = (v: unknown, key: string): Record<string, string> | undefined => {
  const inner = objectAt(v, key);
  if (inner === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(inner)) {
    if (typeof value !== 'string') return undefined;
    out[k] = value;
  }
  return out;
};

export const stringsOf = (v: unknown[] | undefined): string[] =>
  (v ?? []).filter((x): x is string => typeof x === 'string');

/** OpenStack's timestamp forms: Keystone `2026-01-01T00:00:00.000000Z`, Nova and Glance `2026-01-01T00:00:00Z`. */
export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
export const isoMicros = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');
