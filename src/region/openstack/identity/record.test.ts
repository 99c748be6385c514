import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { type EmbeddedStore } from '../../../kube/embedded/store.ts';
import { ManualClock } from '../../../util/clock.ts';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import { CachedClient, type CacheSource } from '../../../runtime/cached-client.ts';
import { labels, openstackIdentityType } from '../../apis/index.ts';
import { cloudsYaml, identityCredentialsOf, IdentityRecords, unbase64 } from './record.ts';
import { generateSshKeypair, type IdentitySecretSource } from './secrets.ts';
import { openRegionStore } from '../../apis/testing/store.ts';

const NS = 'default';
let store: EmbeddedStore;
let n = 0;
const source: IdentitySecretSource = {
  password: () => `pw-${String(++n)}`,
  applicationCredentialSecret: () => `acs-${String(++n)}`,
  sshKeypair: () => generateSshKeypair(n),
};
const identity = (id: string) => ({ id, organizationID: 'org', projectID: 'proj', regionID: 'region' });

before(async () => {
  store = await openRegionStore(new ManualClock());
});
after(() => store.close());

describe('OpenstackIdentity records', () => {
  it('are made with every secret and the tenancy labels, and keep their secrets on later passes', async () => {
    const records = new IdentityRecords(store, NS);
    const first = await records.withSecrets(identity('a'), source);
    assert.equal(first.secrets.password, first.record.spec.password);
    assert.match(first.secrets.sshPrivateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----/);
    assert.equal(unbase64(first.record.spec.sshPrivateKey ?? ''), first.secrets.sshPrivateKey);
    const recordLabels = first.record.metadata.labels ?? {};
    assert.equal(recordLabels[labels.identityID], 'a');
    assert.equal(recordLabels[labels.organization], 'org');
    const again = await records.withSecrets(identity('a'), source);
    assert.deepEqual(again.secrets, first.secrets);
  });

  it('save writes only what changed; realised needs a project id; credentials need project, user and password', async () => {
    const records = new IdentityRecords(store, NS);
    const { record } = await records.withSecrets(identity('b'), source);
    assert.equal(await records.realised('b'), undefined);
    assert.equal(identityCredentialsOf(record), undefined);
    const saved = await records.save(record, { projectID: 'p1' });
    assert.equal(await records.save(saved, { projectID: 'p1' }), saved, 'no write when nothing changes');
    assert.deepEqual(await records.realised('b'), { identityID: 'b', projectID: 'p1' });
    const withUser = await records.save(saved, { userID: 'u1' });
    assert.deepEqual(identityCredentialsOf(withUser), {
      projectID: 'p1',
      userID: 'u1',
      password: record.spec.password,
    });
    await records.delete('b');
    await records.delete('b');
    assert.equal(await records.get('b'), undefined);
    assert.equal(await records.realised('b'), undefined);
  });

  it('read through a lagging cache, a record lacking its project, credentials or secrets is read again live', async () => {
    const plain = new IdentityRecords(store, NS);
    const { record } = await plain.withSecrets(identity('c'), source);
    // An informer that saw the record's creation and nothing since: the project, user and secrets the API server
    // holds now are not in it.
    const early = { ...record, spec: { password: record.spec.password ?? '' } };
    const lagging: CacheSource = {
      peek: <T extends KubeObject>(type: ResourceType<T>, _ns: string | undefined, name: string) =>
        type.plural === openstackIdentityType.plural && name === 'c' ? (early as unknown as T) : undefined,
    };
    await plain.save(await plain.withSecrets(identity('c'), source).then((r) => r.record), {
      projectID: 'p2',
      userID: 'u2',
    });
    const stored = (await store.get(openstackIdentityType, NS, 'c')).spec;
    const records = new IdentityRecords(new CachedClient(store, [lagging]), NS);
    // A delete takes "no project" as "nothing was realised": never from the lagging copy.
    assert.deepEqual(await records.realised('c'), { identityID: 'c', projectID: 'p2' });
    assert.equal((await records.withUser('c'))?.credentials.userID, 'u2');
    // And no secret is made anew over the one the API server holds.
    const again = await records.withSecrets(identity('c'), source);
    assert.equal(again.record.spec.applicationCredentialSecret, stored.applicationCredentialSecret);
    assert.equal(again.record.spec.sshPrivateKey, stored.sshPrivateKey);
  });

  it('clouds.yaml names one cloud, `cloud`, authenticating with the application credential', () => {
    assert.deepEqual(parse(cloudsYaml('https://keystone/v3', { id: 'id1', secret: 's1' })), {
      clouds: {
        cloud: {
          auth_type: 'v3applicationcredential',
          auth: {
            auth_url: 'https://keystone/v3',
            application_credential_id: 'id1',
            application_credential_secret: 's1',
          },
        },
      },
    });
  });
});
