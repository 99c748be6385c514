/** How a kind is addressed on the API: group, version, plural, scope. Both backends route by it. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The lower-case plural in URLs, e.g. `keystoneusers`. */
  readonly plural: string;
  readonly namespaced: boolean;
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

export const builtin = {
  namespace: { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  secret: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  configMap: { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  event: { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
  lease: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true },
  customResourceDefinition: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
} as const satisfies Record<string, ResourceType>;
