/**
 * `openregion wait KIND NAME… --for condition=Available[=True|False|Unknown]` (or `jsonpath='{PATH}'=VALUE`, or
 * `delete`; the objects named, or selected once by `-l`, `--display-name` or `--all`), with kubectl's semantics (a missing object is an error at once unless its deletion is awaited; a
 * condition of an older generation does not count): waits with a live progress line (the condition's status, reason and message, and how long), rewritten in place on a terminal and
 * printed on each change otherwise. Against the embedded store of a running `up`, or Kubernetes.
 */
import { Command, InvalidArgumentError } from 'commander';
import { getOptional } from '../kube/client.ts';
import { findCondition } from '../kube/conditions.ts';
import type { Condition, KubeObject } from '../kube/object.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { parseGoDuration } from '../util/duration.ts';
import { CliError, kindsOf, type Target } from './connect.ts';
import { DISPLAY_NAME_LABEL, resourceArgs, selectorOf } from './resources.ts';
import { objectName, select } from './printer.ts';
import { targetOptions, withClient, type Out } from './target.ts';

type WaitFor =
  | { readonly kind: 'condition'; readonly type: string; readonly status: 'True' | 'False' | 'Unknown' }
  | { readonly kind: 'delete' }
  /** kubectl's `jsonpath='{.status.phase}'=Running`; without `=value`, the field's presence. */
  | { readonly kind: 'jsonpath'; readonly path: string; readonly value: string | undefined };

export function parseFor(text: string): WaitFor {
  if (text === 'delete') return { kind: 'delete' };
  const jsonpath = /^jsonpath=\{(.+)\}(?:=(.*))?$/s.exec(text);
  if (jsonpath?.[1] !== undefined) return { kind: 'jsonpath', path: jsonpath[1], value: jsonpath[2] };
  const match = /^condition=([A-Za-z][A-Za-z0-9]*)(?:=(True|False|Unknown|true|false|unknown))?$/.exec(text);
  if (match?.[1] === undefined) {
    throw new InvalidArgumentError("expected condition=TYPE[=True|False|Unknown], jsonpath='{PATH}'[=VALUE] or delete");
  }
  const status = match[2] === undefined ? 'True' : (match[2][0]?.toUpperCase() ?? '') + match[2].slice(1).toLowerCase();
  return { kind: 'condition', type: match[1], status: status as 'True' | 'False' | 'Unknown' };
}

/**
 * Whether the object (undefined: absent) meets the wait. As kubectl's, a condition that reports an older
 * generation (observedGeneration below metadata.generation) does not count yet: right after a spec change,
 * Available=True still describes the spec before it.
 */
export function met(object: KubeObject | undefined, wanted: WaitFor): boolean {
  if (wanted.kind === 'delete') return object === undefined;
  if (wanted.kind === 'jsonpath') {
    if (object === undefined) return false;
    const values = select(object, wanted.path).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    return wanted.value === undefined ? values.length > 0 : values.includes(wanted.value);
  }
  const condition = findCondition(conditionsOf(object), wanted.type);
  if (condition === undefined) return false;
  const generation = object?.metadata.generation;
  const stale =
    condition.observedGeneration !== undefined && generation !== undefined && condition.observedGeneration < generation;
  return !stale && condition.status === wanted.status;
}

const conditionsOf = (object: KubeObject | undefined): readonly Condition[] | undefined =>
  (object?.['status'] as { conditions?: Condition[] } | undefined)?.conditions;

/** `servers/web-1  Available=False  Provisioning: the server is being created  (12s)`. */
export function progressLine(what: string, object: KubeObject | undefined, wanted: WaitFor, elapsedMs: number): string {
  const elapsed = `(${String(Math.floor(elapsedMs / 1000))}s)`;
  if (object === undefined) return `${what}  not found  ${elapsed}`;
  const deleting = object.metadata.deletionTimestamp === undefined ? '' : '  deleting';
  if (wanted.kind === 'jsonpath') {
    const values = select(object, wanted.path).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    return `${what}  {${wanted.path}}=${values.length === 0 ? '<none>' : values.join(',')}${deleting}  ${elapsed}`;
  }
  const type = wanted.kind === 'condition' ? wanted.type : 'Available';
  const condition = findCondition(conditionsOf(object), type);
  const state =
    condition === undefined
      ? `${type}: not reported yet`
      : `${type}=${condition.status}  ${condition.reason}${condition.message === '' ? '' : `: ${condition.message}`}`;
  return `${what}  ${state}${deleting}  ${elapsed}`;
}

interface WaitOptions {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  readonly clock: Clock;
  /** Rewrite the line in place (a terminal) rather than print each change. */
  readonly live: boolean;
}

/** Polls `read` until the wait is met (true) or the timeout passes (false), reporting progress on `out`. */
export async function waitFor(
  read: () => Promise<KubeObject | undefined>,
  what: string,
  wanted: WaitFor,
  out: Out,
  options: WaitOptions,
): Promise<boolean> {
  const start = options.clock.now();
  let last = '';
  for (;;) {
    const object = await read();
    // As kubectl's: an object that is not there is an error at once, unless its deletion is awaited.
    if (object === undefined && wanted.kind !== 'delete') {
      if (options.live && last !== '') out.write('\n');
      throw new CliError(`${what} not found`, 'failed');
    }
    const elapsed = options.clock.now() - start;
    const line = progressLine(what, object, wanted, elapsed);
    if (options.live) out.write(`\r\x1b[2K${line}`);
    else if (line.replace(/\(\d+s\)$/, '') !== last.replace(/\(\d+s\)$/, '')) out.write(`${line}\n`);
    last = line;
    if (met(object, wanted)) {
      out.write(`${options.live ? '\n' : ''}${what} condition met\n`);
      return true;
    }
    if (elapsed >= options.timeoutMs) {
      out.write(options.live ? '\n' : '');
      return false;
    }
    await options.clock.sleep(options.intervalMs);
  }
}

/** A Go duration (`30s`, `5m`, `1h30m`), or a bare number of seconds; never negative. */
export function duration(text: string): number {
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : parseGoDuration(text);
  if (ms === undefined || ms < 0) throw new InvalidArgumentError('a duration such as 30s, 5m or 1h');
  return ms;
}

export function waitCommand(out: Out = process.stdout, err: Out = process.stderr): Command {
  return targetOptions(
    new Command('wait')
      .description('wait for a condition on objects (or their deletion), named or selected, with a live progress line')
      .argument('<kind>', 'TYPE, TYPE/NAME or TYPE.GROUP/NAME')
      .argument('[names...]')
      .requiredOption(
        '--for <condition>',
        "condition=Available (default status True), condition=X=False, jsonpath='{.status.x}'=value, or delete",
        parseFor,
      )
      .option('-n, --namespace <ns>', "the namespace (default: the kubeconfig context's, else default)")
      .option('-l, --selector <selector>', 'wait for the objects whose labels match')
      .option('--display-name <name>', `wait for the objects of this display name (-l ${DISPLAY_NAME_LABEL}=NAME)`)
      .option('--all', 'wait for every object of the kinds in the namespace')
      .option('--timeout <duration>', 'give up after this long (exit code 1)', duration, 300_000),
  ).action(async (kind: string, names: string[], options: WaitFlags & Target) => {
    await withClient(options, err, async (client, contextNamespace) => {
      const { requests } = resourceArgs(await kindsOf(client), [kind, ...names], 'wait');
      const selector = selectorOf(options);
      const selected = selector !== undefined || options.all === true;
      if (selected && requests.some((r) => r.names.length > 0)) {
        throw new CliError('names cannot be provided when a selector (-l, --display-name) or --all is specified');
      }
      const live = 'isTTY' in out && out.isTTY === true;
      const start = systemClock.now();
      for (const { entry, names } of requests) {
        const { type } = entry;
        const namespace = type.namespaced ? (options.namespace ?? contextNamespace) : undefined;
        if (!selected && names.length === 0) {
          throw new CliError(`name the ${type.plural} to wait for: TYPE NAME…, TYPE/NAME…, -l SELECTOR or --all`);
        }
        // Selected once, at the start, as kubectl's: an object made while waiting is not waited for.
        const waited = selected
          ? (await client.list(type, { namespace, labelSelector: selector })).items.map((o) => o.metadata.name)
          : names;
        // kubectl's words and exit code when a selector matches nothing; nothing there is what a delete awaits.
        if (waited.length === 0 && options.for.kind !== 'delete') {
          throw new CliError('no matching resources found', 'failed');
        }
        for (const name of waited) {
          const read = () => getOptional(client, type, namespace, name);
          // One --timeout for them all, as kubectl's.
          const left = Math.max(0, options.timeout - (systemClock.now() - start));
          const ok = await waitFor(read, objectName(type, name), options.for, out, {
            timeoutMs: left,
            intervalMs: 1000,
            clock: systemClock,
            live,
          });
          // kubectl's words, which scripts match on.
          if (!ok) throw new CliError(`timed out waiting for the condition on ${type.plural}/${name}`, 'failed');
        }
      }
    });
  });
}

interface WaitFlags {
  readonly for: WaitFor;
  readonly namespace?: string;
  readonly selector?: string;
  readonly displayName?: string;
  readonly all?: boolean;
  readonly timeout: number;
}
