/**
 * `region gc` over the emulator with the configured (non-admin) region account: the default groups its identities'
 * teardowns left behind are deleted by the admin, a dry run deletes nothing, and nothing gc cannot prove is ours is
 * touched (a tagged group whose project still exists, an untagged default group of a deleted project, a group whose
 * marker names no identity).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createProject, deleteProject } from '../../../openstack/identity.ts';
import { addTag, listSecurityGroups, type SecurityGroup } from '../../../openstack/network.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import { LEFT_BEHIND_TAG, leftBehindIdentityTag } from '../names.ts';
import { recordingSecrets } from '../testing/identity.ts';
import { regionFixture, type RegionFixture } from '../testing/region.ts';
import { Registry } from 'prom-client';
import { collectLeftBehindDefaultGroups, leftBehindCounter, notOursBecause } from './default-group.ts';
import { createIdentity, deleteIdentity } from './lifecycle.ts';

describe('region gc: default groups left behind (emulator, configured region account)', () => {
  let fx: RegionFixture;
  const ctx = { signal: new AbortController().signal };
  before(async () => {
    fx = await regionFixture('configured');
  });
  after(() => fx.close());

  const admin = () => ({
    network: fx.admin.client('network'),
    identity: fx.adminIdentity(),
    compute: fx.admin.client('compute'),
    blockStorage: fx.admin.client('block-storage'),
  });
  const defaults = async () => listSecurityGroups(fx.admin.client('network'), { name: 'default' });
  /** A project's default group, made as Neutron makes it: on the project's first network call. */
  const defaultGroupOf = async (projectID: string): Promise<SecurityGroup> => {
    const [group] = await listSecurityGroups(fx.admin.client('network'), { name: 'default', projectID: projectID });
    return group ?? assert.fail('a default group');
  };

  it('deletes exactly the tagged default groups of deleted projects; a dry run deletes nothing', async () => {
    const region = await (await fx.registry()).lookup(fx.region.metadata.name);
    const deps = { kube: fx.store, secrets: recordingSecrets([]) };
    const identities: IdentityInput[] = [1, 2].map(() => ({
      id: randomUUID(),
      organizationID: 'org',
      projectID: 'proj',
      regionID: fx.region.metadata.name,
    }));
    const baseline = (await defaults()).length;
    const quotaRecords = () => {
      const dump = fx.emulator.control.dump() as Record<string, { quotas?: Record<string, unknown> }>;
      return ['nova', 'neutron', 'cinder'].map(
        (s) =>
          `${s}: ${Object.keys(dump[s]?.quotas ?? {})
            .sort()
            .join(',')}`,
      );
    };
    const quotasBefore = quotaRecords();
    for (const identity of identities) {
      assert.deepEqual(await createIdentity(region, deps, ctx, identity), Outcome.ok());
      assert.deepEqual(await deleteIdentity(region, deps, ctx, identity), Outcome.ok());
    }
    assert.equal((await defaults()).length, baseline + 2, 'one default group left behind per identity');
    assert.notDeepEqual(quotaRecords(), quotasBefore, 'Nova and Cinder keep the quota records past the project');

    // Decoys: the marker on a live project's default group; an untagged default group of a deleted project; and a
    // deleted project's default group with the marker but no identity tag.
    const keystone = fx.adminIdentity();
    const network = fx.admin.client('network');
    const live = await createProject(keystone, { name: `live-${randomUUID()}`, domain_id: fx.credentials.domainID });
    const liveGroup = await defaultGroupOf(live.id);
    await addTag(network, 'security-groups', liveGroup.id, LEFT_BEHIND_TAG);
    await addTag(network, 'security-groups', liveGroup.id, leftBehindIdentityTag(randomUUID()));
    const untagged = await createProject(keystone, {
      name: `gone-${randomUUID()}`,
      domain_id: fx.credentials.domainID,
    });
    const untaggedGroup = await defaultGroupOf(untagged.id);
    const markerOnly = await createProject(keystone, {
      name: `mark-${randomUUID()}`,
      domain_id: fx.credentials.domainID,
    });
    const markerOnlyGroup = await defaultGroupOf(markerOnly.id);
    await addTag(network, 'security-groups', markerOnlyGroup.id, LEFT_BEHIND_TAG);
    for (const project of [untagged, markerOnly]) await deleteProject(keystone, project.id);
    const withDecoys = (await defaults()).length;

    const dry = await collectLeftBehindDefaultGroups(admin(), { dryRun: true });
    assert.deepEqual(dry.deleted.map((g) => g.identityID).sort(), identities.map((i) => i.id).sort());
    assert.equal((await defaults()).length, withDecoys, 'a dry run deletes nothing');

    const report = await collectLeftBehindDefaultGroups(admin(), { dryRun: false });
    assert.deepEqual(report.deleted.map((g) => g.identityID).sort(), identities.map((i) => i.id).sort());
    assert.deepEqual(report.failed, []);
    assert.deepEqual(
      report.kept.map((g) => `${g.id}:${g.why}`).sort(),
      [`${liveGroup.id}:its project still exists`, `${markerOnlyGroup.id}:no single identity tag`].sort(),
    );
    assert.deepEqual(quotaRecords(), quotasBefore, "the gone projects' quota records are gone too");
    const left = new Set((await defaults()).map((g) => g.id));
    assert.equal(left.size, withDecoys - 2, 'back to the baseline plus the decoys');
    for (const decoy of [liveGroup, untaggedGroup, markerOnlyGroup]) assert.ok(left.has(decoy.id), 'decoys stay');

    assert.deepEqual(await collectLeftBehindDefaultGroups(admin(), { dryRun: false }).then((r) => r.deleted), []);
    await deleteProject(keystone, live.id);
    for (const decoy of [liveGroup, untaggedGroup, markerOnlyGroup]) {
      await network.request({ method: 'DELETE', path: `/security-groups/${decoy.id}` });
    }
  });

  it('counts the groups left behind per region on the registry /metrics serves', async () => {
    const registry = new Registry();
    const count = leftBehindCounter(registry);
    count('r1');
    count('r1');
    count('r2');
    const text = await registry.metrics();
    assert.match(text, /openregion_region_default_security_groups_left_behind_total\{region="r1"\} 2/);
    assert.match(text, /openregion_region_default_security_groups_left_behind_total\{region="r2"\} 1/);
  });

  it('proves a group ours only by name, marker, one identity tag and a gone project', () => {
    const group = (name: string, tags: string[]): SecurityGroup => ({
      id: 'g',
      name,
      description: '',
      project_id: 'p',
      security_group_rules: [],
      tags,
    });
    const ours = [LEFT_BEHIND_TAG, leftBehindIdentityTag('i')];
    assert.equal(notOursBecause(group('default', ours), false), undefined);
    assert.equal(notOursBecause(group('default', ours), true), 'its project still exists');
    assert.equal(notOursBecause(group('web', ours), false), 'not a default group');
    assert.equal(notOursBecause(group('default', [leftBehindIdentityTag('i')]), false), 'no left-behind marker');
    assert.equal(
      notOursBecause(group('default', [...ours, leftBehindIdentityTag('j')]), false),
      'no single identity tag',
    );
  });
});
