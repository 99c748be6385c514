/**
 * Named clusters, each with its own Client. The management cluster is ''; target clusters are engaged and disengaged at
 * runtime, by the kubeconfig Secrets the c5c3 operator's provider reads (docs/spec/keystone-orders.md §Multicluster
 * setup): in the clusters namespace, labelled `sigs.k8s.io/multicluster-runtime-kubeconfig: "true"`, the Secret's name
 * the cluster's, data key `kubeconfig` (required) and `namespaces` (optional, comma-separated). A change of either
 * re-engages the cluster; deleting the Secret disengages it; exec and auth-provider kubeconfigs are refused.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { parse as parseYaml } from 'yaml';
import type { Client } from '../kube/client.ts';
import type { KubeObject } from '../kube/object.ts';
import { builtin } from '../kube/resource-type.ts';
import { Informer } from './informer.ts';
import type { Scheduler } from './scheduler.ts';
import { MANAGEMENT_CLUSTER } from './types.ts';

export const KUBECONFIG_SECRET_LABEL = 'sigs.k8s.io/multicluster-runtime-kubeconfig';
const KUBECONFIG_KEY = 'kubeconfig';
const NAMESPACES_KEY = 'namespaces';
export const DEFAULT_CLUSTERS_NAMESPACE = 'c5c3-clusters';

export interface Cluster {
  readonly name: string;
  readonly client: Client;
  /** The registration's namespaces: caches on this cluster watch only these. Undefined = all. */
  readonly namespaces?: readonly string[] | undefined;
}

interface ClusterListener {
  engaged(cluster: Cluster): Promise<void> | void;
  disengaged(name: string): Promise<void> | void;
}

/**
 * The clusters the manager reconciles on. Engagements and disengagements run one at a time in order, so a Secret
 * changed twice in a row never leaves two engagements of one cluster racing.
 */
export class ClusterRegistry {
  readonly #clusters = new Map<string, Cluster>();
  readonly #listeners = new Set<ClusterListener>();
  #chain: Promise<void> = Promise.resolve();

  constructor(management: Client) {
    this.#clusters.set(MANAGEMENT_CLUSTER, { name: MANAGEMENT_CLUSTER, client: management });
  }

  /** The cluster's client, or undefined when no cluster of that name is engaged. */
  resolve(name: string): Client | undefined {
    return this.#clusters.get(name)?.client;
  }

  get(name: string): Cluster | undefined {
    return this.#clusters.get(name);
  }

  names(): string[] {
    return [...this.#clusters.keys()];
  }

  /** Delivers an engagement for every cluster already engaged, then the later changes. */
  async subscribe(listener: ClusterListener): Promise<() => void> {
    this.#listeners.add(listener);
    await this.#serial(async () => {
      for (const cluster of this.#clusters.values()) await listener.engaged(cluster);
    });
    return () => this.#listeners.delete(listener);
  }

  /** Engages a target cluster; one already engaged under the name is disengaged first. */
  engage(cluster: Cluster): Promise<void> {
    if (cluster.name === MANAGEMENT_CLUSTER)
      return Promise.reject(new Error('the management cluster is always engaged'));
    return this.#serial(async () => {
      if (this.#clusters.has(cluster.name)) await this.#disengage(cluster.name);
      this.#clusters.set(cluster.name, cluster);
      for (const listener of this.#listeners) await listener.engaged(cluster);
    });
  }

  disengage(name: string): Promise<void> {
    if (name === MANAGEMENT_CLUSTER) return Promise.reject(new Error('the management cluster cannot be disengaged'));
    return this.#serial(() => this.#disengage(name));
  }

  /** Waits for every engagement and disengagement queued so far. */
  settled(): Promise<void> {
    return this.#serial(() => Promise.resolve());
  }

  async #disengage(name: string): Promise<void> {
    if (!this.#clusters.delete(name)) return;
    for (const listener of this.#listeners) await listener.disengaged(name);
  }

  #serial(step: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(step);
    this.#chain = next.catch(() => undefined);
    return next;
  }
}

/** Turns a kubeconfig into a Client for the named cluster (injected: tests return embedded stores). */
export type ClientFactory = (kubeconfig: string, cluster: string) => Client | Promise<Client>;

interface KubeconfigSecretProviderOptions {
  readonly management: Client;
  readonly registry: ClusterRegistry;
  readonly clientFor: ClientFactory;
  readonly scheduler: Scheduler;
  readonly log: Logger;
  /** Where registration Secrets live; default `c5c3-clusters`. */
  readonly namespace?: string;
  readonly resyncMs?: number;
}

/** A registration Secret, read: the cluster it names, or why it was refused. */
type Registration =
  | {
      readonly ok: true;
      readonly kubeconfig: string;
      readonly namespaces: readonly string[] | undefined;
      readonly hash: string;
    }
  | { readonly ok: false; readonly reason: string };

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function readRegistration(secret: KubeObject): Registration {
  const kubeconfig = secretValue(secret, KUBECONFIG_KEY);
  if (kubeconfig === undefined || kubeconfig === '') return { ok: false, reason: `no "${KUBECONFIG_KEY}" key` };
  const refusal = refuseKubeconfig(kubeconfig);
  if (refusal !== undefined) return { ok: false, reason: refusal };
  const rawNamespaces = secretValue(secret, NAMESPACES_KEY);
  let namespaces: string[] | undefined;
  if (rawNamespaces !== undefined) {
    namespaces = rawNamespaces
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    const bad = namespaces.find((n) => n.length > 63 || !dns1123Label.test(n));
    if (bad !== undefined) return { ok: false, reason: `"${bad}" in "${NAMESPACES_KEY}" is not a DNS-1123 label` };
  }
  const hash = createHash('sha256')
    .update(`${kubeconfig}\u0000${rawNamespaces ?? ''}`)
    .digest('hex');
  return { ok: true, kubeconfig, namespaces, hash };
}

/** Why a kubeconfig is refused: credentials that run a command or a plugin would run it inside the operator. */
function refuseKubeconfig(kubeconfig: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = parseYaml(kubeconfig);
  } catch {
    return 'the kubeconfig is not valid YAML';
  }
  if (typeof parsed !== 'object' || parsed === null) return 'the kubeconfig is not a mapping';
  const users: unknown = (parsed as Record<string, unknown>)['users'];
  for (const entry of Array.isArray(users) ? (users as unknown[]) : []) {
    const user: unknown =
      typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)['user'] : undefined;
    if (typeof user !== 'object' || user === null) continue;
    if ('exec' in user) return 'exec credentials are not allowed';
    if ('auth-provider' in user) return 'auth-provider credentials are not allowed';
  }
  return undefined;
}

function secretValue(secret: KubeObject, key: string): string | undefined {
  const data = secret['data'];
  if (typeof data === 'object' && data !== null) {
    const encoded: unknown = (data as Record<string, unknown>)[key];
    if (typeof encoded === 'string') return Buffer.from(encoded, 'base64').toString('utf8');
  }
  const stringData = secret['stringData'];
  if (typeof stringData === 'object' && stringData !== null) {
    const plain: unknown = (stringData as Record<string, unknown>)[key];
    if (typeof plain === 'string') return plain;
  }
  return undefined;
}

/** Engages and disengages target clusters as their registration Secrets come, change and go. */
export class KubeconfigSecretProvider {
  readonly #options: KubeconfigSecretProviderOptions;
  readonly #informer: Informer<KubeObject>;
  /** cluster → the registration (hash and Secret resourceVersion) it was engaged with. */
  readonly #engaged = new Map<string, string>();

  constructor(options: KubeconfigSecretProviderOptions) {
    this.#options = options;
    this.#informer = new Informer({
      client: options.management,
      type: builtin.secret,
      scheduler: options.scheduler,
      log: options.log,
      namespace: options.namespace ?? DEFAULT_CLUSTERS_NAMESPACE,
      labelSelector: `${KUBECONFIG_SECRET_LABEL}=true`,
      ...(options.resyncMs === undefined ? {} : { resyncMs: options.resyncMs }),
    });
    this.#informer.addHandlers({
      add: (secret) => {
        void this.#sync(secret);
      },
      update: (_old, secret) => {
        void this.#sync(secret);
      },
      delete: (secret) => {
        void this.#remove(secret.metadata.name);
      },
    });
  }

  get hasSynced(): boolean {
    return this.#informer.hasSynced;
  }

  start(): void {
    this.#informer.start();
  }

  async stop(): Promise<void> {
    await this.#informer.stop();
  }

  async #sync(secret: KubeObject): Promise<void> {
    const name = secret.metadata.name;
    const log = this.#options.log.child({ cluster: name });
    if (secret.metadata.labels?.[KUBECONFIG_SECRET_LABEL] !== 'true') {
      await this.#remove(name);
      return;
    }
    const registration = readRegistration(secret);
    if (!registration.ok) {
      log.warn({ reason: registration.reason }, 'cluster registration refused');
      await this.#remove(name);
      return;
    }
    // Any write to the Secret re-engages, not only a new kubeconfig: that is how an operator makes a cluster's
    // watches pick up a kind (a CRD) installed after it was first engaged.
    const version = `${registration.hash}@${secret.metadata.resourceVersion ?? ''}`;
    if (this.#engaged.get(name) === version) return;
    this.#engaged.set(name, version);
    try {
      const client = await this.#options.clientFor(registration.kubeconfig, name);
      // A newer registration of the same cluster may have arrived while the client was being built.
      if (this.#engaged.get(name) !== version) return;
      await this.#options.registry.engage({ name, client, namespaces: registration.namespaces });
      log.info({ namespaces: registration.namespaces }, 'cluster engaged');
    } catch (error) {
      this.#engaged.delete(name);
      log.error({ err: error }, 'cluster engagement failed');
    }
  }

  async #remove(name: string): Promise<void> {
    if (!this.#engaged.delete(name)) return;
    await this.#options.registry.disengage(name);
    this.#options.log.info({ cluster: name }, 'cluster disengaged');
  }
}
