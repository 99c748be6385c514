/**
 * `openregion region gc` against the emulator with the admin's OS_* variables: after an identity's teardown under the
 * configured (non-admin) region account leaves its project's default group behind, a dry run reports it and deletes
 * nothing, and a run deletes it, bringing the default-group count back to the baseline.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { listSecurityGroups } from '../openstack/network.ts';
import { createIdentity, deleteIdentity } from '../region/openstack/identity/lifecycle.ts';
import { recordingSecrets } from '../region/openstack/testing/identity.ts';
import { regionFixture, type RegionFixture } from '../region/openstack/testing/region.ts';
import { Outcome } from '../region/provider/outcome.ts';
import { buildProgram } from './program.ts';
import { regionGc } from './region-gc.ts';

describe('openregion region gc (emulator)', () => {
  let fx: RegionFixture;
  before(async () => {
    fx = await regionFixture('configured');
  });
  after(() => fx.close());

  const sources = () => ({
    env: {
      OS_AUTH_URL: fx.emulator.authUrl,
      OS_USERNAME: 'admin',
      OS_PASSWORD: 'secret',
      OS_PROJECT_NAME: 'admin',
      OS_USER_DOMAIN_ID: 'default',
      OS_PROJECT_DOMAIN_ID: 'default',
      OS_REGION_NAME: 'RegionOne',
    },
    cwd: '/nonexistent',
    home: '/nonexistent',
    readFile: () => undefined,
  });
  const defaults = async () => (await listSecurityGroups(fx.admin.client('network'), { name: 'default' })).length;

  it('reports, then deletes, the default group a deleted identity left behind: the count is back to baseline', async () => {
    const baseline = await defaults();
    const region = await (await fx.registry()).lookup(fx.region.metadata.name);
    const deps = { kube: fx.store, secrets: recordingSecrets([]) };
    const ctx = { signal: new AbortController().signal };
    const identity = { id: randomUUID(), organizationID: 'o', projectID: 'p', regionID: fx.region.metadata.name };
    assert.deepEqual(await createIdentity(region, deps, ctx, identity), Outcome.ok());
    assert.deepEqual(await deleteIdentity(region, deps, ctx, identity), Outcome.ok());
    assert.equal(await defaults(), baseline + 1, 'left behind by the teardown');

    const printed: string[] = [];
    const out = { write: (text: string) => printed.push(text) };
    const dry = await regionGc(sources(), { dryRun: true }, out);
    assert.equal(dry.deleted.length, 1);
    assert.match(printed.join(''), new RegExp(`would delete .*identity ${identity.id}`));
    assert.equal(await defaults(), baseline + 1, 'a dry run deletes nothing');

    printed.length = 0;
    const report = await regionGc(sources(), { output: 'json' }, out);
    assert.deepEqual(
      report.deleted.map((g) => g.identityID),
      [identity.id],
    );
    const parsed = JSON.parse(printed.join('')) as { dryRun: boolean; deleted: unknown[] };
    assert.equal(parsed.dryRun, false);
    assert.equal(parsed.deleted.length, 1);
    assert.equal(await defaults(), baseline, 'back to the baseline');
  });

  it('is a subcommand of region with --os-cloud and --dry-run', async () => {
    const program = await buildProgram(['region', 'gc']);
    const gc = program.commands.find((c) => c.name() === 'region')?.commands.find((c) => c.name() === 'gc');
    assert.ok(gc, 'region gc exists');
    const flags = gc.options.map((o) => o.long);
    assert.ok(flags.includes('--os-cloud') && flags.includes('--dry-run'), flags.join(' '));
  });
});
