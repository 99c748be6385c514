/**
 * Contract: no default security group outlives an identity once `openregion region gc` has run
 * (docs/adr/0038-leaks-snapshot-images-and-default-groups.md). The region's non-admin credential creates and deletes
 * an identity; Neutron keeps the project's `default` group from it (only an admin may delete one), tagged by the
 * identity's own user; `region gc` with the admin's clouds.yaml entry deletes it, and the count of default groups is
 * back to the baseline. Runs against the dev cloud (`npm run test:openstack`, under the real-service lock: the count
 * is the cloud's) and the emulator (`npm run test:contract:emulator`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { regionGc } from '../../src/cli/region-gc.ts';
import { getSecurityGroup, listSecurityGroups } from '../../src/openstack/network.ts';
import { createIdentity, deleteIdentity } from '../../src/region/openstack/identity/lifecycle.ts';
import { LEFT_BEHIND_TAG, leftBehindIdentityTag } from '../../src/region/openstack/names.ts';
import type { IdentityInput } from '../../src/region/provider/inputs.ts';
import { Outcome } from '../../src/region/provider/outcome.ts';
import { openstackIdentityType } from '../../src/region/apis/index.ts';
import { contractCloud } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const REGION = randomUUID();

describe('region gc: default security groups left behind by identity teardowns', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  let regions: ContractRegions;
  const made: IdentityInput[] = [];
  const ctx = { signal: new AbortController().signal };
  const out = { write: (text: string) => process.stderr.write(text) };
  const CLOUDS = '/openregion-contract/admin-clouds.yaml';
  const sources = () => ({
    env: { OS_CLIENT_CONFIG_FILE: CLOUDS },
    cwd: '/nonexistent',
    home: '/nonexistent',
    readFile: (path: string) => (path === CLOUDS ? c.adminCloudsYaml : undefined),
  });

  before(async () => {
    regions = await contractRegions(c, [{ id: REGION }]);
  });
  after(async () => {
    for (const identity of made) {
      await deleteIdentity(await regions.lookup(REGION), { kube: regions.store }, ctx, identity).catch(() => {});
    }
    await regions.close();
    await c.close();
  });

  const defaults = async () => listSecurityGroups(c.admin.client('network'), { name: 'default' });

  it("after an identity's deletion and region gc, the count of default groups is back to the baseline", async () => {
    // Whatever earlier runs left tagged goes first, so the baseline is a cloud with nothing of ours pending.
    await regionGc(sources(), { osCloud: 'admin' }, out);
    const baseline = (await defaults()).length;

    const identity = { id: randomUUID(), organizationID: 'ct-org', projectID: 'ct-project', regionID: REGION };
    made.push(identity);
    const deps = { kube: regions.store };
    assert.deepEqual(await createIdentity(await regions.lookup(REGION), deps, ctx, identity), Outcome.ok());
    const projectID =
      (await regions.store.get(openstackIdentityType, REGION_NAMESPACE, identity.id)).spec.projectID ?? '';
    assert.deepEqual(await deleteIdentity(await regions.lookup(REGION), deps, ctx, identity), Outcome.ok());

    const kept = (await defaults()).filter((g) => g.project_id === projectID);
    assert.equal(kept.length, 1, "Neutron keeps the project's default group from the region's credential");
    const group = kept[0] ?? assert.fail('kept');
    const tags = (await getSecurityGroup(c.admin.client('network'), group.id)).tags;
    assert.ok(tags.includes(LEFT_BEHIND_TAG) && tags.includes(leftBehindIdentityTag(identity.id)), tags.join(','));
    assert.equal((await defaults()).length, baseline + 1);

    const dry = await regionGc(sources(), { osCloud: 'admin', dryRun: true }, out);
    assert.ok(dry.deleted.some((g) => g.id === group.id));
    assert.equal((await defaults()).length, baseline + 1, 'a dry run deletes nothing');

    const report = await regionGc(sources(), { osCloud: 'admin' }, out);
    assert.deepEqual(
      report.deleted.map((g) => g.id),
      [group.id],
    );
    assert.deepEqual(report.failed, []);
    assert.equal((await defaults()).length, baseline, 'back to the baseline');
  });
});
