/** CRDs and helpers the kube suites share; nothing here knows which backend runs it. */
import type { Client, WatchEvent, WatchOptions } from '../../src/kube/client.ts';
import { customResourceDefinition } from '../../src/kube/crd.ts';
import { isKubeAlreadyExists } from '../../src/kube/errors.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin, type ResourceType } from '../../src/kube/resource-type.ts';
import { regionKinds } from '../../src/region/apis/index.ts';

export const GROUP = 'conformance.openregion.dev';

export const widgetType: ResourceType<Widget> = {
  group: GROUP,
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};
export const gadgetType: ResourceType<Gadget> = {
  group: GROUP,
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};

export interface WidgetSpec {
  size: number;
  color?: string;
  name?: string;
  mode?: string;
  tags?: string[];
  extra?: Record<string, unknown>;
}
export interface Widget extends KubeObject {
  spec: WidgetSpec;
  status?: { phase?: string; observedGeneration?: number };
}
/** The CEL kind: each field carries a rule (see gadgetCrd). */
export interface Gadget extends KubeObject {
  spec: { userName?: string; passwordGeneration?: number; low?: number; high?: number };
}

function crd(plural: string, kind: string, schema: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: schema } },
      ],
    },
  };
}

export const widgetCrd = crd('widgets', 'Widget', {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'green', 'blue'] },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 10 },
        mode: { type: 'string', default: 'auto' },
        tags: { type: 'array', items: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: {
      type: 'object',
      properties: { phase: { type: 'string' }, observedGeneration: { type: 'integer' } },
    },
  },
});

export const gadgetCrd = crd('gadgets', 'Gadget', {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.low <= self.high', message: 'low must not exceed high' }],
      properties: {
        userName: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'userName is immutable' }],
        },
        passwordGeneration: {
          type: 'integer',
          'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'passwordGeneration may only increase' }],
        },
        low: { type: 'integer', default: 0 },
        high: { type: 'integer', default: 10 },
      },
    },
  },
});

/** A CRD whose rule does not parse: every CEL-enforcing server must refuse it. */
export function brokenRuleCrd(): KubeObject {
  return crd('brokens', 'Broken', {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.a >', message: 'never' }],
        properties: { a: { type: 'integer' } },
      },
    },
  });
}

/**
 * Installs (or brings up to date) every region CRD and waits until each is served. Create, not server-side apply:
 * 1.20's apply refuses x-kubernetes-validations as an undeclared field, while a create drops it (the CEL rules
 * are then simply not enforced there).
 */
export async function installRegionCrds(client: Client): Promise<void> {
  for (const kind of regionKinds) {
    const crd = customResourceDefinition(kind);
    try {
      await client.create(builtin.customResourceDefinition, crd);
    } catch (error) {
      if (!isKubeAlreadyExists(error)) throw error;
      const stored = await client.get(builtin.customResourceDefinition, undefined, crd.metadata.name);
      await client.update(builtin.customResourceDefinition, { ...crd, metadata: stored.metadata });
    }
  }
  for (const kind of regionKinds) await eventually(`${kind.type.kind} to be served`, () => client.list(kind.type));
}

export async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Collects watch events until `done` says so (or the timeout passes, which fails the test). */
export async function collect<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  options: WatchOptions,
  done: (events: readonly WatchEvent<T>[]) => boolean,
  timeoutMs = 10_000,
): Promise<WatchEvent<T>[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => {
    abort.abort();
  }, timeoutMs);
  const events: WatchEvent<T>[] = [];
  try {
    for await (const e of client.watch(type, { ...options, signal: abort.signal })) {
      events.push(e);
      if (done(events)) return events;
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  throw new Error(`watch ended before the expected events arrived; got ${events.map((e) => e.type).join(',')}`);
}

export const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
