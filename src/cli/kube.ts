/**
 * `openregion apply|get|delete`: kubectl's everyday verbs against the embedded store file a running `openregion up`
 * uses (--store, the default) or a Kubernetes cluster (--kubeconfig).
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { parseAllDocuments, stringify } from 'yaml';
import type { Client } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import type { KubeObject } from '../kube/object.ts';
import { systemClock } from '../util/clock.ts';
import {
  CliError,
  connect,
  DEFAULT_STORE,
  displayType,
  type Connection,
  STORE_VARIABLE,
  kindOfObject,
  kindsOf,
  resolveKind,
  type Target,
} from './connect.ts';

const FIELD_MANAGER = 'openregion-cli';

export type Out = { write(text: string): unknown };

/** All of standard input, as `apply -f -` reads it. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** The manifest `-f` names: a file, or standard input for `-`, as kubectl reads it. */
async function readManifest(filename: string, stdin: () => Promise<string>): Promise<string> {
  if (filename === '-') return stdin();
  try {
    return readFileSync(filename, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError(`the path "${filename}" does not exist`);
    if (code === 'EISDIR') throw new CliError(`${filename} is a directory; name a YAML file`);
    throw error;
  }
}

/** A document that can be applied: an object with apiVersion, kind and metadata.name. */
function asObject(value: unknown, where: string): KubeObject {
  const o = value as Partial<KubeObject> | null;
  const ok =
    typeof o === 'object' &&
    o !== null &&
    typeof o.apiVersion === 'string' &&
    typeof o.kind === 'string' &&
    typeof o.metadata?.name === 'string' &&
    o.metadata.name !== '';
  if (!ok) throw new CliError(`${where}: not a Kubernetes object (needs apiVersion, kind and metadata.name)`);
  return o as KubeObject;
}

/**
 * Runs `fn` against the target, reporting known failures as kubectl does (and exit code 1). Only a write that may
 * start from nothing (`apply`) passes `create`: every other verb refuses a store that does not exist.
 */
export async function withClient(
  target: Target,
  err: Out,
  fn: (client: Client) => Promise<void>,
  options: { readonly create?: boolean } = {},
): Promise<void> {
  let connection: Connection | undefined;
  try {
    connection = await connect(target, options);
    await fn(connection.client);
  } catch (error) {
    if (error instanceof KubeError) err.write(`Error from server (${error.reason}): ${error.message}\n`);
    else if (error instanceof CliError) err.write(`error: ${error.message}\n`);
    else throw error;
    process.exitCode = 1;
  } finally {
    await connection?.close();
  }
}

/** --store (default: $OPENREGION_STORE, which up's dev.env exports, else ./.openregion/store.db) and --kubeconfig. */
export const targetOptions = (c: Command): Command =>
  c
    .addOption(
      new Option('--store <path>', 'the embedded store file of a running `openregion up`')
        .env(STORE_VARIABLE)
        .default(DEFAULT_STORE),
    )
    .option('--kubeconfig <path>', 'a Kubernetes cluster instead of the embedded store');

function age(created: string | undefined, now: number): string {
  if (created === undefined) return '<unknown>';
  const s = Math.max(0, Math.floor((now - Date.parse(created)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function table(items: readonly KubeObject[], namespaced: boolean, now: number): string {
  const rows = items.map((o) => [
    ...(namespaced ? [o.metadata.namespace ?? ''] : []),
    o.metadata.name,
    age(o.metadata.creationTimestamp, now),
  ]);
  const header = [...(namespaced ? ['NAMESPACE'] : []), 'NAME', 'AGE'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return (
    all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3))).join('')).join('\n') +
    '\n'
  );
}

export function kubeCommands(
  out: Out = process.stdout,
  err: Out = process.stderr,
  stdin: () => Promise<string> = readStdin,
): Command[] {
  const apply = targetOptions(
    new Command('apply')
      .description('server-side apply every document of a YAML file (field manager openregion-cli)')
      .requiredOption('-f, --filename <file>', 'a YAML file, one or more documents; - reads standard input')
      .option('-n, --namespace <ns>', 'the namespace for namespaced objects that name none', 'default'),
  ).action(async (options: { filename: string; namespace: string } & Target) => {
    await withClient(
      options,
      err,
      async (client) => {
        const source = options.filename === '-' ? 'standard input' : options.filename;
        const docs = parseAllDocuments(await readManifest(options.filename, stdin));
        for (const [i, doc] of docs.entries()) {
          // The parser's messages carry a code frame on further lines: the first line says what and where.
          if (doc.errors.length > 0)
            throw new CliError(`${source}: ${doc.errors.map((e) => e.message.split('\n')[0]).join('; ')}`);
          const value: unknown = doc.toJS();
          if (value === null) continue;
          const object = asObject(value, docs.length === 1 ? source : `${source}, document ${String(i + 1)}`);
          // Listed per document: a CRD earlier in the file makes its kind known to the documents after it.
          const type = kindOfObject(await kindsOf(client), object);
          const body = type.namespaced
            ? { ...object, metadata: { ...object.metadata, namespace: object.metadata.namespace ?? options.namespace } }
            : object;
          await client.apply(type, body, { fieldManager: FIELD_MANAGER, force: true });
          out.write(`${displayType(type)}/${object.metadata.name} serverside-applied\n`);
        }
      },
      { create: true },
    );
  });

  const get = targetOptions(
    new Command('get')
      .description('show one object, or list a kind')
      .argument('<kind>')
      .argument('[name]')
      .option('-n, --namespace <ns>', 'the namespace (default: all namespaces for a list, default for one object)')
      .option('-o, --output <format>', 'yaml or json'),
  ).action(
    async (kind: string, name: string | undefined, options: { namespace?: string; output?: string } & Target) => {
      await withClient(options, err, async (store) => {
        const type = resolveKind(await kindsOf(store), kind);
        const format = options.output;
        if (format !== undefined && format !== 'yaml' && format !== 'json')
          throw new CliError(`unknown output format "${format}"`);
        if (name !== undefined) {
          const object = await store.get(type, type.namespaced ? (options.namespace ?? 'default') : undefined, name);
          if (format === 'json') out.write(JSON.stringify(object, null, 2) + '\n');
          else if (format === 'yaml') out.write(stringify(object));
          else out.write(table([object], type.namespaced, systemClock.now()));
          return;
        }
        const list = await store.list(type, { namespace: options.namespace });
        const doc = {
          apiVersion: 'v1',
          kind: 'List',
          metadata: { resourceVersion: list.resourceVersion },
          items: list.items,
        };
        if (format === 'json') out.write(JSON.stringify(doc, null, 2) + '\n');
        else if (format === 'yaml') out.write(stringify(doc));
        else if (list.items.length === 0) err.write('No resources found\n');
        else out.write(table(list.items, type.namespaced, systemClock.now()));
      });
    },
  );

  const del = targetOptions(
    new Command('delete')
      .description('delete one object (background propagation)')
      .argument('<kind>')
      .argument('<name>')
      .option('-n, --namespace <ns>', 'the namespace', 'default'),
  ).action(async (kind: string, name: string, options: { namespace: string } & Target) => {
    await withClient(options, err, async (client) => {
      const type = resolveKind(await kindsOf(client), kind);
      await client.delete(type, type.namespaced ? options.namespace : undefined, name);
      out.write(`${displayType(type)} "${name}" deleted\n`);
    });
  });

  return [apply, get, del];
}
