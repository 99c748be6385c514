/**
 * The answer to one Tab: `openregion __complete WORD… PARTIAL` (which the scripts of completion.ts run, as kubectl's
 * `__complete`) prints what may come next, read from the commands' own definitions and, for kinds and names, from
 * the store or cluster in use. Apart from completion.ts so that module, which the program loads for the
 * `completion` command, does not import the program.
 */
import { Command, type Option } from 'commander';
import type { Client } from '../kube/client.ts';
import { builtin } from '../kube/resource-type.ts';
import { SHELLS } from './completion.ts';
import { connect, DEFAULT_STORE, kindsOf, resolveKind, STORE_VARIABLE, type Target } from './connect.ts';
import { COMMAND_MODULES } from './program.ts';
import { DISPLAY_NAME_LABEL, kindsFor } from './resources.ts';

/** The formats `-o` takes, for `get -o <TAB>`. */
const OUTPUT_FORMATS = ['wide', 'name', 'yaml', 'json', 'jsonpath=', 'custom-columns='];

/** What the words typed so far say about where to look: the flags `get` and friends would read. */
interface Scope extends Target {
  readonly namespace?: string | undefined;
  readonly allNamespaces: boolean;
}

const takesValue = (option: Option) => option.required || option.optional;

/**
 * The command line so far, read as commander would: the command the words name (descending into subcommands),
 * its positional arguments, the flag whose value is being typed (if any), and the target flags' values.
 */
function readLine(root: Command, words: readonly string[]) {
  let command = root;
  const positionals: string[] = [];
  const flags = new Map<string, string>();
  let pendingFlag: Option | undefined;
  for (const word of words) {
    if (pendingFlag !== undefined) {
      flags.set(pendingFlag.attributeName(), word);
      pendingFlag = undefined;
      continue;
    }
    if (word.startsWith('-') && word !== '-') {
      const [name = '', value] = word.split(/=(.*)/s, 2);
      const option = command.options.find((o) => o.long === name || o.short === name);
      if (option === undefined) continue;
      if (!takesValue(option)) flags.set(option.attributeName(), 'true');
      else if (value !== undefined) flags.set(option.attributeName(), value);
      else pendingFlag = option;
      continue;
    }
    const sub = positionals.length === 0 ? command.commands.find((c) => c.name() === word) : undefined;
    if (sub !== undefined) command = sub;
    else positionals.push(word);
  }
  return { command, positionals, flags, pendingFlag };
}

function scopeOf(flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): Scope {
  return {
    store: flags.get('store') ?? env[STORE_VARIABLE] ?? DEFAULT_STORE,
    kubeconfig: flags.get('kubeconfig'),
    context: flags.get('context'),
    encryptionKeyFile: flags.get('encryptionKeyFile'),
    namespace: flags.get('namespace'),
    allNamespaces: flags.get('allNamespaces') === 'true',
  };
}

/** The names a kind's objects go by in the scope (every namespace's with -A), sorted. */
async function objectNames(client: Client, kind: string, scope: Scope, contextNamespace: string): Promise<string[]> {
  const type = resolveKind(await kindsOf(client), kind);
  const namespace = !type.namespaced || scope.allNamespaces ? undefined : (scope.namespace ?? contextNamespace);
  const { items } = await client.list(type, { namespace });
  return items.map((o) => o.metadata.name);
}

/** The display names (the `unikorn-cloud.org/name` label) a kind's objects carry in the scope, for --display-name. */
async function displayNames(client: Client, kind: string, scope: Scope, contextNamespace: string): Promise<string[]> {
  const kinds = await kindsOf(client);
  const names: string[] = [];
  for (const entry of kind.split(',').flatMap((k) => kindsFor(kinds, k))) {
    const namespace = !entry.type.namespaced || scope.allNamespaces ? undefined : (scope.namespace ?? contextNamespace);
    const { items } = await client.list(entry.type, { namespace, labelSelector: DISPLAY_NAME_LABEL });
    names.push(...items.flatMap((o) => o.metadata.labels?.[DISPLAY_NAME_LABEL] ?? []));
  }
  return names;
}

/** The kinds as kubectl completes them: plural names, `plural.group` where two groups share a plural. */
async function kindNames(client: Client): Promise<string[]> {
  const kinds = await kindsOf(client);
  return kinds.map(({ type }) => {
    const shared = kinds.filter((k) => k.type.plural === type.plural).length > 1;
    return shared && type.group !== '' ? `${type.plural}.${type.group}` : type.plural;
  });
}

/** Candidates from the store or cluster; none when it cannot be reached (completion must never fail loudly). */
async function fromTarget(
  scope: Scope,
  read: (client: Client, contextNamespace: string) => Promise<string[]>,
): Promise<string[]> {
  let connection;
  try {
    connection = await connect(scope);
    return await read(connection.client, connection.namespace);
  } catch {
    return [];
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/**
 * What may stand at the end of `words` (the words after `openregion`, the last one being typed, possibly empty):
 * verbs, subcommands, flags, `-o` formats, namespaces, kinds, or the names of a kind's objects.
 */
export async function completions(words: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const typed = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const verb = before.find((w) => !w.startsWith('-'));
  const module = COMMAND_MODULES.find((m) => verb !== undefined && m.names.includes(verb));
  const root = new Command('openregion').option('--debug').option('-V, --version');
  for (const command of module === undefined ? [] : await module.load()) root.addCommand(command);
  const { command, positionals, flags, pendingFlag } = readLine(root, before);
  const scope = scopeOf(flags, env);
  let candidates: string[];
  if (pendingFlag !== undefined) {
    if (pendingFlag.long === '--output') candidates = OUTPUT_FORMATS;
    else if (pendingFlag.long === '--namespace') {
      candidates = await fromTarget(scope, async (c) =>
        (await c.list(builtin.namespace)).items.map((n) => n.metadata.name),
      );
    } else if (pendingFlag.long === '--display-name' && positionals[0] !== undefined) {
      const kind = positionals[0];
      candidates = await fromTarget(scope, (c, namespace) => displayNames(c, kind, scope, namespace));
    } else candidates = [];
  } else if (typed.startsWith('-')) {
    candidates = [...command.options.flatMap((o) => (o.long === undefined ? [] : [o.long])), '--help'];
  } else if (command === root) {
    candidates = COMMAND_MODULES.flatMap((m) => m.names);
  } else if (command.commands.length > 0 && positionals.length === 0) {
    candidates = command.commands.map((c) => c.name());
  } else {
    const first = command.registeredArguments[0]?.name();
    const argument = command.registeredArguments[positionals.length]?.name();
    const kind = positionals[0];
    const resources = first === 'kind' || first === 'resources';
    const slash = typed.indexOf('/');
    if (resources && slash > 0 && positionals.every((p) => p.includes('/'))) {
      // TYPE/NAME, as kubectl completes it: the names of the kind before the slash, spelled as typed.
      const typeWord = typed.slice(0, slash);
      const names = await fromTarget(scope, (c, namespace) => objectNames(c, typeWord, scope, namespace));
      candidates = names.map((name) => `${typeWord}/${name}`);
    } else if (resources && kind === undefined) candidates = await fromTarget(scope, kindNames);
    else if (resources && kind !== undefined && !kind.includes('/') && !kind.includes(',')) {
      candidates = await fromTarget(scope, (c, namespace) => objectNames(c, kind, scope, namespace));
    } else if (argument === 'shell') candidates = [...SHELLS];
    else candidates = [];
  }
  return [...new Set(candidates.filter((c) => c.startsWith(typed)))].sort();
}
