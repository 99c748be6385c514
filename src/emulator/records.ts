/**
 * What a persistent emulator keeps of a service: its records as plain data, Maps and Sets (structured-clone-able),
 * taken back into the service's own containers, which other code holds references to and which stay the same
 * objects.
 */

type Fields = Record<string, unknown>;

const isPlain = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** The fields of `holder` named in `keys`, as they are: the snapshot a service's `snapshot()` returns. */
export function recordsOf<T extends object, K extends keyof T & string>(holder: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, holder[key]])) as Pick<T, K>;
}

/**
 * Takes a snapshot's fields back into `holder`: a Map, Set or array is refilled in place, a plain object's fields
 * are replaced, anything else is assigned. A field the snapshot lacks is left as the service made it.
 */
export function refill(holder: object, snapshot: unknown): void {
  if (!isPlain(snapshot)) throw new Error('a service snapshot is a plain object of fields');
  const target = holder as Fields;
  for (const [key, value] of Object.entries(snapshot)) {
    const current = target[key];
    if (current instanceof Map && value instanceof Map) {
      current.clear();
      for (const [k, v] of value) current.set(k, v);
    } else if (current instanceof Set && value instanceof Set) {
      current.clear();
      for (const v of value) current.add(v);
    } else if (Array.isArray(current) && Array.isArray(value)) {
      current.splice(0, current.length, ...(value as unknown[]));
    } else if (isPlain(current) && isPlain(value)) {
      for (const k of Object.keys(current)) Reflect.deleteProperty(current, k);
      Object.assign(current, value);
    } else {
      target[key] = value;
    }
  }
}
