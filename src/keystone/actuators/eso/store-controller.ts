/** The I/O around SecretStores: a KV client for a store, and one validation pass over a store. */
import type { Dispatcher } from 'undici';
import { getOptional, type Client } from '../../../kube/client.ts';
import { builtin, type ResourceType } from '../../../kube/resource-type.ts';
import type { ReconcileContext, Request, Result } from '../../../runtime/types.ts';
import type { SecretStore } from '../../apis/eso.ts';
import { KvClient, KvHttpError, KvTransportError } from './kv.ts';
import { secretStrings, vaultStoreOf } from './remote.ts';
import { decideStore, storeStatus, type StoreCheck } from './decide-store.ts';
import { defined } from '../../../util/defined.ts';

export interface KvAccess {
  readonly dispatcher?: Dispatcher | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A KV client for the store's server, mount and token, or why the store cannot give one. */
export async function kvClientFor(
  client: Client,
  store: SecretStore,
  access: KvAccess,
): Promise<KvClient | { readonly unusable: string }> {
  const vault = vaultStoreOf(store);
  if ('unsupported' in vault) return { unusable: vault.unsupported };
  const tokenSecret = await getOptional(client, builtin.secret, store.metadata.namespace, vault.tokenSecret.name);
  if (tokenSecret === undefined) return { unusable: 'could not get the token secret' };
  const token = secretStrings(tokenSecret)[vault.tokenSecret.key];
  if (token === undefined || token === '') return { unusable: `token secret has no key ${vault.tokenSecret.key}` };
  return new KvClient({
    server: vault.server,
    mount: vault.mount,
    token,
    ...defined({ dispatcher: access.dispatcher, signal: access.signal }),
  });
}

async function checkStore(client: Client, store: SecretStore, access: KvAccess): Promise<StoreCheck> {
  const kv = await kvClientFor(client, store, access);
  if (!(kv instanceof KvClient)) return { kind: 'invalid-config', detail: kv.unusable };
  try {
    await kv.lookupSelf();
    return { kind: 'valid' };
  } catch (error) {
    if (error instanceof KvTransportError || (error instanceof KvHttpError && error.status >= 500)) {
      return { kind: 'unreachable', detail: error.message };
    }
    if (error instanceof KvHttpError) return { kind: 'validation-failed', detail: error.message };
    throw error;
  }
}

/** One pass: check the store, write Ready as ESO does, and validate again when the decision says. */
export async function reconcileSecretStore(
  client: Client,
  storeType: ResourceType<SecretStore>,
  req: Request,
  ctx: ReconcileContext,
  access: Omit<KvAccess, 'signal'>,
): Promise<Result> {
  const store = await getOptional(client, storeType, req.namespace, req.name);
  if (store === undefined) return {};
  const check = await checkStore(client, store, { ...access, signal: ctx.signal });
  const decision = decideStore(check);
  ctx.log.debug({ row: decision.row, ...('detail' in check ? { detail: check.detail } : {}) }, 'secretstore decision');
  const status = storeStatus(store, decision, ctx.clock.now());
  if (JSON.stringify(status) !== JSON.stringify(store.status)) {
    await client.update(storeType, { ...store, status }, { subresource: 'status' });
  }
  return { requeueAfterMs: decision.requeueAfterMs };
}
