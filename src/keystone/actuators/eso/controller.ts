/**
 * The bundled ESO-compatible PushSecret actuator: for `openregion up` and end-to-end tests, where no External Secrets
 * Operator runs. It pushes a PushSecret's source Secret to the Vault/OpenBao KV v2 API its SecretStore names, with
 * ESO's status, finalizer and deletion semantics. Off unless registered: `serve` leaves PushSecrets to a real ESO.
 * SecretStores are read at the version the cluster serves (v1 as ESO 2.x, v1beta1 as ESO 0.10), found by discovery.
 */
import type { Dispatcher } from 'undici';
import { getOptional, type Client } from '../../../kube/client.ts';
import type { KubeObject } from '../../../kube/object.ts';
import { builtin, type ResourceType } from '../../../kube/resource-type.ts';
import type { Controller } from '../../../runtime/controller.ts';
import type { Manager } from '../../../runtime/manager.ts';
import { generationChanged, type Predicate } from '../../../runtime/predicates.ts';
import type { ReconcileContext, Request, Result } from '../../../runtime/types.ts';
import {
  PUSH_SECRET_FINALIZER,
  pushSecretType,
  secretStoreType,
  type PushSecret,
  type PushSecretStatus,
  type SecretStore,
} from '../../apis/eso.ts';
import { decidePush, failedStatus, refreshIntervalMs, syncedStatus } from './decide-push.ts';
import { KvClient } from './kv.ts';
import { deleteRemote, pushRemote } from './push.ts';
import { entryValue, secretStrings, storeKey, storeRefsOf } from './remote.ts';
import { kvClientFor, reconcileSecretStore, type KvAccess } from './store-controller.ts';

const ESO_ACTUATOR_NAME = 'eso-pushsecret-actuator';
const ESO_STORE_VALIDATOR_NAME = 'eso-secretstore-validator';

interface EsoActuatorOptions {
  /** Off by default; `openregion up` turns it on. */
  readonly enabled?: boolean;
  /** For the KV requests; defaults to undici's global dispatcher. */
  readonly dispatcher?: Dispatcher;
  /** SecretStore at the version the cluster serves (discoverStoreType); v1 when absent. */
  readonly storeType?: ResourceType<SecretStore>;
}

/** A push that cannot start (missing Secret or store, unsupported settings), as opposed to a KV error. */
class PushFailure extends Error {}

type Synced = NonNullable<NonNullable<PushSecret['status']>['syncedPushSecrets']>;

/** Our own status writes are not a reason for another pass; spec, metadata and finalizer changes are. */
const notStatusOnly: Predicate = (event) => {
  const old = event.oldObject?.metadata;
  const now = event.object.metadata;
  if (event.type !== 'update' || old === undefined) return true;
  return (
    old.generation !== now.generation ||
    old.deletionTimestamp !== now.deletionTimestamp ||
    JSON.stringify([old.labels, old.annotations, old.finalizers]) !==
      JSON.stringify([now.labels, now.annotations, now.finalizers])
  );
};

/** Registers the PushSecret actuator and the SecretStore validator; none when not enabled. */
export function registerEsoActuator(manager: Manager, options: EsoActuatorOptions = {}): Controller[] {
  if (options.enabled !== true) return [];
  const access = { dispatcher: options.dispatcher };
  const storeType = options.storeType ?? secretStoreType;
  const pushSecrets = manager
    .controller(ESO_ACTUATOR_NAME)
    .for(pushSecretType, { clusters: 'management', predicates: [notStatusOnly] })
    .complete((req, ctx) => {
      const client = manager.client(req.cluster);
      return client === undefined
        ? Promise.resolve({})
        : reconcilePushSecret(client, req, ctx, { ...options, storeType });
    });
  const stores = manager
    .controller(ESO_STORE_VALIDATOR_NAME)
    .for(storeType, { clusters: 'management', predicates: [generationChanged] })
    .complete((req, ctx) => {
      const client = manager.client(req.cluster);
      return client === undefined ? Promise.resolve({}) : reconcileSecretStore(client, storeType, req, ctx, access);
    });
  return [pushSecrets, stores];
}

/** One pass: read the PushSecret, take the decision's row, perform its one action. */
async function reconcilePushSecret(
  client: Client,
  req: Request,
  ctx: ReconcileContext,
  options: Pick<EsoActuatorOptions, 'dispatcher' | 'storeType'> = {},
): Promise<Result> {
  const ps = await getOptional(client, pushSecretType, req.namespace, req.name);
  if (ps === undefined) return {};
  const now = ctx.clock.now();
  const decision = decidePush(ps, now);
  ctx.log.debug({ row: decision.row }, 'pushsecret decision');
  const io = new StoreIo(client, req.namespace, options.storeType ?? secretStoreType, {
    dispatcher: options.dispatcher,
    signal: ctx.signal,
  });
  switch (decision.action) {
    case 'none':
      return {};
    case 'wait':
      return decision.requeueAfterMs === undefined ? {} : { requeueAfterMs: decision.requeueAfterMs };
    case 'add-finalizer':
      await setFinalizer(client, ps, true);
      return {};
    case 'remove-finalizer':
      await setFinalizer(client, ps, false);
      return {};
    case 'release':
      if (decision.deleteRemote) {
        await reportFailure(client, ps, now, 'error deleting secrets', () =>
          io.deleteAll(ps.status?.syncedPushSecrets),
        );
      }
      await setFinalizer(client, ps, false);
      return {};
    case 'push': {
      const synced = await reportFailure(client, ps, now, 'set secret failed', () => io.push(ps));
      await writeStatus(client, ps, syncedStatus(ps, synced, now));
      const interval = refreshIntervalMs(ps);
      return interval > 0 ? { requeueAfterMs: interval } : {};
    }
  }
}

/** Runs `work`; on failure sets Ready False (Errored) with `prefix: cause` and rethrows, so the runtime backs off. */
async function reportFailure<T>(client: Client, ps: PushSecret, now: number, prefix: string, work: () => Promise<T>) {
  try {
    return await work();
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    await writeStatus(client, ps, failedStatus(ps, `${prefix}: ${cause}`, now));
    throw error;
  }
}

async function writeStatus(client: Client, ps: PushSecret, status: PushSecretStatus): Promise<void> {
  if (JSON.stringify(status) === JSON.stringify(ps.status)) return;
  await client.update(pushSecretType, { ...ps, status }, { subresource: 'status' });
}

async function setFinalizer(client: Client, ps: PushSecret, present: boolean): Promise<void> {
  const others = (ps.metadata.finalizers ?? []).filter((f) => f !== PUSH_SECRET_FINALIZER);
  const finalizers = present ? [...others, PUSH_SECRET_FINALIZER] : others;
  await client.update(pushSecretType, { ...ps, metadata: { ...ps.metadata, finalizers } });
}

/** The I/O of a pass: stores, token Secrets, the source Secret and the KV API. */
class StoreIo {
  readonly #clients = new Map<string, KvClient>();
  readonly #client: Client;
  readonly #namespace: string;
  readonly #storeType: ResourceType<SecretStore>;
  readonly #access: KvAccess;

  constructor(client: Client, namespace: string, storeType: ResourceType<SecretStore>, access: KvAccess) {
    this.#client = client;
    this.#namespace = namespace;
    this.#storeType = storeType;
    this.#access = access;
  }

  async push(ps: PushSecret): Promise<Synced> {
    const sourceName = ps.spec.selector.secret?.name;
    if (sourceName === undefined) throw new PushFailure('only selector.secret.name is supported');
    const source = await this.#source(ps, sourceName);
    const strings = secretStrings(source);
    const synced: Synced = {};
    for (const ref of storeRefsOf(ps)) {
      if ('unsupported' in ref) throw new PushFailure(ref.unsupported);
      const kv = await this.#kv(ref.name);
      const entries: Record<string, Record<string, unknown>> = {};
      for (const entry of ps.spec.data ?? []) {
        const value = entryValue(entry, strings);
        if ('error' in value) throw new PushFailure(value.error);
        const { remoteKey, property } = entry.match.remoteRef;
        await pushRemote(kv, remoteKey, value.value, {
          merge: value.merge,
          ifNotExists: ps.spec.updatePolicy === 'IfNotExists',
        });
        entries[property === undefined || property === '' ? remoteKey : `${remoteKey}/${property}`] = { ...entry };
      }
      synced[storeKey('SecretStore', ref.name)] = entries;
    }
    // With Delete, keys pushed before but no longer in the spec are removed, as ESO does.
    if (ps.spec.deletionPolicy === 'Delete') await this.deleteAll(ps.status?.syncedPushSecrets, synced);
    return synced;
  }

  /** Deletes every remote key recorded in `synced`, except those still in `keep`. */
  async deleteAll(synced: Synced | undefined, keep: Synced = {}): Promise<void> {
    for (const [store, entries] of Object.entries(synced ?? {})) {
      const slash = store.indexOf('/');
      const [kind, name] = [store.slice(0, slash), store.slice(slash + 1)];
      if (slash < 0 || kind !== 'SecretStore') continue;
      for (const [statusRef, entry] of Object.entries(entries)) {
        if (keep[store]?.[statusRef] !== undefined) continue;
        const remoteRef = remoteRefOf(entry);
        if (remoteRef !== undefined) await deleteRemote(await this.#kv(name), remoteRef.remoteKey, remoteRef.property);
      }
    }
  }

  /** The source Secret; when it is gone under deletionPolicy Delete, the pushed keys go too, as ESO does. */
  async #source(ps: PushSecret, name: string): Promise<KubeObject> {
    try {
      return await this.#get(builtin.secret, name, 'could not get source secret');
    } catch (error) {
      if (error instanceof PushFailure && ps.spec.deletionPolicy === 'Delete') {
        await this.deleteAll(ps.status?.syncedPushSecrets);
      }
      throw error;
    }
  }

  async #kv(storeName: string): Promise<KvClient> {
    const cached = this.#clients.get(storeName);
    if (cached !== undefined) return cached;
    const store = await this.#get<SecretStore>(this.#storeType, storeName, `could not get SecretStore ${storeName}`);
    const kv = await kvClientFor(this.#client, store, this.#access);
    if (!(kv instanceof KvClient)) throw new PushFailure(kv.unusable);
    this.#clients.set(storeName, kv);
    return kv;
  }

  async #get<T extends KubeObject>(type: ResourceType<T>, name: string, what: string): Promise<T> {
    const object = await getOptional(this.#client, type, this.#namespace, name);
    if (object === undefined) throw new PushFailure(what);
    return object;
  }
}

function remoteRefOf(entry: Record<string, unknown>): { remoteKey: string; property?: string } | undefined {
  const match = entry['match'];
  const ref = typeof match === 'object' && match !== null ? (match as Record<string, unknown>)['remoteRef'] : undefined;
  if (typeof ref !== 'object' || ref === null) return undefined;
  const { remoteKey, property } = ref as Record<string, unknown>;
  if (typeof remoteKey !== 'string') return undefined;
  return typeof property === 'string' ? { remoteKey, property } : { remoteKey };
}
