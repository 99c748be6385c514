import type { ConfigMap, CoreEvent, KubeObject, Lease, Namespace, Secret } from './object.ts';

/** Never present at run time: only the compiler sees it, as the object type a ResourceType stands for. */
declare const objectType: unique symbol;

/**
 * How a kind is addressed on the API: group, version, plural, scope. Both backends route by it. `T` is the kind's
 * object type, so `client.get(serverType, …)` returns a Server and a mismatched `client.get(networkType, …)`
 * does not compile.
 */
export interface ResourceType<T extends KubeObject = KubeObject> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The lower-case plural in URLs, e.g. `keystoneusers`. */
  readonly plural: string;
  readonly namespaced: boolean;
  readonly [objectType]?: T;
}

/**
 * Kubernetes' version priority (how a server orders a group's versions and picks the preferred one): GA before
 * beta before alpha, higher numbers first, then names that do not look like versions, alphabetically.
 */
export function compareVersionPriority(a: string, b: string): number {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [3, 0, 0, v];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
}

export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** `keystoneusers.c5c3.io`, or `secrets` for the core group: the name a CRD and RBAC use. */
export function qualifiedResource(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`;
}

/** Fixes a literal's object type: `{…}` alone would leave it KubeObject. */
const typed = <T extends KubeObject>(type: ResourceType<T>): ResourceType<T> => type;
const core = <T extends KubeObject>(kind: string, plural: string, namespaced = true) =>
  typed<T>({ group: '', version: 'v1', kind, plural, namespaced });

export const builtin = {
  namespace: core<Namespace>('Namespace', 'namespaces', false),
  secret: core<Secret>('Secret', 'secrets'),
  configMap: core<ConfigMap>('ConfigMap', 'configmaps'),
  event: core<CoreEvent>('Event', 'events'),
  lease: typed<Lease>({
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
  }),
  customResourceDefinition: typed<KubeObject>({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  }),
} as const;
