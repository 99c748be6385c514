import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cloudFixture, type CloudFixture } from '../../../emulator/testing/cloud.ts';
import type { KubeObject } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { listUsers } from '../../../openstack/identity.ts';
import { FakeClient } from '../../../runtime/testing/fake-client.ts';
import { classifyKorcFailure } from '../../user/external-mode.ts';
import { cloudsSecret } from '../testing/real-crds.ts';
import { CloudCredentials, CloudCredentialsError } from './credentials.ts';

const NS = 'openstack';
let cloud: CloudFixture;
before(async () => {
  cloud = await cloudFixture();
});
after(() => cloud.close());

const ref = (secretName: string, cloudName = 'admin') => ({ secretName, cloudName });

async function setup(...secrets: KubeObject[]) {
  const client = new FakeClient();
  for (const s of secrets) await client.create(builtin.secret, s);
  const credentials = new CloudCredentials({ client, clock: cloud.clock });
  return { client, credentials };
}

const failure = async (credentials: CloudCredentials, secretName: string, cloudName?: string) => {
  const error = await credentials.identity(NS, ref(secretName, cloudName)).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof CloudCredentialsError, String(error));
  return error.message;
};

describe('CloudCredentials: the Secret a cloudCredentialsRef names, read as K-ORC reads it', () => {
  it('authenticates with the named cloud and reuses the session until the Secret changes', async () => {
    const { client, credentials } = await setup(
      cloudsSecret(NS, 'k-orc-clouds-yaml', cloud.emulator.cloudsYaml('admin')),
    );
    const identity = await credentials.identity(NS, ref('k-orc-clouds-yaml'));
    assert.ok((await listUsers(identity, { domainID: 'default', name: 'admin' })).length === 1);
    assert.equal(await credentials.identity(NS, ref('k-orc-clouds-yaml')), identity);
    const live = await client.get(builtin.secret, NS, 'k-orc-clouds-yaml');
    await client.update(builtin.secret, { ...live, metadata: { ...live.metadata, labels: { touched: 'yes' } } });
    assert.notEqual(await credentials.identity(NS, ref('k-orc-clouds-yaml')), identity);
    await credentials.close();
  });

  it("says what is wrong in K-ORC's words: no Secret, no key, no such cloud", async () => {
    const { credentials } = await setup(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'empty', namespace: NS }, data: {} },
      cloudsSecret(NS, 'clouds', cloud.emulator.cloudsYaml('admin')),
    );
    assert.equal(await failure(credentials, 'absent'), 'Secret "absent" not found');
    assert.equal(
      await failure(credentials, 'empty'),
      'OpenStack credentials secret empty did not contain key clouds.yaml',
    );
    assert.equal(await failure(credentials, 'clouds', 'other'), 'no cloud named: other, in the provided config');
  });

  it('a refused password is an authentication failure the KeystoneUser reconciler classifies as such', async () => {
    const wrong = cloud.emulator.cloudsYaml('admin').replace(/password: .*/, 'password: not-the-password');
    const { credentials } = await setup(cloudsSecret(NS, 'wrong', wrong));
    const message = await failure(credentials, 'wrong');
    assert.match(message, /^providerClient authentication err: /);
    assert.equal(classifyKorcFailure(message), 'AuthenticationFailed');
    // Not remembered: a corrected Secret works on the next pass.
    await credentials.close();
  });
});
