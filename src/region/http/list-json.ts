/**
 * A list's answer as JSON, streamed in chunks, each object's read model serialized once per object instance. Lists
 * come from the manager's caches (runtime/cached-lists.ts), which hand out the instances they hold and replace,
 * never change, one when its object changes: a list of 10,000 unchanged servers serializes none of them again, where
 * it spent most of its time in JSON.stringify. Objects read from the store are new on every read and simply miss.
 * Chunks, not one string: a 7 MB answer built whole on every request filled V8's large-object space and paid for
 * it in full collections that stalled the loop; a chunk dies young.
 */
import { Readable } from 'node:stream';

/** Big enough that a chunk is one socket write, small enough to be allocated and dropped in the young generation. */
const CHUNK = 64 * 1024;

export function listJson<T extends object>(toRead: (object: T) => unknown): (items: readonly T[]) => Readable {
  const serialized = new WeakMap<T, string>();
  const jsonOf = (object: T): string => {
    let json = serialized.get(object);
    if (json === undefined) {
      json = JSON.stringify(toRead(object));
      serialized.set(object, json);
    }
    return json;
  };
  function* chunks(items: readonly T[]): Generator<string> {
    let chunk = '[';
    for (const [i, item] of items.entries()) {
      chunk += i === 0 ? jsonOf(item) : `,${jsonOf(item)}`;
      if (chunk.length >= CHUNK) {
        yield chunk;
        chunk = '';
      }
    }
    yield `${chunk}]`;
  }
  return (items) => Readable.from(chunks(items));
}
