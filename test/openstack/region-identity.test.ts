/**
 * Contract: the region provider's identity create and delete (src/region/openstack/identity/) with the region's
 * non-admin credential from `region configure` (clouds.yaml devcloud-region; in the emulator, the same call), the
 * roles `region register` writes, and the OpenstackIdentity record in an embedded store.
 *
 * On the real cloud the interruption test stops creation after each call that creates something (the POSTs: the
 * cases where a lost answer leaves a resource the next pass must re-find); the fast suite interrupts after every
 * call on the emulator.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EmbeddedStore } from '../../src/kube/embedded/store.ts';
import { listKeypairs, listServerGroups } from '../../src/openstack/compute.ts';
import { listApplicationCredentials, listProjects, listUsers } from '../../src/openstack/identity.ts';
import { openstackIdentityType } from '../../src/region/apis/index.ts';
import type { IdentityInput } from '../../src/region/provider/inputs.ts';
import { Outcome } from '../../src/region/provider/outcome.ts';
import { createIdentity, deleteIdentity } from '../../src/region/openstack/identity/lifecycle.ts';
import { unbase64 } from '../../src/region/openstack/identity/record.ts';
import { publicKeyMaterial, publicKeyOf } from '../../src/region/openstack/identity/secrets.ts';
import { IDENTITY_KEYPAIR_NAME, identityName } from '../../src/region/openstack/names.ts';
import type { RegionCredentials } from '../../src/region/openstack/principals.ts';
import type { RecordingTransport } from '../../src/region/openstack/testing/region.ts';
import { contractCloud } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const NS = REGION_NAMESPACE;
const REGION = randomUUID();

describe('region identities (the region credential from `region configure`)', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  let regions: ContractRegions;
  let store: EmbeddedStore;
  let transport: RecordingTransport;
  let credentials: RegionCredentials;
  const made: IdentityInput[] = [];
  const ctx = { signal: new AbortController().signal };

  before(async () => {
    regions = await contractRegions(c, [{ id: REGION }]);
    ({ store, transport, credentials } = regions);
  });
  after(async () => {
    // Whatever a failed test left behind goes, whatever state it stopped in.
    for (const identity of made) await deleteIdentity(await region(), { kube: store }, ctx, identity).catch(() => {});
    await regions.close();
    await c.close();
  });

  // One registry: the provider keeps nothing between passes but tokens, so a pass after an interruption sees
  // exactly what a restarted process would (and the real Keystone's password hashing is not paid every pass).
  const region = () => regions.lookup(REGION);
  const deps = () => ({ kube: store });
  const newIdentity = (): IdentityInput => {
    const identity = { id: randomUUID(), organizationID: 'ct-org', projectID: 'ct-project', regionID: REGION };
    made.push(identity);
    return identity;
  };
  const record = (id: string) => store.get(openstackIdentityType, NS, id);

  async function assertConverged(identity: IdentityInput): Promise<void> {
    const admin = c.admin.client('identity');
    const name = identityName(identity.id);
    const { spec } = await record(identity.id);
    const projects = await listProjects(admin, { domainID: credentials.domainID, name });
    const users = await listUsers(admin, { domainID: credentials.domainID, name });
    assert.deepEqual(
      projects.map((p) => p.id),
      [spec.projectID],
      'one project',
    );
    assert.deepEqual(
      users.map((u) => u.id),
      [spec.userID],
      'one user',
    );
    const groups = await listServerGroups(c.admin.client('compute'), { allProjects: true });
    assert.deepEqual(
      groups.filter((g) => g.name === name).map((g) => g.id),
      [spec.serverGroupID],
      'one server group',
    );
    // Application credentials and keypairs are their user's: listed as the identity user, with the record's password.
    const own = c.sessionFor(
      { type: 'password', user: { id: spec.userID ?? '' }, password: spec.password ?? '' },
      { kind: 'project', project: { id: spec.projectID ?? '' } },
    );
    const credentialsOfUser = await listApplicationCredentials(own.client('identity'), spec.userID ?? '');
    assert.deepEqual(
      credentialsOfUser.map((a) => a.id),
      [spec.applicationCredentialID],
      'one application credential',
    );
    const appCred = c.sessionFor(
      {
        type: 'application_credential',
        id: spec.applicationCredentialID ?? '',
        secret: spec.applicationCredentialSecret ?? '',
      },
      { kind: 'unscoped' },
    );
    assert.equal((await appCred.token()).project?.id, spec.projectID);
    const keypairs = await listKeypairs(own.client('compute'));
    assert.deepEqual(
      keypairs.map((k) => k.name),
      [IDENTITY_KEYPAIR_NAME],
      'one keypair',
    );
    const recorded = publicKeyOf(unbase64(spec.sshPrivateKey ?? ''));
    assert.equal(publicKeyMaterial(keypairs[0]?.public_key ?? ''), publicKeyMaterial(recorded ?? ''));
  }

  async function assertGone(identity: IdentityInput): Promise<void> {
    const admin = c.admin.client('identity');
    const name = identityName(identity.id);
    assert.deepEqual(await listProjects(admin, { domainID: credentials.domainID, name }), []);
    assert.deepEqual(await listUsers(admin, { domainID: credentials.domainID, name }), []);
    const groups = await listServerGroups(c.admin.client('compute'), { allProjects: true });
    assert.deepEqual(
      groups.filter((g) => g.name === name),
      [],
    );
    await assert.rejects(record(identity.id), /not found/);
  }

  it('creates an identity, converges again without creating, and deletes everything', async () => {
    const identity = newIdentity();
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertConverged(identity);
    const start = transport.requests.length;
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    const creates = transport.requests
      .slice(start)
      .filter((r) => r.method === 'POST' && r.urlTemplate !== '/auth/tokens');
    assert.deepEqual(creates, [], 'a converged pass creates nothing');
    assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertGone(identity);
  });

  it('converges after creation is interrupted right after each call that creates something', async () => {
    const probe = newIdentity();
    const start = transport.requests.length;
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, probe), Outcome.ok());
    const points = transport.requests
      .slice(start)
      .flatMap((r, i) => (r.method === 'POST' && r.urlTemplate !== '/auth/tokens' ? [i + 1] : []));
    assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, probe), Outcome.ok());
    assert.ok(points.length >= 5, `creations at requests ${points.join(', ')}`);

    for (const n of points) {
      const identity = newIdentity();
      transport.interruptAfter(n);
      await assert.rejects(
        createIdentity(await region(), deps(), ctx, identity),
        `interrupted after request ${String(n)}`,
      );
      transport.interruptAfter(undefined);
      assert.deepEqual(
        await createIdentity(await region(), deps(), ctx, identity),
        Outcome.ok(),
        `after request ${String(n)}`,
      );
      await assertConverged(identity);
      assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
      await assertGone(identity);
    }
  });
});
