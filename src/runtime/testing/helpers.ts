/** Shared pieces of the runtime's tests: objects to store, and waiting for asynchronous effects without sleeping. */
import type { KubeObject, OwnerReference } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { apiVersionOf } from '../../kube/resource-type.ts';
import { settle } from '../scheduler.ts';

export const widgetType: ResourceType = {
  group: 'example.io',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

export const gadgetType: ResourceType = {
  group: 'example.io',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};

export function objectOf(
  type: ResourceType,
  namespace: string,
  name: string,
  extra: {
    spec?: unknown;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    data?: Record<string, string>;
  } = {},
): KubeObject {
  return {
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    metadata: {
      name,
      namespace,
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ...(extra.ownerReferences ? { ownerReferences: extra.ownerReferences } : {}),
    },
    ...(extra.spec === undefined ? {} : { spec: extra.spec }),
    ...(extra.data === undefined ? {} : { data: extra.data }),
  };
}

/** Lets promise chains run until `done()` holds; fails after a bounded number of turns (never a timed wait). */
export async function eventually(done: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (done()) return;
    await settle(1);
  }
  throw new Error(`${what} did not hold`);
}
