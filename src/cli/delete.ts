/**
 * `openregion delete`, as kubectl's: `TYPE[,TYPE…] NAME…`, `TYPE/NAME…`, `-f FILE|DIR|-`, `-l SELECTOR`,
 * `--display-name NAME` or `--all`; `--cascade=background|foreground|orphan` (the deletion propagation) and, as
 * kubectl does by default, waiting until each object is gone (its finalizers done) unless `--wait=false`.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { getOptional, type Client, type DeleteOptions } from '../kube/client.ts';
import { KubeNotFoundError } from '../kube/errors.ts';
import type { KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import { systemClock } from '../util/clock.ts';
import { readStdin } from './apply.ts';
import { CliError, kindOfObject, kindsOf, type Target } from './connect.ts';
import { exitCodeOf } from './failure.ts';
import { readManifests } from './manifests.ts';
import { kindName } from './printer.ts';
import { DISPLAY_NAME_LABEL, resourceArgs, selectorOf } from './resources.ts';
import { targetOptions, withClient, type Out } from './target.ts';
import { duration } from './wait.ts';

interface DeleteFlags extends Target {
  readonly namespace?: string;
  readonly filename: readonly string[];
  readonly recursive?: boolean;
  readonly selector?: string;
  readonly displayName?: string;
  readonly all?: boolean;
  readonly ignoreNotFound?: boolean;
  readonly cascade: Propagation;
  readonly wait: boolean;
  readonly timeout?: number;
}

type Propagation = NonNullable<DeleteOptions['propagationPolicy']>;

/** kubectl's --cascade values, its old true/false spellings among them. */
function parseCascade(text: string): Propagation {
  const value = text.toLowerCase();
  if (value === 'background' || value === 'true') return 'Background';
  if (value === 'foreground') return 'Foreground';
  if (value === 'orphan' || value === 'false') return 'Orphan';
  throw new InvalidArgumentError('must be "background", "orphan", or "foreground"');
}

/** `--wait`, `--wait=true`, `--wait=false`, as kubectl's boolean flags take them. */
function parseBoolean(text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new InvalidArgumentError('true or false');
}

/** One object to delete: where it is and, once deleted, its uid (a new object of the same name is not awaited). */
interface Doomed {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
}

/** What the flags and arguments name, in order, each once. */
async function targetsOf(
  client: Client,
  args: readonly string[],
  flags: DeleteFlags,
  contextNamespace: string,
  stdin: () => Promise<string>,
): Promise<Doomed[]> {
  const kinds = await kindsOf(client);
  const selector = selectorOf(flags);
  const nsOf = (type: ResourceType, given?: string) =>
    type.namespaced ? (given ?? flags.namespace ?? contextNamespace) : undefined;
  if (flags.filename.length > 0) {
    if (args.length > 0) throw new CliError('when -f is given, no resource TYPE or NAME may be');
    const documents = await readManifests(flags.filename, { recursive: flags.recursive === true, stdin });
    return documents.map(({ value, where }) => {
      // Read defensively: a manifest is whatever the file holds.
      const object = value as Partial<KubeObject> | null;
      if (typeof object?.metadata?.name !== 'string' || typeof object.apiVersion !== 'string') {
        throw new CliError(`${where}: not a Kubernetes object (needs apiVersion, kind and metadata.name)`, 'rejected');
      }
      const type = kindOfObject(kinds, object as KubeObject);
      return { type, namespace: nsOf(type, object.metadata.namespace), name: object.metadata.name };
    });
  }
  const { requests } = resourceArgs(kinds, args, 'delete');
  const byName = requests.some((r) => r.names.length > 0);
  if (byName && (selector !== undefined || flags.all === true)) {
    throw new CliError('names cannot be provided when a selector (-l, --display-name) or --all is specified');
  }
  if (!byName && selector === undefined && flags.all !== true) {
    throw new CliError(
      `resource(s) were provided, but no name was specified: name them, or pass -l, --display-name or --all`,
    );
  }
  const targets: Doomed[] = [];
  for (const { entry, names } of requests) {
    const namespace = nsOf(entry.type);
    if (names.length > 0) {
      targets.push(...names.map((name) => ({ type: entry.type, namespace, name })));
      continue;
    }
    const { items } = await client.list(entry.type, { namespace, labelSelector: selector });
    targets.push(...items.map((o) => ({ type: entry.type, namespace, name: o.metadata.name })));
  }
  return targets;
}

export function deleteCommand(
  out: Out = process.stdout,
  err: Out = process.stderr,
  stdin: () => Promise<string> = readStdin,
): Command {
  return targetOptions(
    new Command('delete')
      .description('delete objects by TYPE NAME…, TYPE/NAME…, -f FILE, -l SELECTOR or --all, and wait until gone')
      .argument('[resources...]', 'TYPE[,TYPE…] NAME… or TYPE/NAME…')
      .option('-n, --namespace <ns>', "the namespace (default: the kubeconfig context's, else default)")
      .option(
        '-f, --filename <path>',
        'delete what these manifests name (a file, a directory, - for standard input)',
        (value: string, previous: readonly string[]) => [...previous, value],
        [],
      )
      .option('-R, --recursive', "read -f directories' subdirectories too")
      .option('-l, --selector <selector>', 'delete the objects whose labels match')
      .option('--display-name <name>', `delete the objects of this display name (-l ${DISPLAY_NAME_LABEL}=NAME)`)
      .option('--all', 'delete every object of the kinds in the namespace')
      .option('--ignore-not-found', 'an object that is not there is not an error')
      .addOption(
        new Option('--cascade [strategy]', 'background (default), foreground or orphan: what becomes of dependents')
          .argParser(parseCascade)
          .default('Background')
          .preset('Background'),
      )
      .addOption(
        new Option('--wait [bool]', 'wait until each object is gone, finalizers done (default true; --wait=false not)')
          .argParser(parseBoolean)
          .default(true)
          .preset(true),
      )
      .option('--timeout <duration>', 'with --wait, give up after this long (default: no limit)', duration),
  ).action(async (args: string[], flags: DeleteFlags) => {
    await withClient(flags, err, async (client, contextNamespace) => {
      const targets = await targetsOf(client, args, flags, contextNamespace, stdin);
      if (targets.length === 0) {
        err.write('No resources found\n');
        return;
      }
      const deleted: (Doomed & { readonly uid: string | undefined })[] = [];
      let failure: unknown;
      for (const target of targets) {
        const { type, namespace, name } = target;
        try {
          const before = await getOptional(client, type, namespace, name);
          await client.delete(type, namespace, name, { propagationPolicy: flags.cascade });
          deleted.push({ ...target, uid: before?.metadata.uid });
          out.write(`${kindName(type)} "${name}" deleted\n`);
        } catch (error) {
          if (error instanceof KubeNotFoundError && flags.ignoreNotFound === true) continue;
          if (!(error instanceof KubeNotFoundError)) throw error;
          // As kubectl: say so and go on with the others; the exit code says one was missing.
          err.write(`Error from server (NotFound): ${error.message}\n`);
          failure = error;
        }
      }
      if (flags.wait) await untilGone(client, deleted, flags.timeout);
      if (failure !== undefined) process.exitCode = exitCodeOf(failure);
    });
  });
}

/** Polls until every deleted object is gone (or replaced by another of its name: a new uid). */
async function untilGone(
  client: Client,
  deleted: readonly (Doomed & { readonly uid: string | undefined })[],
  timeoutMs: number | undefined,
): Promise<void> {
  const start = systemClock.now();
  let waiting = [...deleted];
  for (;;) {
    const still = [];
    for (const d of waiting) {
      const now = await getOptional(client, d.type, d.namespace, d.name);
      if (now !== undefined && (d.uid === undefined || now.metadata.uid === d.uid)) still.push(d);
    }
    waiting = still;
    if (waiting.length === 0) return;
    if (timeoutMs !== undefined && systemClock.now() - start >= timeoutMs) {
      const [first] = waiting;
      throw new CliError(
        `timed out waiting for the deletion of ${first === undefined ? '' : `${kindName(first.type)} "${first.name}"`}`,
        'failed',
      );
    }
    await systemClock.sleep(250);
  }
}
