/**
 * Identity create and delete against the emulator, with the OpenstackIdentity record in an embedded store: the happy
 * path, idempotency, recovery, the interruption test (a pass cut off at every request converges with nothing leaked),
 * the scoping test and the secret scan. Everything runs for both region accounts of the fixture: `configured` (the
 * non-admin domain manager production runs, with `region register`'s roles) and `admin` (the default roles).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getQuotaSet as getComputeQuota } from '../../../openstack/compute.ts';
import { setUserPassword } from '../../../openstack/identity.ts';
import {
  createNetwork,
  createSubnet,
  deleteNetwork,
  deleteSecurityGroup,
  getNetworkQuota,
  listFloatingIPs,
  listSecurityGroups,
} from '../../../openstack/network.ts';
import { API_VERSION, openstackIdentityType, regionType } from '../../apis/index.ts';
import { ResourceNotFoundError, TransientError } from '../../provider/errors.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { toOperatorLog, toUserMessage } from '../../provider/messages.ts';
import { Outcome } from '../../provider/outcome.ts';
import { openstackLookup } from '../provider.ts';
import { createIdentity, deleteIdentity, type IdentityDeps } from './lifecycle.ts';
import type { RegionContext } from '../registry.ts';
import {
  assertConverged as converged,
  assertGone as gone,
  identityRecord,
  recordingSecrets,
} from '../testing/identity.ts';
import { regionFixture, type RegionAccount, type RegionFixture } from '../testing/region.ts';
import { capturedLogger } from '../../../runtime/testing/logger.ts';

/** The roles an identity user's project token carries, per account (implied roles included). */
const ROLES: Record<RegionAccount, readonly string[]> = {
  configured: ['load-balancer_member', 'member', 'reader'],
  admin: ['load-balancer_member', 'member', 'reader'],
};

for (const account of ['configured', 'admin'] as const) {
  describe(`identity create and delete (emulator, ${account} region account)`, () => {
    let fx: RegionFixture;
    const generated: string[] = [];
    const failures: unknown[] = [];
    const secrets = recordingSecrets(generated);
    const { log, lines: logLines } = capturedLogger();
    const deps = (): IdentityDeps => ({ kube: fx.store, secrets, log });
    const ctx = { signal: new AbortController().signal };

    before(async () => {
      fx = await regionFixture(account);
    });
    after(() => fx.close());

    const region = async (): Promise<RegionContext> => (await fx.registry()).lookup(fx.region.metadata.name);
    const newIdentity = (): IdentityInput => ({
      id: randomUUID(),
      organizationID: `org-${randomUUID()}`,
      projectID: `proj-${randomUUID()}`,
      regionID: fx.region.metadata.name,
    });
    const record = (id: string) => identityRecord(fx, id);
    const assertConverged = (identity: IdentityInput) => converged(fx, identity, ROLES[account]);
    const assertGone = (identity: IdentityInput) => gone(fx, identity);

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

    it(
      account === 'admin'
        ? "removes the project's default security group before the project"
        : "tells operators when Neutron keeps the project's default security group from the region credential",
      async () => {
        const identity = newIdentity();
        assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
        const projectID = (await record(identity.id)).spec.projectID ?? '';
        const neutron = fx.admin.client('network');
        // Listed without a project filter, which would make the group again.
        const left = async () =>
          (await listSecurityGroups(neutron, { name: 'default' })).filter((g) => g.project_id === projectID);
        assert.equal((await left()).length, 1, "Neutron made the project's default group on its first use");

        assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
        await assertGone(identity);
        if (account === 'admin') {
          assert.deepEqual(await left(), [], 'no default group outlives the project');
          return;
        }
        const [kept] = await left();
        assert.ok(kept, 'only an admin may remove a default group');
        assert.ok(
          logLines.some((line) => line.includes(kept.id) && line.includes("the project's default security group")),
          'the operator log names the group left behind',
        );
        await deleteSecurityGroup(neutron, kept.id);
      },
    );

    it('releases the floating IPs the project still holds, which no resource finds once their port is gone', async () => {
      const identity = newIdentity();
      assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
      const projectID = (await record(identity.id)).spec.projectID ?? '';
      const neutron = fx.admin.client('network');
      const external = await createNetwork(neutron, { name: `public-${identity.id}`, 'router:external': true });
      await createSubnet(neutron, { network_id: external.id, name: 'public', cidr: '203.0.113.0/24', ip_version: 4 });
      // What a server's floating IP is after its port was deleted out of band: allocated, associated with nothing.
      await neutron.request({
        method: 'POST',
        path: '/floatingips',
        body: { floatingip: { floating_network_id: external.id, project_id: projectID } },
      });
      const held = async () => (await listFloatingIPs(neutron)).filter((ip) => ip.project_id === projectID);
      assert.equal((await held()).length, 1);

      assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
      await assertGone(identity);
      assert.deepEqual(await held(), [], 'no floating IP outlives the project');
      await deleteNetwork(neutron, external.id);
    });

    it('serves the contract through a region lookup; a region of another provider is terminal', async () => {
      const registry = await fx.registry();
      const lookup = openstackLookup((id, signal) => registry.lookup(id, signal), deps());
      const identity = newIdentity();
      const provider = await lookup(identity.regionID, ctx.signal);
      assert.deepEqual(await provider.createIdentity(ctx, identity), Outcome.ok());
      await assertConverged(identity);
      assert.deepEqual(await provider.deleteIdentity(ctx, identity), Outcome.ok());
      await assertGone(identity);
      const kube = await fx.store.create(regionType, {
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

    it('an application credential refused for roles the token lacks yet is retried, then converges', async () => {
      const identity = newIdentity();
      const fault = {
        route: '/identity/v3/users/{user_id}/application_credentials',
        method: 'POST',
        status: 400,
        message: 'Invalid application credential: Cannot create an application credential with unassigned role',
        count: 1,
      };
      assert.equal(await fx.control('POST', '/faults', fault), 201);
      await assert.rejects(createIdentity(await region(), deps(), ctx, identity), TransientError);
      assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
      await assertConverged(identity);
      assert.deepEqual(await deleteIdentity(await region(), deps(), ctx, identity), Outcome.ok());
    });

    it('a quota update the policy refuses is skipped and said; the others still apply', async () => {
      const identity = newIdentity();
      const fault = { route: '/network/v2.0/quotas/{project_id}', method: 'PUT', status: 403, count: 1 };
      assert.equal(await fx.control('POST', '/faults', fault), 201);
      const warnings = logLines.length;
      assert.deepEqual(await createIdentity(await region(), deps(), ctx, identity), Outcome.ok());
      await assertConverged(identity);
      const warned = logLines.slice(warnings).map((line) => JSON.parse(line) as { msg: string; services?: string[] });
      assert.deepEqual(warned.find((l) => l.services !== undefined)?.services, ['network']);
      const projectID = (await record(identity.id)).spec.projectID ?? '';
      const admin = fx.admin;
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

    it('uses the manager for Keystone, privileged for quotas and the default group, and the identity user for its own resources', async () => {
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
        const principal = principalFor(request.serviceType, request.urlTemplate, request.method);
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

    if (account === 'configured') {
      it('a Region naming no roles gets the default roles, which the domain manager may grant', async () => {
        const { identity: _, ...withoutRoles } = fx.region.spec.openstack ?? assert.fail('an OpenStack region');
        const defaults = await fx.store.create(regionType, {
          apiVersion: API_VERSION,
          kind: 'Region',
          metadata: { name: randomUUID(), namespace: fx.namespace },
          spec: { provider: 'openstack', openstack: withoutRoles },
        });
        const identity = { ...newIdentity(), regionID: defaults.metadata.name };
        const context = await (await fx.registry()).lookup(defaults.metadata.name);
        assert.deepEqual(await createIdentity(context, deps(), ctx, identity), Outcome.ok());
        assert.deepEqual(await deleteIdentity(context, deps(), ctx, identity), Outcome.ok());
        await assertGone(identity);
      });
    }
  });
}

/**
 * Which principal each request of identity create/delete must use (reference §5 "Trust / scoping"): Keystone
 * project, user and grant management is the domain-scoped manager's; quotas need the region's manager role inside
 * the identity project (privileged); the application credential, server group and keypair belong to the identity
 * user (Keystone makes credentials only for the token's own user; Nova keypairs are per user).
 */
function principalFor(
  service: string,
  path: string,
  method = 'GET',
): 'manager' | 'privileged' | 'identity' | undefined {
  if (service === 'identity')
    return path.startsWith('/users/{user_id}/application_credentials') ? 'identity' : 'manager';
  if (path === '/os-quota-sets/{project_id}' || path === '/quotas/{project_id}') return 'privileged';
  // The default group Neutron kept, tagged for `region gc` by the identity's own user, a member of the project.
  if (
    service === 'network' &&
    ((method === 'GET' && path === '/security-groups/{security_group_id}') || path.includes('/tags'))
  )
    return 'identity';
  // The project's default security group, removed at teardown by the region user in the project.
  if (service === 'network' && path.startsWith('/security-groups')) return 'privileged';
  // The snapshot images the identity published, found and deleted by the region user in the project.
  if (service === 'image' && path.startsWith('/images')) return 'privileged';
  // Floating IPs the project still holds, released at teardown by the identity's own user.
  if (service === 'network' && path.startsWith('/floatingips')) return 'identity';
  if (service === 'compute' && (path.startsWith('/os-server-groups') || path.startsWith('/os-keypairs')))
    return 'identity';
  return undefined;
}
