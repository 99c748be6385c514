/**
 * `openregion describe KIND NAME`: one object as a person reads it, in kubectl describe's layout — identity,
 * labels, owner and dependents, the spec, a conditions table, the rest of the status (for a server, the monitor's
 * observation and the rebuild in progress), and the Events the controllers recorded on it. Pure formatting below;
 * the command reads.
 */
import { Command } from 'commander';
import { stringify } from 'yaml';
import type { Client } from '../kube/client.ts';
import type { Condition, KubeObject } from '../kube/object.ts';
import { builtin, type ResourceType } from '../kube/resource-type.ts';
import { systemClock } from '../util/clock.ts';
import { KubeNotFoundError } from '../kube/errors.ts';
import { kindsOf, type Target } from './connect.ts';
import { DISPLAY_NAME_LABEL, resourceArgs, selectorOf } from './resources.ts';
import { targetOptions, withClient, type Out } from './target.ts';
import { humanDuration, objectName } from './printer.ts';

interface RecordedEvent extends KubeObject {
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly count?: number;
  readonly lastTimestamp?: string;
  readonly firstTimestamp?: string;
  readonly source?: { readonly component?: string };
  readonly involvedObject?: { readonly uid?: string };
}

interface Described {
  readonly object: KubeObject;
  /** Objects naming this one in their ownerReferences, as `kind.group/name`. */
  readonly dependents: readonly string[];
  readonly events: readonly RecordedEvent[];
  readonly now: number;
}

const ago = (timestamp: string | undefined, now: number) =>
  timestamp === undefined ? '<unknown>' : humanDuration(now - Date.parse(timestamp));

/** `key=value` pairs one per line under a label, or `<none>`. */
function pairs(label: string, map: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return `${label.padEnd(14)}<none>\n`;
  return entries.map(([k, v], i) => `${(i === 0 ? label : '').padEnd(14)}${k}=${v}\n`).join('');
}

/** kubectl describe's tables: a header, a line of dashes under each heading, columns two spaces apart. */
function columns([header = [], ...body]: readonly (readonly string[])[], indent: string): string {
  const rows = [header, header.map((h) => '-'.repeat(h.length)), ...body];
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map(
      (r) =>
        indent +
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 2)))
          .join('')
          .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

/** A YAML block under a heading, indented two spaces. */
function block(heading: string, value: unknown): string {
  if (value === undefined || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) {
    return `${heading}:\n  <none>\n`;
  }
  const text = stringify(value, { lineWidth: 0 }).trimEnd();
  return `${heading}:\n${text.replace(/^/gm, '  ')}\n`;
}

export function describeText({ object, dependents, events, now }: Described): string {
  const { metadata } = object;
  const status = (object['status'] ?? {}) as { conditions?: Condition[] } & Record<string, unknown>;
  const { conditions = [], ...restOfStatus } = status;
  const owners = (metadata.ownerReferences ?? []).map((o) => `${o.kind}/${o.name}`);
  let out = `${'Name:'.padEnd(14)}${metadata.name}\n`;
  if (metadata.namespace !== undefined) out += `${'Namespace:'.padEnd(14)}${metadata.namespace}\n`;
  out += pairs('Labels:', metadata.labels);
  out += pairs('Annotations:', metadata.annotations);
  out += `${'API Version:'.padEnd(14)}${object.apiVersion}\n${'Kind:'.padEnd(14)}${object.kind}\n`;
  out += `${'Created:'.padEnd(14)}${metadata.creationTimestamp ?? '<unknown>'} (${ago(metadata.creationTimestamp, now)} ago)\n`;
  if (metadata.deletionTimestamp !== undefined) {
    out += `${'Deleting:'.padEnd(14)}since ${metadata.deletionTimestamp} (${ago(metadata.deletionTimestamp, now)})\n`;
  }
  out += `${'Finalizers:'.padEnd(14)}${(metadata.finalizers ?? []).join(', ') || '<none>'}\n`;
  out += `${'Owner:'.padEnd(14)}${owners.join(', ') || '<none>'}\n`;
  out += `${'Dependents:'.padEnd(14)}${dependents.join(', ') || '<none>'}\n`;
  if (object['spec'] !== undefined) out += block('Spec', object['spec']);
  out += 'Conditions:\n';
  out +=
    conditions.length === 0
      ? '  <none>\n'
      : columns(
          [
            ['Type', 'Status', 'Reason', 'Age', 'Message'],
            ...conditions.map((c) => [c.type, c.status, c.reason, ago(c.lastTransitionTime, now), c.message]),
          ],
          '  ',
        );
  if (Object.keys(restOfStatus).length > 0) out += block('Status', restOfStatus);
  out += 'Events:\n';
  out +=
    events.length === 0
      ? '  <none>\n'
      : columns(
          [
            ['Type', 'Reason', 'Age', 'From', 'Message'],
            ...events.map((e) => [
              e.type ?? '',
              e.reason ?? '',
              `${ago(e.lastTimestamp ?? e.firstTimestamp, now)}${(e.count ?? 1) > 1 ? ` (x${String(e.count)})` : ''}`,
              e.source?.component ?? '',
              e.message ?? '',
            ]),
          ],
          '  ',
        );
  return out;
}

/** What `describe` shows besides the object: its dependents among the group's kinds, and its Events, oldest first. */
async function surroundings(client: Client, type: ResourceType, object: KubeObject) {
  const uid = object.metadata.uid;
  const namespace = object.metadata.namespace;
  const kinds = (await kindsOf(client)).filter((k) => k.type.group === type.group && k.type.namespaced);
  const dependents: string[] = [];
  for (const { type: kind } of kinds) {
    const { items } = await client.list(kind, { namespace });
    for (const item of items) {
      if ((item.metadata.ownerReferences ?? []).some((o) => o.uid === uid)) {
        dependents.push(objectName(kind, item.metadata.name));
      }
    }
  }
  // Read defensively: an Event another client wrote need not carry every field the recorder sets.
  const eventType: ResourceType<RecordedEvent> = builtin.event;
  const { items } = await client.list(eventType, { namespace });
  const events = items
    .filter((e) => e.involvedObject?.uid === uid)
    .sort((a, b) => Date.parse(a.lastTimestamp ?? '') - Date.parse(b.lastTimestamp ?? ''));
  return { dependents, events };
}

interface DescribeFlags extends Target {
  readonly namespace?: string;
  readonly allNamespaces?: boolean;
  readonly selector?: string;
  readonly displayName?: string;
}

/** kubectl describe's lookup of a name: the object of that name, else those whose names begin with it. */
async function byNameOrPrefix(client: Client, type: ResourceType, namespace: string | undefined, name: string) {
  try {
    return [await client.get(type, namespace, name)];
  } catch (error) {
    if (!(error instanceof KubeNotFoundError)) throw error;
    const { items } = await client.list(type, { namespace });
    const matching = items.filter((o) => o.metadata.name.startsWith(name));
    if (matching.length === 0) throw error;
    return matching;
  }
}

export function describeCommand(out: Out = process.stdout, err: Out = process.stderr): Command {
  return targetOptions(
    new Command('describe')
      .description('show objects with their conditions, owner, dependents and Events, as kubectl describe does')
      .argument('<kind>', 'TYPE, TYPE/NAME or TYPE.GROUP/NAME')
      .argument('[names...]')
      .option('-n, --namespace <ns>', "the namespace (default: the kubeconfig context's, else default)")
      .option('-A, --all-namespaces', 'describe across every namespace')
      .option('-l, --selector <selector>', 'only objects whose labels match')
      .option('--display-name <name>', `only objects of this display name (-l ${DISPLAY_NAME_LABEL}=NAME)`),
  ).action(async (kind: string, names: string[], options: DescribeFlags) => {
    await withClient(options, err, async (client, contextNamespace) => {
      const { requests } = resourceArgs(await kindsOf(client), [kind, ...names], 'describe');
      const selector = selectorOf(options);
      const described: string[] = [];
      for (const { entry, names } of requests) {
        const { type } = entry;
        const namespace =
          !type.namespaced || (options.allNamespaces === true && names.length === 0)
            ? undefined
            : (options.namespace ?? contextNamespace);
        const objects: KubeObject[] = [];
        if (names.length === 0)
          objects.push(...(await client.list(type, { namespace, labelSelector: selector })).items);
        for (const name of names) objects.push(...(await byNameOrPrefix(client, type, namespace, name)));
        for (const object of objects) {
          const text = describeText({ object, ...(await surroundings(client, type, object)), now: systemClock.now() });
          described.push(text);
        }
      }
      if (described.length === 0) {
        err.write('No resources found\n');
        return;
      }
      // kubectl's separation of several described objects: a blank line between.
      out.write(described.join('\n\n'));
    });
  });
}
