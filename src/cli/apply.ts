/**
 * `openregion apply`, as `kubectl apply`: `-f` files, directories (`-R` for their subdirectories) or standard input,
 * or `-k` a kustomization; `--dry-run=client|server`; `--server-side` with `--field-manager` and
 * `--force-conflicts`; and kubectl's words for what happened (`created`, `configured`, `unchanged`,
 * `serverside-applied`, with ` (dry run)` or ` (server dry run)`). Both backends apply server-side underneath: without
 * --server-side the manifest's fields are taken from any other manager, as a client-side apply overwrites them.
 */
import { Command } from 'commander';
import { getOptional, type Client } from '../kube/client.ts';
import type { KubeObject } from '../kube/object.ts';
import { CliError, kindOfObject, kindsOf, type Target } from './connect.ts';
import { kustomizeBuild } from './kustomize.ts';
import { readManifests, type Document } from './manifests.ts';
import { objectName } from './printer.ts';
import { targetOptions, withClient, type Out } from './target.ts';

const FIELD_MANAGER = 'openregion-cli';

interface ApplyFlags extends Target {
  readonly filename: readonly string[];
  readonly kustomize?: string;
  readonly recursive?: boolean;
  readonly namespace?: string;
  readonly dryRun?: string | true;
  readonly serverSide?: boolean;
  readonly fieldManager?: string;
  readonly forceConflicts?: boolean;
}

type DryRun = 'none' | 'client' | 'server';

/** All of standard input, as `apply -f -` reads it. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
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
  if (!ok)
    throw new CliError(`${where}: not a Kubernetes object (needs apiVersion, kind and metadata.name)`, 'rejected');
  return o as KubeObject;
}

/** The flags' combination, checked as kubectl checks it (a usage error otherwise). */
function dryRunOf(flags: ApplyFlags): DryRun {
  const dryRun = flags.dryRun === true ? 'client' : (flags.dryRun ?? 'none');
  if (dryRun !== 'none' && dryRun !== 'client' && dryRun !== 'server') {
    throw new CliError(`Invalid dry-run value (${dryRun}). Must be "none", "server", or "client".`);
  }
  if (flags.filename.length === 0 && flags.kustomize === undefined) throw new CliError('must specify one of -f and -k');
  if (flags.filename.length > 0 && flags.kustomize !== undefined) {
    throw new CliError('only one of -f or -k can be specified');
  }
  if (flags.forceConflicts === true && flags.serverSide !== true) {
    throw new CliError('--force-conflicts only works with --server-side');
  }
  if (dryRun === 'client' && flags.serverSide === true) {
    throw new CliError("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)");
  }
  return dryRun;
}

/** Applies one document and says what happened, in kubectl's words. */
async function applyOne(
  client: Client,
  document: Document,
  flags: ApplyFlags,
  dryRun: DryRun,
  contextNamespace: string,
): Promise<string> {
  const object = asObject(document.value, document.where);
  // Listed per document: a CRD earlier in the manifest makes its kind known to the documents after it.
  const type = kindOfObject(await kindsOf(client), object);
  const given = object.metadata.namespace;
  if (type.namespaced && given !== undefined && flags.namespace !== undefined && given !== flags.namespace) {
    throw new CliError(
      `${document.where}: the namespace from the provided object "${given}" does not match the namespace ` +
        `"${flags.namespace}". You must pass '--namespace=${given}' to perform this operation.`,
      'rejected',
    );
  }
  const namespace = type.namespaced ? (given ?? flags.namespace ?? contextNamespace) : undefined;
  const body = namespace === undefined ? object : { ...object, metadata: { ...object.metadata, namespace } };
  const name = objectName(type, object.metadata.name);
  const suffix = dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : '';
  const options = { fieldManager: flags.fieldManager ?? FIELD_MANAGER, dryRun: dryRun === 'server' };
  if (flags.serverSide === true) {
    await client.apply(type, body, { ...options, force: flags.forceConflicts === true });
    return `${name} serverside-applied${suffix}\n`;
  }
  const before = await getOptional(client, type, namespace, object.metadata.name);
  if (dryRun === 'client') return `${name} ${before === undefined ? 'created' : 'configured'}${suffix}\n`;
  const after = await client.apply(type, body, { ...options, force: true });
  const verb =
    before === undefined
      ? 'created'
      : after.metadata.resourceVersion === before.metadata.resourceVersion
        ? 'unchanged'
        : 'configured';
  return `${name} ${verb}${suffix}\n`;
}

const collect = (value: string, previous: readonly string[]) => [...previous, value];

export function applyCommand(
  out: Out = process.stdout,
  err: Out = process.stderr,
  stdin: () => Promise<string> = readStdin,
): Command {
  return targetOptions(
    new Command('apply')
      .description('apply manifests as kubectl apply does: files, directories, standard input or a kustomization')
      .option(
        '-f, --filename <path>',
        'a file or directory of YAML or JSON manifests; - reads standard input',
        collect,
        [],
      )
      .option(
        '-k, --kustomize <dir>',
        'a kustomization directory (resources, namespace, namePrefix, nameSuffix, commonLabels, commonAnnotations)',
      )
      .option('-R, --recursive', "read -f directories' subdirectories too")
      .option('-n, --namespace <ns>', "the namespace for namespaced objects that name none (default: the context's)")
      .option(
        '--dry-run [strategy]',
        'client (what would be sent) or server (validated by the server); nothing is written',
      )
      .option('--server-side', 'server-side apply: fields other managers own are a conflict unless --force-conflicts')
      .option('--field-manager <name>', `the field manager to apply as (default: ${FIELD_MANAGER})`)
      .option('--force-conflicts', 'with --server-side, take the fields other managers own'),
  ).action(async (flags: ApplyFlags) => {
    await withClient(
      flags,
      err,
      async (client, contextNamespace) => {
        const dryRun = dryRunOf(flags);
        const documents =
          flags.kustomize === undefined
            ? await readManifests(flags.filename, { recursive: flags.recursive === true, stdin })
            : kustomizeBuild(flags.kustomize);
        for (const document of documents) out.write(await applyOne(client, document, flags, dryRun, contextNamespace));
      },
      { create: true },
    );
  });
}
