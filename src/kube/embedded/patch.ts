/** JSON merge patch (RFC 7386) and JSON patch (RFC 6902) over plain JSON values. */
import type { JsonPatchOperation } from '../client.ts';
import { KubeInvalidError } from '../errors.ts';
import { deepEqual, isPlainObject, type JsonObject } from './json.ts';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(out, key);
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

function fail(op: JsonPatchOperation, message: string): never {
  throw new KubeInvalidError(`json patch ${op.op} ${op.path}: ${message}`, [{ field: op.path, message }]);
}

/** RFC 6901: `/a/b~1c` → ['a', 'b/c']. */
function pointer(path: string, op: JsonPatchOperation): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) fail(op, 'path must start with "/"');
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: unknown, tokens: readonly string[], op: JsonPatchOperation): unknown {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      const i = Number(t);
      if (!/^\d+$/.test(t) || i >= cur.length) fail(op, `no element ${t}`);
      cur = cur[i];
    } else if (isPlainObject(cur) && Object.hasOwn(cur, t)) cur = cur[t];
    else fail(op, `no field ${t}`);
  }
  return cur;
}

/** The container at the parent path, copied along the way so the input document is never mutated. */
function withParent(
  doc: unknown,
  tokens: readonly string[],
  op: JsonPatchOperation,
  edit: (parent: unknown, key: string) => unknown,
): unknown {
  const [head, ...rest] = tokens;
  if (head === undefined) fail(op, 'cannot address the document root here');
  if (rest.length === 0) return edit(doc, head);
  if (Array.isArray(doc)) {
    const i = Number(head);
    if (!/^\d+$/.test(head) || i >= doc.length) fail(op, `no element ${head}`);
    const copy: unknown[] = [...(doc as unknown[])];
    copy[i] = withParent(doc[i], rest, op, edit);
    return copy;
  }
  if (!isPlainObject(doc) || !Object.hasOwn(doc, head)) fail(op, `no field ${head}`);
  return { ...doc, [head]: withParent(doc[head], rest, op, edit) };
}

function add(doc: unknown, tokens: readonly string[], value: unknown, op: JsonPatchOperation): unknown {
  if (tokens.length === 0) return value;
  return withParent(doc, tokens, op, (parent, key) => {
    if (Array.isArray(parent)) {
      const i = key === '-' ? parent.length : Number(key);
      if ((key !== '-' && !/^\d+$/.test(key)) || i > parent.length) fail(op, `index ${key} out of range`);
      const copy: unknown[] = [...(parent as unknown[])];
      copy.splice(i, 0, value);
      return copy;
    }
    if (!isPlainObject(parent)) fail(op, 'parent is not an object or array');
    return { ...parent, [key]: value };
  });
}

function remove(doc: unknown, tokens: readonly string[], op: JsonPatchOperation): unknown {
  return withParent(doc, tokens, op, (parent, key) => {
    if (Array.isArray(parent)) {
      const i = Number(key);
      if (!/^\d+$/.test(key) || i >= parent.length) fail(op, `no element ${key}`);
      return (parent as unknown[]).filter((_, j) => j !== i);
    }
    if (!isPlainObject(parent) || !Object.hasOwn(parent, key)) fail(op, `no field ${key}`);
    const copy = { ...parent };
    Reflect.deleteProperty(copy, key);
    return copy;
  });
}

export function jsonPatch(doc: unknown, operations: readonly JsonPatchOperation[]): unknown {
  let cur = doc;
  for (const op of operations) {
    const tokens = pointer(op.path, op);
    switch (op.op) {
      case 'add':
        cur = add(cur, tokens, op.value, op);
        break;
      case 'remove':
        cur = remove(cur, tokens, op);
        break;
      case 'replace':
        getAt(cur, tokens, op);
        cur = tokens.length === 0 ? op.value : add(remove(cur, tokens, op), tokens, op.value, op);
        break;
      case 'move':
      case 'copy': {
        if (op.from === undefined) fail(op, '"from" is required');
        const fromTokens = pointer(op.from, op);
        const value = getAt(cur, fromTokens, op);
        if (op.op === 'move') cur = remove(cur, fromTokens, op);
        cur = add(cur, tokens, value, op);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(cur, tokens, op), op.value)) fail(op, 'test failed');
        break;
    }
  }
  return cur;
}
