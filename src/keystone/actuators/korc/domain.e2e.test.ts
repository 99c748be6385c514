/** The K-ORC Domain actuator against the emulator, and a User placed in a managed Domain through domainRef. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cloudFixture, type CloudFixture } from '../../../emulator/testing/cloud.ts';
import type { EmbeddedStore } from '../../../kube/embedded/store.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { getDomain, listDomains, listUsers } from '../../../openstack/identity.ts';
import { silentLogger } from '../../../runtime/logger.ts';
import type { ReconcileContext } from '../../../runtime/types.ts';
import { korcDomainType, korcUserType, type KorcDomain, type KorcUser } from '../../apis/index.ts';
import { cloudsSecret, storeWithRealCrds } from '../testing/real-crds.ts';
import { CloudCredentials } from './credentials.ts';
import { domainActuator, KORC_DOMAIN_FINALIZER } from './domain.ts';
import { runPass } from './pass.ts';
import { userActuator } from './user.ts';

const NS = 'default';
const credentials = { secretName: 'openstack-clouds', cloudName: 'admin' };
let cloud: CloudFixture;
let store: EmbeddedStore;
let cc: CloudCredentials;

before(async () => {
  cloud = await cloudFixture();
  store = await storeWithRealCrds(cloud.clock);
  await store.create(builtin.secret, cloudsSecret(NS, credentials.secretName, cloud.emulator.cloudsYaml('admin')));
  cc = new CloudCredentials({ client: store, clock: cloud.clock });
});
after(async () => {
  await cc.close();
  await store.close();
  await cloud.close();
});

const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: silentLogger(), clock: cloud.clock });
const identity = () => cloud.admin.client('identity');
const req = (name: string) => ({ cluster: '', namespace: NS, name });
const options = () => ({ client: store, pollMs: 10_000 });
const identityFor = (o: KorcDomain | KorcUser) => cc.identity(o.metadata.namespace ?? '', o.spec.cloudCredentialsRef);
const domainPass = (name: string) => runPass(domainActuator(identityFor), options(), req(name), ctx());
const userPass = (name: string) =>
  runPass(userActuator({ client: store, identityFor, defaultDomainID: 'default' }), options(), req(name), ctx());
const available = (o: KorcDomain | KorcUser) =>
  o.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True';

describe('K-ORC Domain actuator against the emulator', () => {
  it('creates a managed Domain; a User with domainRef waits for it, then lands in it; delete removes the Domain', async () => {
    await store.create(korcUserType, {
      apiVersion: 'openstack.k-orc.cloud/v1alpha1',
      kind: 'User',
      metadata: { name: 'svc', namespace: NS },
      spec: { cloudCredentialsRef: credentials, resource: { name: 'svc-in-tenant', domainRef: 'tenant' } },
    });
    await userPass('svc');
    const waiting = await store.get(korcUserType, NS, 'svc');
    assert.equal(
      waiting.status?.conditions?.find((c) => c.type === 'Progressing')?.message,
      'Waiting for Domain/tenant to be created',
    );
    await store.create(korcDomainType, {
      apiVersion: 'openstack.k-orc.cloud/v1alpha1',
      kind: 'Domain',
      metadata: { name: 'tenant', namespace: NS },
      spec: { cloudCredentialsRef: credentials, resource: { name: 'tenant-domain', description: 'a tenant' } },
    });
    await domainPass('tenant');
    const domain = await store.get(korcDomainType, NS, 'tenant');
    assert.ok(available(domain));
    assert.ok(domain.metadata.finalizers?.includes(KORC_DOMAIN_FINALIZER));
    const id = domain.status?.id ?? '';
    assert.equal((await getDomain(identity(), id)).name, 'tenant-domain');
    await userPass('svc');
    const user = await store.get(korcUserType, NS, 'svc');
    assert.ok(available(user));
    assert.equal(user.status?.resource?.domainID, id);
    assert.equal((await listUsers(identity(), { domainID: id, name: 'svc-in-tenant' })).length, 1);

    await store.delete(korcUserType, NS, 'svc');
    await userPass('svc');
    await store.delete(korcDomainType, NS, 'tenant');
    await domainPass('tenant');
    await assert.rejects(store.get(korcDomainType, NS, 'tenant'));
    assert.equal((await listDomains(identity(), { name: 'tenant-domain' })).length, 0);
  });

  it('imports an existing Domain by filter and leaves it on delete', async () => {
    await store.create(korcDomainType, {
      apiVersion: 'openstack.k-orc.cloud/v1alpha1',
      kind: 'Domain',
      metadata: { name: 'dflt', namespace: NS },
      spec: {
        cloudCredentialsRef: credentials,
        managementPolicy: 'unmanaged',
        import: { filter: { name: 'Default' } },
      },
    });
    await domainPass('dflt');
    const domain = await store.get(korcDomainType, NS, 'dflt');
    assert.ok(available(domain));
    assert.equal(domain.status?.id, 'default');
    await store.delete(korcDomainType, NS, 'dflt');
    await domainPass('dflt');
    await assert.rejects(store.get(korcDomainType, NS, 'dflt'));
    assert.equal((await getDomain(identity(), 'default')).name, 'Default');
  });
});
