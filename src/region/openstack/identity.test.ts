/**
 * Identity create and delete against the emulator, with the OpenstackIdentity record in an embedded store: the
 * happy path, idempotency, the interruption test (issue 6, Done means 2), the scoping test and the secret scan.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { getQuotaSet as getComputeQuota, listServerGroups } from '../../openstack/compute.ts';
import { getNetworkQuota } from '../../openstack/network.ts';
import { listApplicationCredentials, listProjects, listUsers, setUserPassword } from '../../openstack/identity.ts';
import { createLogger } from '../../runtime/logger.ts';
import { API_VERSION, openstackIdentityType, regionType, type OpenstackIdentity, type Region } from '../apis/index.ts';
import { ResourceNotFoundError } from '../provider/errors.ts';
import { toOperatorLog, toUserMessage } from '../provider/messages.ts';
import type { IdentityInput } from '../provider/inputs.ts';
import { Outcome } from '../provider/outcome.ts';
import { createIdentity, deleteIdentity, identityLookup, type IdentityDeps } from './identity.ts';
import { unbase64 } from './identity-record.ts';
import { generateSshKeypair, publicKeyMaterial, publicKeyOf, type IdentitySecretSource } from './identity-secrets.ts';
import { IDENTITY_KEYPAIR_NAME, identityName, organizationTag, projectTag } from './names.ts';
import type { RegionContext } from './providers.ts';
import { regionFixture, type RegionFixture } from './testing/region-fixture.ts';

let fx: RegionFixture;
const logLines: string[] = [];
const generated: string[] = [];

/** Recognisable secrets, each remembered, so the scan below knows exactly what must never appear. */
const secrets: IdentitySecretSource = {
  password: () => remember(`pw-${randomUUID()}`),
  applicationCredentialSecret: () => remember(`acs-${randomUUID()}`),
  sshKeypair: () => {
    const key = generateSshKeypair(42);
    remember(key.privateKey);
    return key;
  },
};
function remember<T extends string>(secret: T): T {
  generated.push(secret);
  return secret;
}

const log = createLogger({
  level: 'debug',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
});
const deps = (): IdentityDeps => ({ kube: fx.store, secrets, log });
const ctx = { signal: new AbortController().signal };

before(async () => {
  fx = await regionFixture();
});
after(() => fx.close());

const region = async (): Promise<RegionContext> => (await fx.providers()).lookup(fx.region.metadata.name);
const newIdentity = (): IdentityInput => ({
  id: randomUUID(),
  organizationID: `org-${randomUUID()}`,
  projectID: `proj-${randomUUID()}`,
  regionID: fx.region.metadata.name,
});
const record = (id: string) => fx.store.get<OpenstackIdentity>(openstackIdentityType, fx.namespace, id);

/** Everything under the identity's names, listed as the cloud admin (keypairs from the emulator's own state). */
async function inventory(identity: IdentityInput) {
  const admin = fx.adminIdentity();
  const name = identityName(identity.id);
  const projects = await listProjects(admin, { domainId: fx.credentials.domainID, name });
  const users = await listUsers(admin, { domainId: fx.credentials.domainID, name });
  const credentials = (await Promise.all(users.map((u) => listApplicationCredentials(admin, u.id)))).flat();
  const groups = (await listServerGroups(fx.cloud.admin.client('compute'), { allProjects: true })).filter(
    (g) => g.name === name,
  );
  // The emulator's Nova does not list another user's keypairs (`?user_id=`), so its state is read instead.
  const nova = fx.cloud.emulator.control.dump()['nova'] as { keypairs: { name: string; userId: string }[] };
  const keypairs = nova.keypairs.filter((k) => users.some((u) => u.id === k.userId));
  return { projects, users, credentials, groups, keypairs };
}

/** Exactly one of each, each usable with what the record holds. */
async function assertConverged(identity: IdentityInput): Promise<void> {
  const found = await inventory(identity);
  assert.equal(found.projects.length, 1, 'one project');
  assert.equal(found.users.length, 1, 'one user');
  assert.equal(found.credentials.length, 1, 'one application credential');
  assert.equal(found.groups.length, 1, 'one server group');
  assert.deepEqual(
    found.keypairs.map((k) => k.name),
    [IDENTITY_KEYPAIR_NAME],
    'one keypair',
  );
  const project = found.projects[0] ?? assert.fail('a project');
  assert.ok(project.tags.includes(organizationTag(identity.organizationID)));
  assert.ok(project.tags.includes(projectTag(identity.projectID)));

  const { spec } = await record(identity.id);
  assert.equal(spec.projectID, project.id);
  assert.equal(spec.userID, found.users[0]?.id);
  assert.equal(spec.applicationCredentialID, found.credentials[0]?.id);
  assert.equal(spec.serverGroupID, found.groups[0]?.id);
  assert.equal(spec.sshKeyName, IDENTITY_KEYPAIR_NAME);
  const password = await fx.cloud
    .session(
      { type: 'password', user: { id: spec.userID ?? '' }, password: spec.password ?? '' },
      { kind: 'project', project: { id: project.id } },
    )
    .token();
  assert.deepEqual(password.roles.map((r) => r.name).sort(), [
    'admin',
    'load-balancer_member',
    'manager',
    'member',
    'reader',
  ]);
  const cloudsYaml = parse(unbase64(spec.cloudConfig ?? '')) as {
    clouds: {
      cloud: { auth: { auth_url: string; application_credential_id: string; application_credential_secret: string } };
    };
  };
  const { auth } = cloudsYaml.clouds.cloud;
  assert.equal(spec.cloud, 'cloud');
  assert.equal(auth.application_credential_id, spec.applicationCredentialID);
  assert.equal(auth.application_credential_secret, spec.applicationCredentialSecret);
  const appCred = await fx.cloud
    .session(
      {
        type: 'application_credential',
        id: auth.application_credential_id,
        secret: auth.application_credential_secret,
      },
      { kind: 'unscoped' },
    )
    .token();
  assert.equal(appCred.project?.id, project.id);
  const key = nova().keypairs.find((k) => k.userId === spec.userID);
  assert.equal(
    publicKeyMaterial(key?.publicKey ?? ''),
    publicKeyMaterial(publicKeyOf(unbase64(spec.sshPrivateKey ?? '')) ?? ''),
  );
}

const nova = () =>
  fx.cloud.emulator.control.dump()['nova'] as { keypairs: { name: string; userId: string; publicKey: string }[] };

async function assertGone(identity: IdentityInput): Promise<void> {
  const found = await inventory(identity);
  for (const [kind, items] of Object.entries(found)) assert.equal(items.length, 0, `no ${kind} left`);
  await assert.rejects(record(identity.id), /not found/);
}

describe('identity create and delete (emulator)', () => {
  it('creates everything once, converges idempotently, and deletes everything', async () => {
    const identity = newIdentity();
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertConverged(identity);
    const before = fx.transport.requests.length;
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    const again = fx.transport.requests.slice(before);
    assert.ok(
      !again.some((r) => r.method === 'POST' && r.urlTemplate !== '/auth/tokens'),
      'a converged pass creates nothing',
    );
    await assertConverged(identity);
    assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertGone(identity);
    assert.deepEqual(
      await deleteIdentity(await region(), deps(), ctx, identity),
      Outcome.ok(),
      'deleting again is done',
    );
  });

  it('serves the contract through a region lookup; a region of another provider is terminal', async () => {
    const registry = await fx.providers();
    const lookup = identityLookup((id, signal) => registry.lookup(id, signal), deps());
    const identity = newIdentity();
    const provider = await lookup(identity.regionID, ctx.signal);
    assert.deepEqual(await provider.createIdentity(ctx, identity), Outcome.ok());
    await assertConverged(identity);
    assert.deepEqual(await provider.deleteIdentity(ctx, identity), Outcome.ok());
    await assertGone(identity);
    const kube = await fx.store.create<Region>(regionType, {
      apiVersion: API_VERSION,
      kind: 'Region',
      metadata: { name: randomUUID(), namespace: fx.namespace },
      spec: { provider: 'kubernetes', kubernetes: { kubeConfigSecret: { namespace: fx.namespace, name: 'kc' } } },
    });
    const elsewhere = { ...newIdentity(), regionID: kube.metadata.name };
    const refusing = await lookup(elsewhere.regionID, ctx.signal);
    assert.equal((await refusing.createIdentity(ctx, elsewhere)).kind, 'terminal');
    assert.equal((await refusing.deleteIdentity(ctx, elsewhere)).kind, 'terminal');
    await assert.rejects(lookup('nowhere', ctx.signal), ResourceNotFoundError);
  });

  it('recovers from an operator password reset and from a lost record, keeping the project and user', async () => {
    const identity = newIdentity();
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    const first = (await record(identity.id)).spec;
    await setUserPassword(fx.adminIdentity(), first.userID ?? '', 'reset-by-an-operator');
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertConverged(identity);

    await fx.store.delete(openstackIdentityType, fx.namespace, identity.id);
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertConverged(identity);
    const second = (await record(identity.id)).spec;
    assert.equal(second.projectID, first.projectID);
    assert.equal(second.userID, first.userID);
    assert.notEqual(second.password, first.password);
    assert.notEqual(second.applicationCredentialID, first.applicationCredentialID, 'its secret was lost: remade');
    assert.notEqual(second.sshPrivateKey, first.sshPrivateKey);
    assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertGone(identity);
  });

  it('a quota update the policy refuses is skipped with a warning; the others still apply', async () => {
    const identity = newIdentity();
    const fault = { route: '/network/v2.0/quotas/{project_id}', method: 'PUT', status: 403, count: 1 };
    assert.equal(await fx.cloud.control('POST', '/faults', fault), 201);
    const warnings = logLines.length;
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    await assertConverged(identity);
    const warned = logLines.slice(warnings).map((line) => JSON.parse(line) as { msg: string; services?: string[] });
    assert.deepEqual(warned.find((l) => l.services !== undefined)?.services, ['network']);
    const projectID = (await record(identity.id)).spec.projectID ?? '';
    const admin = fx.cloud.admin;
    assert.notEqual((await getNetworkQuota(admin.client('network'), projectID)).network, -1);
    assert.equal((await getComputeQuota(admin.client('compute'), projectID)).instances, -1);
    assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
  });

  it('an identity never realised is deleted at once', async () => {
    const before = fx.transport.requests.length;
    assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, newIdentity()), Outcome.ok());
    assert.equal(fx.transport.requests.length, before, 'no OpenStack call');
  });

  it('converges after creation is interrupted after each OpenStack call in turn', async () => {
    let n = 1;
    for (; ; n++) {
      const identity = newIdentity();
      fx.transport.interruptAfter(n);
      const outcome = await createIdentity(await region(), deps(), ctx, identity).catch((error: unknown) => {
        failures.push(error);
        return undefined;
      });
      fx.transport.interruptAfter(undefined);
      // The first n with no interruption has passed every call: all were covered.
      if (outcome !== undefined) {
        assert.deepEqual(outcome, Outcome.ok());
        await deleteIdentity(await region(), deps(), ctx, identity);
        break;
      }
      assert.deepEqual(
        await createIdentity(await region(), deps(), ctx, identity),
        Outcome.ok(),
        `after call ${String(n)}`,
      );
      await assertConverged(identity);
      assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
      await assertGone(identity);
    }
    assert.ok(n - 1 >= 15, `a create makes ${String(n - 1)} calls`);
  });

  it('converges after deletion is interrupted after each OpenStack call in turn', async () => {
    let n = 1;
    for (; ; n++) {
      const identity = newIdentity();
      assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
      fx.transport.interruptAfter(n);
      const outcome = await deleteIdentity(await region(), deps(), ctx, identity).catch((error: unknown) => {
        failures.push(error);
        return undefined;
      });
      fx.transport.interruptAfter(undefined);
      if (outcome !== undefined) {
        await assertGone(identity);
        break;
      }
      assert.deepEqual(
        await deleteIdentity(await region(), deps(), ctx, identity),
        Outcome.ok(),
        `after call ${String(n)}`,
      );
      await assertGone(identity);
    }
    assert.ok(n - 1 >= 8, `a delete makes ${String(n - 1)} calls`);
  });

  it('uses the manager for Keystone, privileged for quotas, and the identity user for its own resources', async () => {
    const identity = newIdentity();
    const start = fx.transport.requests.length;
    assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    const { spec } = await record(identity.id);
    assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    const regionUser = fx.credentials.userID;
    const expected = {
      manager: { userID: regionUser, scope: `domain:${fx.credentials.domainID}` },
      privileged: { userID: regionUser, scope: `project:${spec.projectID ?? ''}` },
      identity: { userID: spec.userID ?? '', scope: `project:${spec.projectID ?? ''}` },
    };
    const seen = { manager: 0, privileged: 0, identity: 0 };
    for (const request of fx.transport.requests.slice(start)) {
      if (request.urlTemplate === '/auth/tokens') continue;
      const principal = principalFor(request.serviceType, request.urlTemplate);
      const what = `${request.method} ${request.serviceType}${request.urlTemplate}`;
      assert.ok(principal !== undefined, `unexpected request ${what}`);
      assert.deepEqual(request.caller, expected[principal], what);
      seen[principal]++;
    }
    assert.ok(seen.manager > 0 && seen.privileged >= 3 && seen.identity >= 4, JSON.stringify(seen));
  });

  it('never puts a password, application credential secret or private key in a log line or an error', () => {
    const texts = [
      ...logLines,
      ...failures.flatMap((f) => [
        f instanceof Error ? f.message : String(f),
        toUserMessage(f),
        JSON.stringify(toOperatorLog(f)),
      ]),
    ];
    assert.ok(logLines.length > 0 && failures.length > 10, 'there is something to scan');
    const forbidden = [...generated, fx.credentials.password].flatMap((s) => [s, Buffer.from(s).toString('base64')]);
    for (const text of texts)
      for (const secret of forbidden) assert.ok(!text.includes(secret), `a secret leaked into: ${text}`);
  });
});

const failures: unknown[] = [];

/**
 * Which principal each request of identity create/delete must use (reference §5 "Trust / scoping"): Keystone
 * project, user and grant management is the domain-scoped manager's; quotas need the region's manager role inside
 * the identity project (privileged); the application credential, server group and keypair belong to the identity
 * user (Keystone makes credentials only for the token's own user; Nova keypairs are per user).
 */
function principalFor(service: string, path: string): 'manager' | 'privileged' | 'identity' | undefined {
  if (service === 'identity')
    return path.startsWith('/users/{user_id}/application_credentials') ? 'identity' : 'manager';
  if (path === '/os-quota-sets/{project_id}' || path === '/quotas/{project_id}') return 'privileged';
  if (service === 'compute' && (path.startsWith('/os-server-groups') || path.startsWith('/os-keypairs')))
    return 'identity';
  return undefined;
}
