/**
 * The fixture of the KeystoneUser unit tests (upstream kuHarness): a fake client per cluster, the ControlPlane
 * `default/cp`, the order `tenant-a/workflow`, a manual clock and counted randomness, and two stand-ins for the
 * controllers the operator relies on: `korc()` reports on K-ORC Users as K-ORC would, `eso()` pushes PushSecrets.
 */
import { Registry } from 'prom-client';
import type { Client } from '../../../kube/client.ts';
import type { Condition } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { Instrumenter } from '../../../runtime/metrics.ts';
import { silentLogger } from '../../../runtime/logger.ts';
import { FakeClient } from '../../../runtime/testing/fake-client.ts';
import type { Result } from '../../../runtime/types.ts';
import { ManualClock } from '../../../util/clock.ts';
import { controlPlaneType, type ControlPlane, type ControlPlaneSpec } from '../../apis/controlplane.ts';
import { ESO_GROUP, pushSecretType, storeTypeAt, type SecretStoreVersion } from '../../apis/eso.ts';
import { keystoneUserType, type KeystoneUser, type KeystoneUserSpec } from '../../apis/keystoneuser.ts';
import { KORC_WAITING_FOR_EXTERNAL, korcUserType, type KorcUser } from '../../apis/korc.ts';
import { keystoneUserChildNames, keystoneUserKind, type OrderRef } from '../../order/names.ts';
import { keystoneUserSubConditionTypes } from '../constants.ts';
import { reconcileKeystoneUser, type KeystoneUserReconcilerDeps } from '../reconciler.ts';

export const NS = 'tenant-a';
export const NAME = 'workflow';
export const TARGET = 'edge-1';
export const CP_NS = 'default';
export const CP = 'cp';

interface UserFixtureOptions {
  /** The order's cluster: '' (default) or TARGET. */
  readonly cluster?: string;
  /** Wraps a cluster's client, to inject failures. */
  readonly wrap?: (cluster: string, client: Client) => Client;
  /** One kind of call refused on one cluster: the common failure to inject. */
  readonly refuse?: Refusal;
  /** The manager's cache of the management cluster's Secrets, as register.ts hands it over. */
  readonly cachedSecrets?: KeystoneUserReconcilerDeps['cachedSecrets'];
}

interface Refusal {
  /** '' (default, the management cluster) or TARGET. */
  readonly cluster?: string;
  readonly method: FailingMethod;
  readonly plural: string;
  readonly error: () => Error;
  /** While this holds (default: always). */
  readonly when?: () => boolean;
}

export type UserFixture = ReturnType<typeof userFixture>;

export function userFixture(options: UserFixtureOptions = {}) {
  const cluster = options.cluster ?? '';
  const fakes = { management: new FakeClient(), target: new FakeClient() };
  const { refuse } = options;
  const wrap =
    options.wrap ??
    ((c: string, client: Client) =>
      refuse !== undefined && c === (refuse.cluster ?? '')
        ? failing(client, refuse.method, refuse.plural, refuse.error, refuse.when)
        : client);
  const clients = new Map<string, Client>([
    ['', wrap('', fakes.management)],
    [TARGET, wrap(TARGET, fakes.target)],
  ]);
  const management = clients.get('') as Client;
  const orderClient = clients.get(cluster) as Client;
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const registry = new Registry();
  let drawn = 0;
  const rows: string[] = [];
  /** Events the passes recorded, as `type reason: message`. */
  const events: string[] = [];
  const deps: KeystoneUserReconcilerDeps = {
    management,
    resolve: (name) => clients.get(name),
    instrumenter: new Instrumenter(registry, keystoneUserSubConditionTypes, clock),
    randomBytes: (size) => Buffer.alloc(size, ++drawn),
    rows: (step, row) => rows.push(`${step}:${row}`),
    cachedSecrets: options.cachedSecrets,
  };
  const ref: OrderRef = { kind: keystoneUserKind, cluster, namespace: NS, name: NAME };
  const names = keystoneUserChildNames(ref);
  /** Keystone users that exist outside the order (what the probe would find). */
  const keystoneUsers = new Set<string>();
  let pushes = 0;

  const h = {
    cluster,
    fakes,
    clients,
    management,
    orderClient,
    clock,
    registry,
    deps,
    rows,
    events,
    ref,
    names,
    keystoneUsers,
    pass: (name = NAME, on = cluster): Promise<Result> =>
      reconcileKeystoneUser(
        deps,
        { cluster: on, namespace: NS, name },
        {
          signal: new AbortController().signal,
          log: silentLogger(),
          clock,
          events: {
            record: (_involved, type, reason, message) => {
              events.push(`${type} ${reason}: ${message}`);
              return Promise.resolve();
            },
          },
        },
      ),
    order: () => orderClient.get(keystoneUserType, NS, NAME),
    condition: async (type: string) => (await h.order()).status?.conditions?.find((c) => c.type === type),
    async seedControlPlane(spec: Partial<ControlPlaneSpec> = {}, adminReady = true): Promise<void> {
      const assignment = cluster === '' ? { namespace: NS } : { namespace: NS, targetClusterRef: { name: cluster } };
      await fakes.management.create(controlPlaneType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'ControlPlane',
        metadata: { name: CP, namespace: CP_NS },
        spec: { namespaceAssignments: [assignment], ...spec },
        status: { conditions: [cond('AdminCredentialReady', adminReady ? 'True' : 'False')] },
      } satisfies ControlPlane);
    },
    /** The tenant SecretStore, at v1 (ESO 2.x) unless another version is named (ESO 0.10 serves v1beta1). */
    async seedStore(ready = true, version: SecretStoreVersion = 'v1'): Promise<void> {
      if (version !== 'v1') fakes.management.serveVersions(ESO_GROUP, 'secretstores', [version, 'v1alpha1']);
      await fakes.management.create(storeTypeAt('SecretStore', version), {
        apiVersion: `external-secrets.io/${version}`,
        kind: 'SecretStore',
        metadata: { name: 'openbao-tenant-store', namespace: CP_NS },
        spec: { provider: { vault: {} } },
        status: { conditions: [cond('Ready', ready ? 'True' : 'False')] },
      });
    },
    async seedOrder(spec: Partial<KeystoneUserSpec> = {}, name = NAME): Promise<KeystoneUser> {
      return (cluster === '' ? fakes.management : fakes.target).create(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name, namespace: NS },
        spec: { controlPlaneRef: { name: CP, namespace: CP_NS }, passwordGeneration: 1, ...spec },
      });
    },
    /** A ControlPlane, a ready store and an order: everything a pass needs to converge. */
    async seedAll(spec: Partial<KeystoneUserSpec> = {}, cp: Partial<ControlPlaneSpec> = {}): Promise<void> {
      await h.seedControlPlane(cp);
      await h.seedStore();
      await h.seedOrder(spec);
    },
    /** K-ORC's answer for every User: an import finds a Keystone user or waits; a managed one applies its ref. */
    async korc(): Promise<void> {
      for (const user of (await fakes.management.list(korcUserType, { namespace: CP_NS })).items) {
        const generation = user.metadata.generation ?? 1;
        const found = user.spec.import?.filter?.name;
        const status: KorcUser['status'] =
          user.spec.managementPolicy === 'unmanaged'
            ? found !== undefined && keystoneUsers.has(found)
              ? { id: `id-${found}`, conditions: korcAvailable(generation) }
              : { conditions: korcWaiting(generation, KORC_WAITING_FOR_EXTERNAL) }
            : {
                id: 'ku-user-id',
                conditions: korcAvailable(generation),
                resource: {
                  name: user.spec.resource?.name ?? '',
                  appliedPasswordRef: user.spec.resource?.passwordRef ?? '',
                },
              };
        await fakes.management.update(korcUserType, { ...user, status });
      }
    },
    /** ESO's answer: every PushSecret pushed, with a new syncedResourceVersion. */
    async eso(): Promise<void> {
      for (const ps of (await fakes.management.list(pushSecretType, { namespace: CP_NS })).items) {
        const status = {
          conditions: [cond('Ready', 'True')],
          syncedResourceVersion: `${String(ps.metadata.generation)}-pushed-${String(++pushes)}`,
        };
        await fakes.management.update(pushSecretType, { ...ps, status });
      }
    },
    /** Runs passes with K-ORC and ESO answering in between, until the order is Ready; returns the last result. */
    async converge(limit = 8): Promise<Result> {
      for (let i = 0; i < limit; i++) {
        const result = await h.pass();
        if ((await h.condition('Ready'))?.status === 'True') return result;
        await h.korc();
        await h.eso();
      }
      throw new Error(
        `not Ready after ${String(limit)} passes: ${JSON.stringify((await h.order()).status?.conditions)}`,
      );
    },
    secret: (name: string, client: Client = management, namespace = CP_NS) =>
      client.get(builtin.secret, namespace, name),
    names_in: async (
      type: typeof korcUserType | typeof builtin.secret | typeof pushSecretType,
      client: Client = management,
      namespace = CP_NS,
    ) => (await client.list(type, { namespace })).items.map((o) => o.metadata.name).sort(),
  };
  return h;
}

export function cond(type: string, status: Condition['status'], reason = 'Test', message = ''): Condition {
  return { type, status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z' };
}

export function korcAvailable(generation: number): Condition[] {
  return [
    { ...cond('Available', 'True', 'Success', 'OpenStack resource is available'), observedGeneration: generation },
    { ...cond('Progressing', 'False', 'Success', 'OpenStack resource is up to date'), observedGeneration: generation },
  ];
}

export function korcWaiting(generation: number, message: string): Condition[] {
  return [
    { ...cond('Available', 'False', 'Progressing', message), observedGeneration: generation },
    { ...cond('Progressing', 'True', 'Progressing', message), observedGeneration: generation },
  ];
}

export function korcTerminal(generation: number, reason: string, message: string): Condition[] {
  return [
    { ...cond('Available', 'False', reason, message), observedGeneration: generation },
    { ...cond('Progressing', 'False', reason, message), observedGeneration: generation },
  ];
}

/** A client whose calls of one kind fail with `error` while `when()` holds. */
type FailingMethod = 'get' | 'list' | 'apply' | 'patch' | 'delete' | 'update';

export function failing(
  client: Client,
  method: FailingMethod,
  plural: string,
  error: () => Error,
  when: () => boolean = () => true,
): Client {
  const fail = (type: { plural: string }) => when() && type.plural === plural;
  return {
    get: (type, ns, name) => (fail(type) && method === 'get' ? Promise.reject(error()) : client.get(type, ns, name)),
    list: (type, o) => (fail(type) && method === 'list' ? Promise.reject(error()) : client.list(type, o)),
    watch: (type, o) => client.watch(type, o),
    create: (type, obj, o) => client.create(type, obj, o),
    update: (type, obj, o) =>
      fail(type) && method === 'update' ? Promise.reject(error()) : client.update(type, obj, o),
    patch: (type, ns, name, p, o) =>
      fail(type) && method === 'patch' ? Promise.reject(error()) : client.patch(type, ns, name, p, o),
    apply: (type, obj, o) => (fail(type) && method === 'apply' ? Promise.reject(error()) : client.apply(type, obj, o)),
    delete: (type, ns, name, o) =>
      fail(type) && method === 'delete' ? Promise.reject(error()) : client.delete(type, ns, name, o),
    servedVersions: (group, plural) => client.servedVersions(group, plural),
  };
}
