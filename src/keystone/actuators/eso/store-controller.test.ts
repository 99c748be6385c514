/**
 * One SecretStore validation pass against a real HTTP endpoint: a KV server that is not listening yet (as at start,
 * when the store and its server come up together) reads ValidationFailed but is looked at again within seconds, not
 * ESO's five minutes; once it answers, the store is Ready and revalidated on ESO's cadence. A refused token is not
 * transient.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import type { EmbeddedStore } from '../../../kube/embedded/store.ts';
import type { KubeObject } from '../../../kube/object.ts';
import { apiVersionOf, builtin, type ResourceType } from '../../../kube/resource-type.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { ManualClock } from '../../../util/clock.ts';
import type { SecretStore } from '../../apis/eso.ts';
import { discoverStoreType } from '../../apis/store-versions.ts';
import { storeWithRealCrds } from '../testing/real-crds.ts';
import { STORE_RETRY_MS, STORE_REVALIDATE_MS } from './decide-store.ts';
import { reconcileSecretStore } from './store-controller.ts';

const NS = 'tenant';
const TOKEN = 'tok';

/** A port nothing listens on: bound, then released. */
async function releasedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Vault's token lookup: 200 for the token, 403 otherwise. */
function kvServer(): Server {
  return createServer((req, res) => {
    const ok = req.url === '/v1/auth/token/lookup-self' && req.headers['x-vault-token'] === TOKEN;
    res.writeHead(ok ? 200 : 403, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { data: { id: TOKEN } } : { errors: ['permission denied'] }));
  });
}

describe('SecretStore validation pass', () => {
  const clock = new ManualClock();
  let store: EmbeddedStore;
  let storeType: ResourceType<SecretStore>;
  let server: Server | undefined;
  let port: number;
  const ctx = { signal: new AbortController().signal, log: createLogger({ level: 'silent' }), clock };
  const pass = () => reconcileSecretStore(store, storeType, { cluster: '', namespace: NS, name: 'kv' }, ctx, {});
  const ready = async () =>
    (await store.get<SecretStore>(storeType, NS, 'kv')).status?.conditions?.find((c) => c.type === 'Ready');
  const tokenData = (value: string) => ({ token: Buffer.from(value).toString('base64') });
  const token = (value: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'kv-token', namespace: NS },
    data: tokenData(value),
  });

  before(async () => {
    store = await storeWithRealCrds(clock, { eso: 'v2.9' });
    storeType = (await discoverStoreType(store, 'SecretStore')) ?? assert.fail('SecretStore served');
    port = await releasedPort();
    await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await store.create(builtin.secret, token(TOKEN));
    await store.create(storeType, {
      apiVersion: apiVersionOf(storeType),
      kind: 'SecretStore',
      metadata: { name: 'kv', namespace: NS },
      spec: {
        provider: {
          vault: {
            server: `http://127.0.0.1:${String(port)}`,
            path: 'kv-v2',
            version: 'v2',
            auth: { tokenSecretRef: { name: 'kv-token', key: 'token' } },
          },
        },
      },
    });
  });
  after(async () => {
    const listening = server;
    if (listening !== undefined) await new Promise((resolve) => listening.close(resolve));
    await store.close();
  });

  it('a KV endpoint not listening yet: ValidationFailed, retried within seconds', async () => {
    assert.deepEqual(await pass(), { requeueAfterMs: STORE_RETRY_MS });
    const condition = await ready();
    assert.deepEqual([condition?.status, condition?.reason], ['False', 'ValidationFailed']);
  });

  it('once it listens, the retry finds it: Ready, Valid, revalidated every five minutes', async () => {
    server = kvServer();
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    assert.deepEqual(await pass(), { requeueAfterMs: STORE_REVALIDATE_MS });
    const condition = await ready();
    assert.deepEqual([condition?.status, condition?.reason], ['True', 'Valid']);
  });

  it('a refused token is not transient: ValidationFailed, on the five-minute cadence', async () => {
    const live = await store.get<KubeObject>(builtin.secret, NS, 'kv-token');
    await store.update(builtin.secret, { ...live, data: tokenData('wrong') });
    assert.deepEqual(await pass(), { requeueAfterMs: STORE_REVALIDATE_MS });
    assert.equal((await ready())?.reason, 'ValidationFailed');
  });
});
