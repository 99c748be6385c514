/**
 * Optional fields, one way (docs/architecture.md §Optional fields): an object built from maybe-absent values leaves
 * out each key whose value is undefined, so what it is written as (the store, the apiserver, a wire body) and what
 * compares it (`isDeepStrictEqual`, `Object.keys`) never meets a key holding undefined.
 */

/** `T` with each key that may hold undefined made optional and never undefined. */
type Defined<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** The fields whose value is not undefined: `{ ...defined({ userData, tags }) }`, not a conditional spread each. */
export function defined<T extends object>(fields: T): Defined<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as Defined<T>;
}
