/**
 * OpenStack's name filters are fuzzy (Nova matches a regular expression, some services a prefix), so every lookup
 * by deterministic name post-filters to exact matches. Two exact matches mean a name that must be unique is not:
 * that is a consistency error to surface, never something to pick from.
 */
import { ConsistencyError } from './errors.ts';

export interface Named {
  readonly id: string;
  readonly name?: string | null | undefined;
}

/** The one item named exactly `name`, or undefined; throws ConsistencyError when there are several. */
export function exactlyNamed<T extends Named>(items: Iterable<T>, name: string, kind: string): T | undefined {
  let found: T | undefined;
  const ids: string[] = [];
  for (const item of items) {
    if (item.name !== name) continue;
    found ??= item;
    ids.push(item.id);
  }
  if (ids.length > 1) throw new ConsistencyError(kind, name, ids);
  return found;
}
