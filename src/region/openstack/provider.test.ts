/** The OpenStack provider's workload deletes when the identity's credentials stop working (ADR 0019). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deleteProject, setUserPassword } from '../../openstack/identity.ts';
import { CredentialsRejectedError } from '../provider/errors.ts';
import type { NetworkInput, SecurityGroupInput } from '../provider/inputs.ts';
import { Outcome } from '../provider/outcome.ts';
import { openstackLookup } from './provider.ts';
import { identityRecord } from './testing/identity.ts';
import { serverFixture, type ServerFixture } from './testing/server.ts';

describe('workload deletes when the identity credentials are refused', () => {
  let fx: ServerFixture;
  const ctx = { signal: new AbortController().signal };
  before(async () => {
    fx = await serverFixture();
  });
  after(() => fx.close());

  /** A provider over a fresh registry, as after a restart: no session cached from before the break. */
  const provider = async () => {
    const registry = await fx.registry();
    return openstackLookup((id, signal) => registry.lookup(id, signal), { kube: fx.store })(
      fx.identity.regionID,
      ctx.signal,
    );
  };
  const owner = () => {
    const { organizationID, projectID, regionID } = fx.identity;
    return { organizationID, projectID, regionID };
  };
  const network = (): NetworkInput => ({
    ...owner(),
    id: 'net-gone',
    prefix: '192.168.7.0/24',
    reservations: { prefixLength: 25, providerReservedPrefixLength: 28 },
    dnsNameservers: [],
    routes: [],
  });
  const group = (): SecurityGroupInput => ({ ...owner(), id: 'sg-gone', rules: [] });

  it('the project still exists but its user is broken: an operator-facing error, not "temporarily unavailable"', async () => {
    const record = await identityRecord(fx, fx.identity.id);
    await setUserPassword(fx.adminIdentity(), record.spec.userID ?? '', 'changed-out-of-band');
    const refused = await (await provider()).deleteServer(ctx, fx.identity, fx.input()).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof CredentialsRejectedError, String(refused));
    assert.match(refused.userMessage, /rejects the credentials of this resource's identity; an operator/);
  });

  it('the project is gone (a cloud reset, a removal out of band): every delete is done, nothing loops', async () => {
    const p = await provider();
    assert.equal((await p.createSecurityGroup(ctx, fx.identity, group())).kind, 'done');
    assert.equal((await p.createNetwork(ctx, fx.identity, network())).kind, 'done');
    await deleteProject(fx.adminIdentity(), fx.projectID);

    const after = await provider();
    assert.deepEqual(await after.deleteServer(ctx, fx.identity, fx.input()), Outcome.ok());
    assert.deepEqual(await after.deleteSecurityGroup(ctx, fx.identity, group()), Outcome.ok());
    assert.deepEqual(await after.deleteNetwork(ctx, fx.identity, network()), Outcome.ok());
  });
});
