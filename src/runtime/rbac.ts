/**
 * Kubernetes RBAC for what a process does: permissions as the code declares them (a kind, its verbs, cluster-wide
 * or in the operator's own namespace), folded into PolicyRules for a ClusterRole and a Role, and a Client wrapper
 * that refuses, as kube-apiserver would, any call the rules do not grant — so a test can prove the shipped rules
 * are enough for what the code really does.
 */
import { KubeForbiddenError } from '../kube/errors.ts';
import type { Client } from '../kube/client.ts';
import type { ResourceType } from '../kube/resource-type.ts';

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
type Verb = (typeof VERBS)[number];

export interface Permission {
  readonly group: string;
  /** The plural, with a subresource after a slash: `servers/status`. */
  readonly resource: string;
  readonly verbs: readonly Verb[];
  /** Only these objects (never for create, list or watch, which have no name to check). */
  readonly resourceNames?: readonly string[];
  /**
   * `cluster`: every namespace (a ClusterRole); `namespace`: the operator's own namespace (a Role); `watched`: each
   * namespace the caches are confined to (`serve --watch-namespaces`, a Role there); `registrations`: the target
   * clusters' registration Secrets' namespace (`--clusters-namespace`, a Role there).
   */
  readonly scope: 'cluster' | 'namespace' | 'watched' | 'registrations';
}

/** A permission on `type` (or its `subresource`). */
export function permission(
  type: Pick<ResourceType, 'group' | 'plural'>,
  verbs: readonly Verb[],
  options: { scope?: Permission['scope']; subresource?: string; resourceNames?: readonly string[] } = {},
): Permission {
  return {
    group: type.group,
    resource: options.subresource === undefined ? type.plural : `${type.plural}/${options.subresource}`,
    verbs,
    scope: options.scope ?? 'cluster',
    ...(options.resourceNames === undefined ? {} : { resourceNames: options.resourceNames }),
  };
}

/** get, list and watch: what an informer (and a cached read) needs. */
export const READ: readonly Verb[] = ['get', 'list', 'watch'];

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly Verb[];
}

const byVerbOrder = (a: Verb, b: Verb) => VERBS.indexOf(a) - VERBS.indexOf(b);

/**
 * The permissions of one scope as PolicyRules: verbs merged per resource (and resource names), then resources
 * with the same group and verbs folded into one rule, in a stable order. A namespaced verb the cluster-wide
 * permissions already grant is dropped. Never a wildcard.
 */
export function policyRules(
  permissions: readonly Permission[],
  scope: Permission['scope'],
  grantedClusterWide: readonly Permission[] = [],
): PolicyRule[] {
  const clusterWide = new Set(
    grantedClusterWide
      .filter((p) => p.scope === 'cluster' && p.resourceNames === undefined)
      .flatMap((p) => p.verbs.map((v) => `${p.group}|${p.resource}|${v}`)),
  );
  const verbs = new Map<string, Set<Verb>>();
  for (const p of permissions) {
    if (p.scope !== scope) continue;
    for (const part of [p.group, p.resource, ...p.verbs, ...(p.resourceNames ?? [])]) {
      if (part.includes('*')) throw new Error(`no wildcards in RBAC: ${p.group}/${p.resource}`);
    }
    const key = `${p.group}|${p.resource}|${(p.resourceNames ?? []).join(',')}`;
    const set = verbs.get(key) ?? new Set<Verb>();
    for (const v of p.verbs) if (scope === 'cluster' || !clusterWide.has(`${p.group}|${p.resource}|${v}`)) set.add(v);
    verbs.set(key, set);
  }
  const folded = new Map<string, { group: string; names: string; verbs: Verb[]; resources: string[] }>();
  const order = (key: string) => key.split('|');
  const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < 3; i++) {
      const c = (x[i] ?? '').localeCompare(y[i] ?? '');
      if (c !== 0) return c;
    }
    return 0;
  };
  for (const [key, set] of [...verbs].sort(byKey)) {
    if (set.size === 0) continue;
    const [group = '', resource = '', names = ''] = key.split('|');
    const sorted = [...set].sort(byVerbOrder);
    const foldKey = `${group}|${names}|${sorted.join(',')}`;
    const rule = folded.get(foldKey) ?? { group, names, verbs: sorted, resources: [] };
    rule.resources.push(resource);
    folded.set(foldKey, rule);
  }
  return [...folded.values()].map(({ group, names, verbs: v, resources }) => ({
    apiGroups: [group],
    resources,
    ...(names === '' ? {} : { resourceNames: names.split(',') }),
    verbs: v,
  }));
}

interface AccessRequest {
  readonly group: string;
  readonly resource: string;
  readonly verb: Verb;
  /** Undefined: cluster-scoped, or every namespace (a list or watch across namespaces). */
  readonly namespace: string | undefined;
  readonly name?: string | undefined;
}

/** Whether `rules` grant `request` as kube-apiserver's RBAC authorizer decides it (no wildcards to match). */
function ruleAllows(rules: readonly PolicyRule[], request: Omit<AccessRequest, 'namespace'>): boolean {
  return rules.some(
    (r) =>
      r.apiGroups.includes(request.group) &&
      r.resources.includes(request.resource) &&
      r.verbs.includes(request.verb) &&
      (r.resourceNames === undefined || (request.name !== undefined && r.resourceNames.includes(request.name))),
  );
}

/** A ClusterRole's rules everywhere, a Role's in its namespace only. */
export interface Grants {
  readonly cluster: readonly PolicyRule[];
  readonly namespaced: ReadonlyMap<string, readonly PolicyRule[]>;
}

export function allows(grants: Grants, request: AccessRequest): boolean {
  if (ruleAllows(grants.cluster, request)) return true;
  if (request.namespace === undefined) return false;
  return ruleAllows(grants.namespaced.get(request.namespace) ?? [], request);
}

/**
 * A Client that makes every call only when `grants` allow it, as kube-apiserver's authorizer would, and records
 * each refusal. A server-side apply needs patch, and create for an object that may not exist yet.
 */
export class AuthorizingClient implements Client {
  readonly denied: string[] = [];
  readonly #inner: Client;
  readonly #grants: Grants;

  constructor(inner: Client, grants: Grants) {
    this.#inner = inner;
    this.#grants = grants;
  }

  #check(
    type: ResourceType,
    verbs: readonly Verb[],
    namespace: string | undefined,
    name?: string,
    subresource?: string,
  ): void {
    const resource = subresource === undefined ? type.plural : `${type.plural}/${subresource}`;
    const ns = type.namespaced ? namespace : undefined;
    for (const verb of verbs) {
      if (allows(this.#grants, { group: type.group, resource, verb, namespace: ns, name })) continue;
      const what = `${verb} ${type.group === '' ? '' : `${type.group}/`}${resource}${name === undefined ? '' : ` ${name}`}`;
      const where = ns === undefined ? (type.namespaced ? ' in every namespace' : '') : ` in ${ns}`;
      this.denied.push(`${what}${where}`);
      throw new KubeForbiddenError(`forbidden: ${what}${where}`);
    }
  }

  /** The call, or a rejection (never a synchronous throw) when it is not granted. */
  #guard<T>(check: () => void, call: () => Promise<T>): Promise<T> {
    try {
      check();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return call();
  }

  /** Discovery is granted to every authenticated identity (system:discovery), so it is never checked. */
  servedVersions: Client['servedVersions'] = (group, plural) => this.#inner.servedVersions(group, plural);

  get: Client['get'] = (type, namespace, name) =>
    this.#guard(
      () => {
        this.#check(type, ['get'], namespace, name);
      },
      () => this.#inner.get(type, namespace, name),
    );

  list: Client['list'] = (type, options) =>
    this.#guard(
      () => {
        this.#check(type, ['list'], options?.namespace);
      },
      () => this.#inner.list(type, options),
    );

  watch: Client['watch'] = (type, options) => {
    const check = () => {
      this.#check(type, ['watch'], options?.namespace);
    };
    const inner = this.#inner;
    return {
      async *[Symbol.asyncIterator]() {
        check();
        yield* inner.watch(type, options);
      },
    };
  };

  create: Client['create'] = (type, object, options) =>
    this.#guard(
      () => {
        this.#check(type, ['create'], object.metadata.namespace, undefined, options?.subresource);
      },
      () => this.#inner.create(type, object, options),
    );

  update: Client['update'] = (type, object, options) =>
    this.#guard(
      () => {
        this.#check(type, ['update'], object.metadata.namespace, object.metadata.name, options?.subresource);
      },
      () => this.#inner.update(type, object, options),
    );

  patch: Client['patch'] = (type, namespace, name, patch, options) =>
    this.#guard(
      () => {
        this.#check(type, ['patch'], namespace, name, options?.subresource);
      },
      () => this.#inner.patch(type, namespace, name, patch, options),
    );

  apply: Client['apply'] = (type, object, options) =>
    this.#guard(
      () => {
        this.#check(type, ['patch'], object.metadata.namespace, object.metadata.name, options.subresource);
        if (options.subresource === undefined) this.#check(type, ['create'], object.metadata.namespace);
      },
      () => this.#inner.apply(type, object, options),
    );

  delete: Client['delete'] = (type, namespace, name, options) =>
    this.#guard(
      () => {
        this.#check(type, ['delete'], namespace, name);
      },
      () => this.#inner.delete(type, namespace, name, options),
    );
}
