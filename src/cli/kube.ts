/**
 * `openregion apply|get|delete`: kubectl's everyday verbs against the embedded store file a running `openregion up`
 * uses (--store, the default) or a Kubernetes cluster (--kubeconfig). `apply` is apply.ts's, `delete` delete.ts's;
 * the resource arguments (TYPE/NAME, comma lists, categories) are resources.ts's.
 */
import { Command } from 'commander';
import type { Client } from '../kube/client.ts';
import type { KubeObject } from '../kube/object.ts';
import { systemClock } from '../util/clock.ts';
import { applyCommand } from './apply.ts';
import { KubeError, KubeNotFoundError } from '../kube/errors.ts';
import { deleteCommand } from './delete.ts';
import { exitCodeOf } from './failure.ts';
import {
  asJson,
  asYaml,
  customColumns,
  DEFAULT_COLUMNS,
  eventTable,
  jsonpathTemplate,
  objectName,
  table,
  withoutManagedFields,
} from './printer.ts';
import { CliError, kindsOf, type KindEntry, type Target } from './connect.ts';
import { DISPLAY_NAME_LABEL, resourceArgs, selectorOf } from './resources.ts';
import { targetOptions, withClient, type Out } from './target.ts';

interface GetOptions extends Target {
  readonly namespace?: string;
  readonly allNamespaces?: boolean;
  readonly output?: string;
  readonly selector?: string;
  readonly displayName?: string;
  readonly fieldSelector?: string;
  readonly showManagedFields?: boolean;
  readonly showKind?: boolean;
  /** false with --no-headers: tables without their header line, as kubectl's. */
  readonly headers?: boolean;
  readonly watch?: boolean;
}

/** The objects of one kind a verb found. */
interface Found {
  readonly entry: KindEntry;
  readonly items: readonly KubeObject[];
}

interface Printer {
  /** A table on a terminal (an empty list says so on stderr, as kubectl does). */
  readonly tabular: boolean;
  /** What was found, of one kind or several; `single`: one object was named, so no List around it. */
  print(found: readonly Found[], single: boolean): string;
  /** One changed object during --watch: a table row without the header, or the object in the format. */
  change(object: KubeObject): string;
}

/** A table's rows without its header line. */
const withoutHeader = (tableText: string) => tableText.slice(tableText.indexOf('\n') + 1);

const noResources = (namespace: string | undefined) =>
  namespace === undefined ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`;

const OUTPUT_FORMATS = 'wide, name, yaml, json, jsonpath=…, custom-columns=…';

/**
 * The printer -o asks for. Tables are one per kind, a blank line apart, each row named `kind.group/name` when more
 * than one kind is shown (or `all` was asked for, or --show-kind), as kubectl prints them.
 */
function printerFor(options: GetOptions, now: number, forceKind: boolean): Printer {
  const format = options.output ?? '';
  const headed = (tableText: string) => (options.headers === false ? withoutHeader(tableText) : tableText);
  const shown = (o: KubeObject) => (options.showManagedFields === true ? o : withoutManagedFields(o));
  const listDoc = (items: readonly KubeObject[], resourceVersion = '') => ({
    apiVersion: 'v1',
    kind: 'List',
    metadata: { resourceVersion },
    items: items.map(shown),
  });
  const documents = (render: (value: unknown) => string): Printer => ({
    tabular: false,
    print: (found, single) => {
      const items = found.flatMap((f) => f.items);
      const [only] = items;
      return single && only !== undefined && items.length === 1 ? render(shown(only)) : render(listDoc(items));
    },
    change: (o) => render(shown(o)),
  });
  if (format === 'yaml') return documents(asYaml);
  if (format === 'json') return documents(asJson);
  if (format.startsWith('jsonpath=')) {
    const template = format.slice('jsonpath='.length);
    return documents((value) => jsonpathTemplate(value, template));
  }
  if (format === 'name') {
    return {
      tabular: false,
      print: (found) =>
        found.flatMap((f) => f.items.map((o) => `${objectName(f.entry.type, o.metadata.name)}\n`)).join(''),
      change: () => '',
    };
  }
  if (format.startsWith('custom-columns=')) {
    const spec = format.slice('custom-columns='.length);
    return {
      tabular: true,
      print: (found) =>
        headed(
          customColumns(
            found.flatMap((f) => f.items),
            spec,
          ),
        ),
      change: (o) => withoutHeader(customColumns([o], spec)),
    };
  }
  if (format !== '' && format !== 'wide') {
    throw new CliError(`unknown output format "${format}": ${OUTPUT_FORMATS}`);
  }
  const render = (entry: KindEntry, items: readonly KubeObject[], withKind: boolean) => {
    const tableOptions = {
      wide: format === 'wide',
      withNamespace: entry.type.namespaced && options.allNamespaces === true,
      now,
      withKind: withKind || options.showKind === true ? entry.type : undefined,
    };
    if (entry.type.group === '' && entry.type.plural === 'events') return eventTable(items, tableOptions);
    const columns = entry.printerColumns.length > 0 ? entry.printerColumns : DEFAULT_COLUMNS;
    return table(items, { ...tableOptions, columns });
  };
  let watched: KindEntry | undefined;
  return {
    tabular: true,
    print: (found) => {
      const shown = found.filter((f) => f.items.length > 0);
      const withKind = forceKind || shown.length > 1;
      watched = found[0]?.entry;
      return shown.map((f) => headed(render(f.entry, f.items, withKind))).join('\n');
    },
    change: (o) => (watched === undefined ? '' : withoutHeader(render(watched, [o], forceKind))),
  };
}

/** A label value's form: a name that is not one cannot be a display name the label selector finds. */
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * When a name is not found but is the display name of objects of the kind, a line saying how to ask for them:
 * objects are named by UUID, and the name a person gave is a label.
 */
async function displayNameHint(
  client: Client,
  type: KindEntry['type'],
  namespace: string | undefined,
  name: string,
): Promise<string[]> {
  if (!LABEL_VALUE.test(name)) return [];
  const { items } = await client.list(type, { namespace, labelSelector: `${DISPLAY_NAME_LABEL}=${name}` });
  if (items.length === 0) return [];
  const named = items.map((o) => objectName(type, o.metadata.name)).join(', ');
  return [
    `hint: "${name}" is the display name of ${named}: ask with --display-name ${name} (or -l ${DISPLAY_NAME_LABEL}=${name})\n`,
  ];
}

/** Aborted on Ctrl-C or SIGTERM, so `get --watch` ends its watch and closes the store cleanly. */
function interrupted(): AbortSignal {
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      controller.abort();
    });
  }
  return controller.signal;
}

export function kubeCommands(
  out: Out = process.stdout,
  err: Out = process.stderr,
  stdin?: () => Promise<string>,
): Command[] {
  const apply = applyCommand(out, err, stdin);
  const get = targetOptions(
    new Command('get')
      .description(
        'show objects as kubectl prints them: TYPE[,TYPE…] [NAME…], TYPE/NAME…, `all` or a category (unikorn)',
      )
      .argument('<kind>', 'TYPE[,TYPE…], TYPE/NAME or TYPE.GROUP/NAME')
      .argument('[names...]')
      .option('-n, --namespace <ns>', "the namespace (default: the kubeconfig context's, else default)")
      .option('-A, --all-namespaces', 'list across every namespace')
      .option(
        '-o, --output <format>',
        'wide, name, yaml, json, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,… (default: the printer columns)',
      )
      .option('-l, --selector <selector>', 'only objects whose labels match (a=b, a!=b, a in (b,c), !a)')
      .option('--display-name <name>', `only objects of this display name (the same as -l ${DISPLAY_NAME_LABEL}=NAME)`)
      .option('--field-selector <selector>', 'only objects whose fields match (metadata.name=x)')
      .option('--show-kind', "name each row's kind, as with several kinds")
      .option('--no-headers', 'print tables without their header line')
      .option('--show-managed-fields', 'keep metadata.managedFields in yaml and json')
      .option('-w, --watch', 'after the list, print each change as it happens (until interrupted)'),
  ).action(async (kind: string, names: string[], options: GetOptions) => {
    await withClient(options, err, async (client, contextNamespace) => {
      const resources = resourceArgs(await kindsOf(client), [kind, ...names], 'get');
      const selector = selectorOf(options);
      const print = printerFor(options, systemClock.now(), resources.all);
      const byName = resources.requests.some((r) => r.names.length > 0);
      if (byName && (selector !== undefined || options.fieldSelector !== undefined)) {
        throw new CliError('a selector (-l, --display-name, --field-selector) cannot be combined with names');
      }
      if (options.watch === true && (resources.requests.length !== 1 || byName)) {
        throw new CliError('watch is only supported on one kind listed, not on names or several kinds');
      }
      const found: Found[] = [];
      const missing: KubeError[] = [];
      const hints: string[] = [];
      const namespaceOf = (type: KindEntry['type']) =>
        type.namespaced ? (options.namespace ?? contextNamespace) : undefined;
      let resourceVersion = '';
      for (const { entry, names } of resources.requests) {
        const { type } = entry;
        const namespace =
          options.allNamespaces === true || !type.namespaced ? undefined : (options.namespace ?? contextNamespace);
        if (names.length > 0) {
          const items: KubeObject[] = [];
          for (const name of names) {
            try {
              items.push(
                await client.get(type, type.namespaced ? (options.namespace ?? contextNamespace) : undefined, name),
              );
            } catch (error) {
              if (!(error instanceof KubeNotFoundError)) throw error;
              missing.push(error);
              hints.push(...(await displayNameHint(client, type, namespaceOf(type), name)));
            }
          }
          found.push({ entry, items });
          continue;
        }
        const list = await client.list(type, {
          namespace,
          labelSelector: selector,
          fieldSelector: options.fieldSelector,
        });
        resourceVersion = list.resourceVersion;
        found.push({ entry, items: list.items });
      }
      const count = found.reduce((n, f) => n + f.items.length, 0);
      if (count > 0 || (!print.tabular && missing.length === 0)) out.write(print.print(found, resources.single));
      else if (missing.length === 0) {
        const namespaced = found.some((f) => f.entry.type.namespaced);
        const all = options.allNamespaces === true || !namespaced;
        err.write(noResources(all ? undefined : (options.namespace ?? contextNamespace)));
      }
      // kubectl's way with several names: print what was found, then an error line for each one that was not.
      for (const error of missing) err.write(`Error from server (${error.reason}): ${error.message}\n`);
      for (const hint of hints) err.write(hint);
      if (missing[0] !== undefined) process.exitCode = exitCodeOf(missing[0]);
      const [watched] = found;
      if (options.watch !== true || watched === undefined) return;
      const { type } = watched.entry;
      const namespace =
        options.allNamespaces === true || !type.namespaced ? undefined : (options.namespace ?? contextNamespace);
      const signal = interrupted();
      for await (const event of client.watch(type, {
        namespace,
        labelSelector: selector,
        fieldSelector: options.fieldSelector,
        resourceVersion,
        signal,
      })) {
        if (event.type !== 'BOOKMARK') {
          out.write(
            options.output === 'name'
              ? `${objectName(type, event.object.metadata.name)}\n`
              : print.change(event.object),
          );
        }
      }
    });
  });

  const del = deleteCommand(out, err, stdin);

  return [apply, get, del];
}
