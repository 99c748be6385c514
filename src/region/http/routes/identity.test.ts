import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { identityType, labels, openstackIdentityType } from '../../apis/index.ts';
import {
  apiFixture,
  call,
  createNetwork,
  NAMESPACE,
  ORG_A,
  ORG_B,
  PROJECT_A,
  PROJECT_B,
  REGION_ID,
  violationsOf,
  type ApiFixture,
} from '../testing/api.ts';

interface IdentityRead {
  metadata: { id: string; name: string; organizationId: string; projectId: string; tags?: unknown };
  spec: { type: string; regionId: string; openstack?: Record<string, unknown> };
}

describe('/api/v1/…/identities', () => {
  let f: ApiFixture;
  const collection = (org = ORG_A, project = PROJECT_A) =>
    `/api/v1/organizations/${org}/projects/${project}/identities`;
  const create = (name = 'cluster-1', regionID = REGION_ID, org = ORG_A, project = PROJECT_A) =>
    call<IdentityRead>(f, f.tokens.a, 'POST', collection(org, project), {
      metadata: { name, tags: [{ name: 'cluster-id', value: 'c1' }] },
      spec: { regionId: regionID },
    });

  before(async () => {
    f = await apiFixture();
  });
  after(() => f.close());

  it('creates the Identity object v2 makes implicitly: same kind, labels and ownership (201)', async () => {
    const { status, body } = await create();
    assert.equal(status, 201);
    assert.deepEqual(body.spec, { type: 'openstack', regionId: REGION_ID });
    assert.deepEqual([body.metadata.organizationId, body.metadata.projectId], [ORG_A, PROJECT_A]);
    const stored = await f.store.get(identityType, NAMESPACE, body.metadata.id);
    const l = stored.metadata.labels ?? {};
    assert.deepEqual(
      [l[labels.organization], l[labels.project], l[labels.regionID], l[labels.name]],
      [ORG_A, PROJECT_A, REGION_ID, 'cluster-1'],
    );
    assert.equal(stored.spec.provider, 'openstack');
    assert.deepEqual(stored.spec.tags, [{ name: 'cluster-id', value: 'c1' }]);
  });

  it('reads where the identity lives in OpenStack, and never a credential', async () => {
    const id = (await create('with-record')).body.metadata.id;
    await f.store.create(openstackIdentityType, {
      apiVersion: 'region.unikorn-cloud.org/v1alpha1',
      kind: 'OpenstackIdentity',
      metadata: { name: id, namespace: NAMESPACE },
      spec: {
        cloud: 'cloud',
        cloudConfig: Buffer.from('clouds: {cloud: {auth: {application_credential_secret: s3cret-app}}}').toString(
          'base64',
        ),
        userID: 'keystone-user',
        password: 's3cret-password',
        projectID: 'keystone-project',
        applicationCredentialID: 'app-cred',
        applicationCredentialSecret: 's3cret-app',
        serverGroupID: 'server-group',
        sshKeyName: 'unikorn-openstack-provider',
        sshPrivateKey: Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----').toString('base64'),
      },
    });
    const { status, body } = await call<IdentityRead>(f, f.tokens.a, 'GET', `${collection()}/${id}`);
    assert.equal(status, 200);
    assert.deepEqual(body.spec.openstack, {
      cloud: 'cloud',
      userId: 'keystone-user',
      projectId: 'keystone-project',
      serverGroupId: 'server-group',
      sshKeyName: 'unikorn-openstack-provider',
    });
    const text = JSON.stringify(body);
    for (const secret of ['s3cret', 'PRIVATE KEY', 'cloudConfig', 'app-cred'])
      assert.ok(!text.includes(secret), secret);
  });

  it("lists the organization's identities, v2 networks' implicit ones among them", async () => {
    await createNetwork(f, f.tokens.a);
    const { status, body } = await call<IdentityRead[]>(
      f,
      f.tokens.a,
      'GET',
      `/api/v1/organizations/${ORG_A}/identities`,
    );
    assert.equal(status, 200);
    const names = body.map((i) => i.metadata.name);
    assert.ok(names.includes('cluster-1') && names.includes('networkv2-service-principal'), names.join());
  });

  it('refuses an organization or project the token does not hold (403) and an unknown region (400), writing nothing', async () => {
    const before = await f.snapshot();
    assert.equal((await create('x', REGION_ID, ORG_B, PROJECT_B)).status, 403);
    assert.equal(
      (
        await call(f, f.tokens.aProjectOnly, 'POST', collection(ORG_A, PROJECT_B), {
          metadata: { name: 'x' },
          spec: { regionId: REGION_ID },
        })
      ).status,
      403,
    );
    const unknown = await create('x', '00000000-0000-4000-8000-0000000000aa');
    assert.equal(unknown.status, 400);
    assert.deepEqual(violationsOf(unknown.body), ['spec.regionId:exists']);
    assert.deepEqual(await f.snapshot(), before);
  });

  it('an identity is not found under another project, and is deleted in the foreground (202)', async () => {
    const id = (await create('doomed')).body.metadata.id;
    assert.equal((await call(f, f.tokens.a, 'GET', `${collection(ORG_A, 'project-other')}/${id}`)).status, 404);
    const deleted = await call(f, f.tokens.a, 'DELETE', `${collection()}/${id}`);
    assert.equal(deleted.status, 202);
    assert.equal(deleted.body, undefined);
    // Foreground, as upstream: the store holds the identity until what it owns is gone.
    const left = await f.store.get(identityType, NAMESPACE, id);
    assert.ok(left.metadata.deletionTimestamp !== undefined);
    assert.deepEqual(left.metadata.finalizers, ['foregroundDeletion']);
    assert.equal((await call(f, f.tokens.a, 'DELETE', `${collection()}/${id}`)).status, 202, 'again: still accepted');
  });
});
