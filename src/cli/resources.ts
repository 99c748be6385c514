/**
 * What kubectl's resource builder makes of a verb's arguments, for get, describe, delete and wait alike:
 * `TYPE[,TYPE…] [NAME…]`, or `TYPE/NAME…` (`TYPE.GROUP/NAME`, which `get -o name` prints, so
 * `get -o name | xargs describe` works). A TYPE is a kind, plural, singular or short name, optionally `.group`-
 * qualified, or a category the CRDs declare (`all`, `unikorn`), which stands for every kind in it. Pure.
 */
import { CliError, type KindEntry, resolveEntry } from './connect.ts';

interface Request {
  readonly entry: KindEntry;
  /** The names asked for; empty: every object of the kind (a list, narrowed by -l and the like). */
  readonly names: readonly string[];
}

interface Resources {
  readonly requests: readonly Request[];
  /** kubectl's "single item implied": one kind and one name, so -o yaml prints the object, not a List. */
  readonly single: boolean;
  /** `all` was asked for: tables name each row's kind, as kubectl's do (also when more than one kind is shown). */
  readonly all: boolean;
}

/** The kinds one TYPE stands for: a category's (categories first, as kubectl expands them), else the one kind. */
export function kindsFor(kinds: readonly KindEntry[], type: string): KindEntry[] {
  const wanted = type.toLowerCase();
  const inCategory = kinds.filter((k) => k.categories.includes(wanted));
  if (inCategory.length > 0) return inCategory;
  if (wanted === 'all') return [];
  return [resolveEntry(kinds, type)];
}

export function resourceArgs(kinds: readonly KindEntry[], args: readonly string[], verb: string): Resources {
  if (args.length === 0) {
    throw new CliError(
      `you must specify the type of resource to ${verb}: \`openregion api-resources\` lists them (Required resource not specified.)`,
    );
  }
  const slashed = args.filter((a) => a.includes('/'));
  if (slashed.length > 0) {
    if (slashed.length !== args.length) {
      throw new CliError(
        "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'openregion get resource/<resource_name>' instead of 'openregion get resource resource/<resource_name>'",
      );
    }
    const byKind = new Map<KindEntry, string[]>();
    for (const arg of args) {
      const at = arg.indexOf('/');
      const [type, name] = [arg.slice(0, at), arg.slice(at + 1)];
      if (type === '' || name === '' || name.includes('/')) {
        throw new CliError(`arguments in resource/name form must have a single resource and name: "${arg}"`);
      }
      const entry = resolveEntry(kinds, type);
      byKind.set(entry, [...(byKind.get(entry) ?? []), name]);
    }
    const requests = [...byKind].map(([entry, names]) => ({ entry, names }));
    return { requests, single: args.length === 1, all: false };
  }
  const [types = '', ...names] = args;
  const entries = [...new Set(types.split(',').flatMap((t) => kindsFor(kinds, t)))];
  const all = types.split(',').some((t) => t.toLowerCase() === 'all');
  return {
    requests: entries.map((entry) => ({ entry, names })),
    single: entries.length === 1 && names.length === 1 && !all,
    all,
  };
}

/** The label selector -l and --display-name ask for together (a display name is the `unikorn-cloud.org/name` label). */
export function selectorOf(options: { readonly selector?: string; readonly displayName?: string }): string | undefined {
  const parts = [
    ...(options.selector === undefined ? [] : [options.selector]),
    ...(options.displayName === undefined ? [] : [`${DISPLAY_NAME_LABEL}=${options.displayName}`]),
  ];
  return parts.length === 0 ? undefined : parts.join(',');
}

/**
 * Where a region object keeps its display name (region/apis/shared.ts's `labels.name`; a test holds them equal):
 * objects are named by UUID, as upstream's are. Spelled here so completion does not load the schemas' library.
 */
export const DISPLAY_NAME_LABEL = 'unikorn-cloud.org/name';
