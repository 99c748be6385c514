/**
 * A list's answer as JSON, each object's read model serialized once per object instance. Lists come from the
 * manager's caches (runtime/cached-lists.ts), which hand out the instances they hold and replace, never change, one
 * when its object changes: a list of 10,000 unchanged servers serializes none of them again, where it spent most of
 * its time in JSON.stringify. Objects read from the store are new on every read and simply miss.
 */
export function listJson<T extends object>(toRead: (object: T) => unknown): (items: readonly T[]) => string {
  const serialized = new WeakMap<T, string>();
  const jsonOf = (object: T): string => {
    let json = serialized.get(object);
    if (json === undefined) {
      json = JSON.stringify(toRead(object));
      serialized.set(object, json);
    }
    return json;
  };
  return (items) => `[${items.map(jsonOf).join(',')}]`;
}
