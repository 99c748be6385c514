/**
 * `openregion api-resources` and `openregion explain KIND[.field…]`, as kubectl's: the kinds the store or cluster
 * serves (the built-in ones openregion knows and every CRD) with their short names, and a kind's fields from its
 * CRD's schema. The formatting is pure; the commands read.
 */
import { Command } from 'commander';
import { apiVersionOf } from '../kube/resource-type.ts';
import { CliError, kindsOf, type KindEntry, resolveEntry, type Target } from './connect.ts';
import { targetOptions, withClient, type Out } from './target.ts';

interface ApiResourcesOptions extends Target {
  readonly output?: string;
  readonly apiGroup?: string;
  readonly namespaced?: boolean;
  readonly noHeaders?: boolean;
  readonly sortBy?: string;
}

/** kubectl's verbs for a kind the store serves in full (lists, watches, patches, deletes collections). */
const VERBS = 'create,delete,deletecollection,get,list,patch,update,watch';

/** kubectl's table: columns three spaces apart, the last unpadded. */
function aligned(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3)))
        .join('')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The api-resources table (or names with -o name), sorted as kubectl sorts: by group (or --sort-by), then name. */
function apiResources(kinds: readonly KindEntry[], options: ApiResourcesOptions): string {
  const sortKey = (k: KindEntry) =>
    options.sortBy === 'name' ? k.type.plural : options.sortBy === 'kind' ? k.type.kind : k.type.group;
  const shown = kinds
    .filter((k) => options.apiGroup === undefined || k.type.group === options.apiGroup)
    .filter((k) => options.namespaced === undefined || k.type.namespaced === options.namespaced)
    .sort((a, b) => compare(sortKey(a), sortKey(b)) || compare(a.type.plural, b.type.plural));
  const output = options.output ?? '';
  if (output === 'name') {
    return shown.map((k) => `${k.type.plural}${k.type.group === '' ? '' : `.${k.type.group}`}\n`).join('');
  }
  if (output !== '' && output !== 'wide') throw new CliError(`--output ${output} is not available: wide or name`);
  const wide = output === 'wide';
  const header = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', ...(wide ? ['VERBS', 'CATEGORIES'] : [])];
  const rows = shown.map((k) => [
    k.type.plural,
    k.shortNames.join(','),
    apiVersionOf(k.type),
    String(k.type.namespaced),
    k.type.kind,
    ...(wide ? [VERBS, k.categories.join(',')] : []),
  ]);
  return aligned(options.noHeaders === true ? rows : [header, ...rows]);
}

/** The part of a structural schema explain reads. */
interface Schema {
  readonly type?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly additionalProperties?: Schema;
  readonly enum?: readonly unknown[];
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** What the API server adds to every CRD's published schema: the fields of any object. */
const OBJECT_FIELDS: Readonly<Record<string, Schema>> = {
  apiVersion: {
    type: 'string',
    description:
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert ' +
      'recognized schemas to the latest internal value, and may reject unrecognized values.',
  },
  kind: {
    type: 'string',
    description:
      'Kind is a string value representing the REST resource this object represents. Servers may infer this from ' +
      'the endpoint the client submits requests to.',
  },
  metadata: {
    type: 'ObjectMeta',
    description: "Standard object's metadata: name, namespace, labels, annotations, ownerReferences, finalizers…",
  },
};

/** kubectl explain's type words: `<string>`, `<Object>`, `<[]Object>`, `<map[string]string>`, `<IntOrString>`. */
function typeWord(schema: Schema): string {
  if (schema['x-kubernetes-int-or-string'] === true) return 'IntOrString';
  if (schema.type === 'array') return `[]${schema.items === undefined ? 'Object' : typeWord(schema.items)}`;
  if (schema.type === 'object' || (schema.type === undefined && schema.properties !== undefined)) {
    if (schema.properties === undefined && schema.additionalProperties !== undefined) {
      return `map[string]${typeWord(schema.additionalProperties)}`;
    }
    return 'Object';
  }
  return schema.type ?? 'Object';
}

const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((line) => (line === '' ? '' : by + line))
    .join('\n');

/** The node `path` (field names) leads to, through arrays' items and maps' values as kubectl's explain goes. */
function descend(root: Schema, path: readonly string[], what: string): Schema {
  let node = root;
  for (const [i, field] of path.entries()) {
    while (node.type === 'array' && node.items !== undefined) node = node.items;
    const atRoot = i === 0 && node === root;
    const next =
      atRoot && field === 'metadata'
        ? OBJECT_FIELDS[field]
        : (node.properties?.[field] ?? (atRoot ? OBJECT_FIELDS[field] : undefined));
    if (next === undefined) {
      throw new CliError(`field "${field}" does not exist in ${[what, ...path.slice(0, i)].join('.')}`, 'failed');
    }
    node = next;
  }
  return node;
}

/** `explain`'s text for a kind (its CRD schema) at a field path, with every field below it when `recursive`. */
function explainText(entry: KindEntry, path: readonly string[], recursive: boolean): string {
  if (entry.schema === undefined) {
    throw new CliError(`no schema for ${entry.type.plural}: explain reads a CRD's schema`, 'failed');
  }
  const root = entry.schema as Schema;
  const node = descend(root, path, entry.type.plural);
  const field = path.at(-1);
  let out = `GROUP:      ${entry.type.group}\nKIND:       ${entry.type.kind}\nVERSION:    ${entry.type.version}\n\n`;
  if (field !== undefined) out += `FIELD: ${field} <${typeWord(node)}>\n`;
  if (node.enum !== undefined) out += `ENUM:\n${node.enum.map((v) => `    ${String(v)}`).join('\n')}\n`;
  if (field !== undefined || node.enum !== undefined) out += '\n';
  out += `DESCRIPTION:\n${indent(node.description ?? '<empty>', '    ')}\n`;
  let inner = node;
  while (inner.type === 'array' && inner.items !== undefined) inner = inner.items;
  // At the root, the fields of any object; metadata is ObjectMeta whatever the CRD's schema says, as the API server publishes it.
  const properties =
    path.length === 0
      ? { ...OBJECT_FIELDS, ...inner.properties, metadata: OBJECT_FIELDS['metadata'] ?? {} }
      : (inner.properties ?? {});
  if (Object.keys(properties).length === 0) return out;
  out += '\nFIELDS:\n';
  const lines = (props: Readonly<Record<string, Schema>>, required: readonly string[], depth: number): string =>
    Object.entries(props)
      .sort(([a], [b]) => compare(a, b))
      .map(([name, schema]) => {
        const pad = '  '.repeat(depth + 1);
        const mark = required.includes(name) ? ' -required-' : '';
        if (recursive) {
          let below = schema;
          while (below.type === 'array' && below.items !== undefined) below = below.items;
          const children =
            below.properties === undefined ? '' : lines(below.properties, below.required ?? [], depth + 1);
          return `${pad}${name}\t<${typeWord(schema)}>${mark}\n${children}`;
        }
        return `${pad}${name}\t<${typeWord(schema)}>${mark}\n${indent(schema.description ?? '<no description>', `${pad}  `)}\n\n`;
      })
      .join('');
  out += lines(properties, inner.required ?? [], 0);
  return out;
}

export function apiResourcesCommand(out: Out = process.stdout, err: Out = process.stderr): Command {
  return targetOptions(
    new Command('api-resources')
      .description('list the kinds the store or cluster serves, with their short names, as kubectl api-resources')
      .option('-o, --output <format>', 'wide (with verbs and categories) or name')
      .option('--api-group <group>', 'only the kinds of this API group ("" for the core group)')
      .option(
        '--namespaced [bool]',
        'only namespaced kinds (--namespaced=false: only cluster-scoped)',
        (v) => v !== 'false',
      )
      .option('--no-headers', 'leave the header line out')
      .option('--sort-by <field>', 'name or kind (default: by group, then name)'),
  ).action(async (options: ApiResourcesOptions & { headers?: boolean }) => {
    await withClient(options, err, async (client) => {
      out.write(apiResources(await kindsOf(client), { ...options, noHeaders: options.headers === false }));
    });
  });
}

export function explainCommand(out: Out = process.stdout, err: Out = process.stderr): Command {
  return targetOptions(
    new Command('explain')
      .description("describe a kind's fields from its CRD's schema: explain servers, explain servers.spec.image")
      .argument('<resource>', 'TYPE[.FIELD…] (TYPE: a kind, plural, singular or short name)')
      .option('--recursive', 'every field below, without descriptions'),
  ).action(async (resource: string, options: Target & { recursive?: boolean }) => {
    await withClient(options, err, async (client) => {
      const [type = '', ...path] = resource.split('.');
      const entry = resolveEntry(await kindsOf(client), type);
      out.write(explainText(entry, path, options.recursive === true));
    });
  });
}
