/**
 * `openregion apply|get|delete`: kubectl's everyday verbs against the embedded store file a running `openregion up`
 * uses (--store, the default) or a Kubernetes cluster (--kubeconfig). `apply` is apply.ts's.
 */
import { Command } from 'commander';
import type { ObjectList } from '../kube/client.ts';
import type { KubeObject } from '../kube/object.ts';
import { systemClock } from '../util/clock.ts';
import { applyCommand } from './apply.ts';
import {
  asJson,
  asYaml,
  customColumns,
  DEFAULT_COLUMNS,
  jsonpathTemplate,
  kindName,
  objectName,
  table,
  withoutManagedFields,
} from './printer.ts';
import { CliError, kindsOf, type KindEntry, resolveEntry, resolveKind, type Target } from './connect.ts';
import { targetOptions, withClient, type Out } from './target.ts';

interface GetOptions extends Target {
  readonly namespace?: string;
  readonly allNamespaces?: boolean;
  readonly output?: string;
  readonly selector?: string;
  readonly fieldSelector?: string;
  readonly showManagedFields?: boolean;
  readonly watch?: boolean;
}

interface Printer {
  /** A table on a terminal (an empty list says so on stderr, as kubectl does). */
  readonly tabular: boolean;
  one(object: KubeObject): string;
  list(list: ObjectList<KubeObject>): string;
  /** One changed object during --watch: a table row without the header, or the object in the format. */
  change(object: KubeObject): string;
}

/** A table's rows without its header line. */
const withoutHeader = (tableText: string) => tableText.slice(tableText.indexOf('\n') + 1);

const noResources = (namespace: string | undefined) =>
  namespace === undefined ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`;

/** The printer -o asks for, over the kind's printer columns. */
function printerFor(entry: KindEntry, options: GetOptions, now: number): Printer {
  const format = options.output ?? '';
  const shown = (o: KubeObject) => (options.showManagedFields === true ? o : withoutManagedFields(o));
  const listDoc = (list: ObjectList<KubeObject>) => ({
    apiVersion: 'v1',
    kind: 'List',
    metadata: { resourceVersion: list.resourceVersion },
    items: list.items.map(shown),
  });
  const perObject = (render: (o: KubeObject) => string): Printer => ({
    tabular: false,
    one: (o) => render(o),
    list: (l) => l.items.map(render).join(''),
    change: render,
  });
  if (format === 'yaml') return { ...perObject((o) => asYaml(shown(o))), list: (l) => asYaml(listDoc(l)) };
  if (format === 'json') return { ...perObject((o) => asJson(shown(o))), list: (l) => asJson(listDoc(l)) };
  if (format === 'name') return perObject((o) => `${objectName(entry.type, o.metadata.name)}\n`);
  if (format.startsWith('jsonpath=')) {
    const template = format.slice('jsonpath='.length);
    return {
      ...perObject((o) => jsonpathTemplate(shown(o), template)),
      list: (l) => jsonpathTemplate(listDoc(l), template),
    };
  }
  if (format.startsWith('custom-columns=')) {
    const spec = format.slice('custom-columns='.length);
    return {
      tabular: true,
      one: (o) => customColumns([o], spec),
      list: (l) => customColumns(l.items, spec),
      change: (o) => withoutHeader(customColumns([o], spec)),
    };
  }
  if (format !== '' && format !== 'wide') {
    throw new CliError(`unknown output format "${format}": wide, name, yaml, json, jsonpath=…, custom-columns=…`);
  }
  const columns = entry.printerColumns.length > 0 ? entry.printerColumns : DEFAULT_COLUMNS;
  const withNamespace = entry.type.namespaced && options.allNamespaces === true;
  const render = (items: readonly KubeObject[], single: boolean) =>
    table(items, { columns, wide: format === 'wide', withNamespace: withNamespace && !single, now });
  return {
    tabular: true,
    one: (o) => render([o], true),
    list: (l) => render(l.items, false),
    change: (o) => withoutHeader(render([o], false)),
  };
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
      .description('show one object, or list a kind, as kubectl prints them')
      .argument('<kind>')
      .argument('[name]')
      .option('-n, --namespace <ns>', "the namespace (default: the kubeconfig context's, else default)")
      .option('-A, --all-namespaces', 'list across every namespace')
      .option(
        '-o, --output <format>',
        'wide, name, yaml, json, jsonpath=TEMPLATE or custom-columns=HEADER:PATH,… (default: the printer columns)',
      )
      .option('-l, --selector <selector>', 'only objects whose labels match (a=b, a!=b, a in (b,c), !a)')
      .option('--field-selector <selector>', 'only objects whose fields match (metadata.name=x)')
      .option('--show-managed-fields', 'keep metadata.managedFields in yaml and json')
      .option('-w, --watch', 'after the list, print each change as it happens (until interrupted)'),
  ).action(async (kind: string, name: string | undefined, options: GetOptions) => {
    await withClient(options, err, async (client, contextNamespace) => {
      const entry = resolveEntry(await kindsOf(client), kind);
      const print = printerFor(entry, options, systemClock.now());
      const { type } = entry;
      if (name !== undefined) {
        const object = await client.get(
          type,
          type.namespaced ? (options.namespace ?? contextNamespace) : undefined,
          name,
        );
        out.write(print.one(object));
        return;
      }
      const namespace =
        options.allNamespaces === true || !type.namespaced ? undefined : (options.namespace ?? contextNamespace);
      const list = await client.list(type, {
        namespace,
        labelSelector: options.selector,
        fieldSelector: options.fieldSelector,
      });
      if (list.items.length === 0 && print.tabular) err.write(noResources(namespace));
      else out.write(print.list(list));
      if (options.watch !== true) return;
      const signal = interrupted();
      for await (const event of client.watch(type, {
        namespace,
        labelSelector: options.selector,
        fieldSelector: options.fieldSelector,
        resourceVersion: list.resourceVersion,
        signal,
      })) {
        if (event.type !== 'BOOKMARK') out.write(print.change(event.object));
      }
    });
  });

  const del = targetOptions(
    new Command('delete')
      .description('delete one object (background propagation)')
      .argument('<kind>')
      .argument('<name>')
      .option('-n, --namespace <ns>', "the namespace (default: the kubeconfig context's, else default)"),
  ).action(async (kind: string, name: string, options: { namespace?: string } & Target) => {
    await withClient(options, err, async (client, contextNamespace) => {
      const type = resolveKind(await kindsOf(client), kind);
      await client.delete(type, type.namespaced ? (options.namespace ?? contextNamespace) : undefined, name);
      out.write(`${kindName(type)} "${name}" deleted\n`);
    });
  });

  return [apply, get, del];
}
