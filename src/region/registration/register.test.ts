import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { regionCommand } from '../../cli/region.ts';
import { cloudFixture, type CloudFixture } from '../../emulator/testing/cloud.ts';
import { customResourceDefinition } from '../../kube/crd.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../kube/embedded/store.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { createProject, listDomains } from '../../openstack/identity.ts';
import { createNetwork } from '../../openstack/network.ts';
import { Transport } from '../../openstack/transport.ts';
import { ManualClock } from '../../util/clock.ts';
import { getOptional } from '../../kube/client.ts';
import { identityType, labels, regionKinds, regionType, type Region } from '../apis/index.ts';
import { configureRegion, planFor } from './configure.ts';
import { unconfigureRegion } from './unconfigure.ts';
import { SECRET_KEYS } from './credentials.ts';
import { discoverInventory, renderInventory } from './discover.ts';
import { renderEnvFile, writeEnvFile } from './env-file.ts';
import {
  applyManifests,
  regionManifest,
  registerTarget,
  registrationManifests,
  type RegisterPlan,
} from './register.ts';
import { passwordWorks, projectSession, RegistrationError } from './sessions.ts';
import { openRegionStore } from '../apis/testing/store.ts';
import { testCredentials } from './testing/credentials.ts';

const REGION_ID = '6f1c2a52-8d0e-4c1b-9a77-3b0f4e5d2c10';
const credentials = testCredentials;
const plan: RegisterPlan = {
  regionID: REGION_ID,
  displayName: 'eu-west-1',
  namespace: 'unikorn-region',
  secret: { namespace: 'unikorn-region', name: 'eu-west-1-openstack' },
  endpoint: credentials.authUrl,
  organizationIDs: ['org-1'],
  services: { network: { providerNetworks: { physicalNetwork: 'physnet1' } } },
};

test('the Region: provider openstack, endpoint, Secret reference, cluster roles, organization restriction', () => {
  const region = regionManifest(plan) as Region;
  assert.equal(region.metadata.name, REGION_ID);
  assert.equal(region.metadata.labels?.['unikorn-cloud.org/name'], 'eu-west-1');
  assert.equal(region.spec.provider, 'openstack');
  assert.deepEqual(region.spec.security, { organizations: [{ id: 'org-1' }] });
  assert.equal(region.spec.openstack?.endpoint, credentials.authUrl);
  assert.deepEqual(region.spec.openstack.serviceAccountSecret, plan.secret);
  assert.deepEqual(region.spec.openstack.identity?.clusterRoles, ['member', 'load-balancer_member']);
  assert.equal(region.spec.openstack.network?.providerNetworks?.physicalNetwork, 'physnet1');
  assert.equal((regionManifest({ ...plan, organizationIDs: [] }) as Region).spec.security, undefined);
});

test('references the Secret by default; creates it, with exactly the four keys, only when asked', () => {
  assert.deepEqual(
    registrationManifests(plan, undefined).map((o) => o.kind),
    ['Region'],
  );
  const [secret, region] = registrationManifests(plan, credentials);
  assert.equal(region?.kind, 'Region');
  assert.equal(secret?.kind, 'Secret');
  assert.deepEqual(Object.keys(secret.stringData as object).sort(), [...SECRET_KEYS].sort());
  assert.deepEqual(secret.stringData, { 'domain-id': 'd1', 'project-id': 'p1', 'user-id': 'u1', password: 'pw-1' });
});

test('refuses what the API would: a region id that is not a UUID, a bad label, an invalid service block', () => {
  assert.throws(() => regionManifest({ ...plan, regionID: 'eu-west-1' }), RegistrationError);
  assert.throws(() => regionManifest({ ...plan, displayName: 'has space' }), RegistrationError);
  assert.throws(
    () =>
      regionManifest({
        ...plan,
        services: { network: { providerNetworks: { vlan: { segments: [{ startId: 0, endId: 5000 }] } } } },
      }),
    RegistrationError,
  );
});

test('idempotent by name and id: which Region a run writes, and whether it creates or updates it', () => {
  const fresh = () => 'new-id';
  assert.deepEqual(registerTarget('eu', undefined, [], fresh), { id: 'new-id', exists: false });
  assert.deepEqual(registerTarget('eu', undefined, ['r-1'], fresh), { id: 'r-1', exists: true });
  assert.throws(() => registerTarget('eu', undefined, ['r-1', 'r-2'], fresh), /2 Regions are named "eu" \(r-1, r-2\)/);
  assert.deepEqual(registerTarget('eu', { id: 'r-1', exists: true }, ['r-1'], fresh), { id: 'r-1', exists: true });
  assert.deepEqual(registerTarget('eu', { id: 'r-9', exists: true }, [], fresh), { id: 'r-9', exists: true });
  assert.deepEqual(registerTarget('eu', { id: 'r-9', exists: false }, [], fresh), { id: 'r-9', exists: false });
  assert.throws(
    () => registerTarget('eu', { id: 'r-9', exists: false }, ['r-1'], fresh),
    (e: unknown) => e instanceof RegistrationError && /a Region named "eu" already exists \(r-1\)/.test(e.message),
  );
});

/** A temporary directory's env file holding `credentials` (written before the suite) and a store path beside it. */
function registrationFiles(prefix: string): { envFile: string; storePath: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const envFile = join(dir, 'region.env');
  before(() => {
    writeEnvFile(envFile, renderEnvFile(credentials, 'test'));
  });
  return { envFile, storePath: join(dir, 'store.db') };
}

/** Runs `openregion region …` with `args`; what it printed. */
async function region(args: string[]): Promise<string> {
  let out = '';
  const command = regionCommand({ write: (t: string) => (out += t) }, { write: () => true });
  command.exitOverride();
  await command.parseAsync(args, { from: 'user' });
  return out;
}

describe('register into the embedded store, twice', () => {
  const { envFile, storePath } = registrationFiles('register-twice-');
  const run = (args: string[]) =>
    region(['register', '--provider-env', envFile, '--no-discover', '--store', storePath, '--create-secret', ...args]);

  it('the second run with the same --name updates the first one Region and says so; there is one Region', async () => {
    const first = await run(['--name', 'eu-west-1']);
    const [, id] = /region ([0-9a-f-]{36}) \(eu-west-1\) created/.exec(first) ?? assert.fail(first);
    const second = await run(['--name', 'eu-west-1', '--organization-id', 'org-2']);
    assert.match(second, new RegExp(`region ${id ?? ''} \\(eu-west-1\\) updated`));
    const dryRun = await run(['--name', 'eu-west-1', '--dry-run', '-o', 'json']);
    assert.equal(
      (JSON.parse(dryRun) as { items: KubeObject[] }).items[1]?.metadata.name,
      id,
      'a dry run prints it too',
    );
    const store = openEmbeddedStore(storePath, { clock: new ManualClock(), garbageCollection: false });
    try {
      const { items } = await store.list<Region>(regionType, { namespace: 'unikorn-region' });
      assert.deepEqual(
        items.map((r) => [r.metadata.name, r.spec.security?.organizations?.map((o) => o.id)]),
        [[id, ['org-2']]],
      );
    } finally {
      await store.close();
    }
    await assert.rejects(run(['--name', 'eu-west-1', '--region-id', REGION_ID]), /already exists/);
  });
});

describe('register creates its namespace; deregister undoes it', () => {
  const { envFile, storePath } = registrationFiles('deregister-');
  const run = region;
  const register = (name: string, namespace = 'regions-here') =>
    run(
      ['register', '--provider-env', envFile, '--no-discover', '--store', storePath, '--create-secret'].concat([
        '--name',
        name,
        '--namespace',
        namespace,
      ]),
    );
  const deregister = (...args: string[]) =>
    run(['deregister', '--store', storePath, '--namespace', 'regions-here', ...args]);
  const inStore = async <T>(read: (store: EmbeddedStore) => Promise<T>): Promise<T> => {
    const store = openEmbeddedStore(storePath, { clock: new ManualClock(), garbageCollection: false });
    try {
      return await read(store);
    } finally {
      await store.close();
    }
  };

  it('removes the Region, the Secret and the namespace register made; a second run has nothing to do', async () => {
    const first = await register('eu-1');
    assert.match(first, /namespace\/regions-here created/);
    const [, id] = /region ([0-9a-f-]{36}) \(eu-1\) created/.exec(first) ?? assert.fail(first);
    await register('eu-2');
    assert.match(
      await deregister('--namespace', 'regions-here', '--name', 'eu-1'),
      new RegExp(`deleted region ${id ?? ''}[^]*deleted secret`),
    );
    assert.deepEqual(
      await inStore(async (store) => (await store.list(regionType, { namespace: 'regions-here' })).items.length),
      1,
      'the other Region stays, and so does the namespace it lives in',
    );
    assert.match(
      await deregister('--namespace', 'regions-here', '--name', 'eu-2'),
      /deleted namespace regions-here \(register created it\)/,
    );
    const namespace = await inStore((store) => getOptional(store, builtin.namespace, undefined, 'regions-here'));
    assert.ok(
      namespace?.metadata.deletionTimestamp !== undefined,
      'the namespace is deleted (its content goes with it)',
    );
    await assert.rejects(register('eu-4'), /namespace regions-here is being deleted: wait until it is gone/);
    assert.match(await deregister('--namespace', 'regions-here', '--name', 'eu-2'), /nothing to deregister/);
  });

  it('refuses while the region serves resources; --force removes the Region and leaves them', async () => {
    const [, id = ''] = /region ([0-9a-f-]{36})/.exec(await register('eu-3', 'served')) ?? assert.fail('registered');
    const identityKind = regionKinds.find((k) => k.type === identityType) ?? assert.fail('the Identity kind');
    await inStore((store) => store.create(builtin.customResourceDefinition, customResourceDefinition(identityKind)));
    await inStore((store) =>
      store.create(identityType, {
        apiVersion: identityType.group + '/' + identityType.version,
        kind: identityType.kind,
        metadata: { name: 'id-1', namespace: 'served', labels: { [labels.regionID]: id } },
        spec: { provider: 'openstack' },
      }),
    );
    await assert.rejects(
      deregister('--namespace', 'served', '--region-id', id),
      /still serves 1 Identity: delete them first/,
    );
    assert.match(await deregister('--namespace', 'served', '--region-id', id, '--force'), /deleted region/);
    assert.equal(await inStore((store) => getOptional(store, regionType, 'served', id)), undefined);
  });

  it('refuses an ambiguous call', async () => {
    await assert.rejects(deregister(), /exactly one of --name and --region-id/);
  });
});

describe('register --dry-run -o yaml, applied to the embedded store', () => {
  let store: EmbeddedStore;
  const dir = mkdtempSync(join(tmpdir(), 'register-'));
  const envFile = join(dir, 'region.env');

  before(async () => {
    store = await openRegionStore(new ManualClock(), { only: [regionType] });
    writeEnvFile(envFile, renderEnvFile(credentials, 'test'));
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'unikorn-region' } };
    await store.create(builtin.namespace, namespace);
  });
  after(() => store.close());

  async function run(args: string[]): Promise<{ out: string; err: string }> {
    let out = '';
    let err = '';
    const command = regionCommand({ write: (t: string) => (out += t) }, { write: (t: string) => (err += t) });
    command.exitOverride();
    await command.parseAsync(
      ['register', '--provider-env', envFile, '--no-discover', '--store', join(dir, 'absent.db'), ...args],
      { from: 'user' },
    );
    return { out, err };
  }

  it('prints manifests that apply cleanly, twice, and read back as printed', async () => {
    const { out } = await run([
      '--name',
      'eu-west-1',
      '--region-id',
      REGION_ID,
      '--organization-id',
      'org-1',
      '--physical-network',
      'physnet1',
      '--vlan-range',
      '100-199',
      '--volume-type',
      'vt-1',
      '--create-secret',
      '--dry-run',
      '-o',
      'yaml',
    ]);
    const objects = parseAllDocuments(out).map((d) => d.toJS() as KubeObject);
    assert.deepEqual(
      objects.map((o) => o.kind),
      ['Secret', 'Region'],
    );
    for (let i = 0; i < 2; i++) await applyManifests(store, objects);
    const stored = await store.get(regionType, 'unikorn-region', REGION_ID);
    assert.deepEqual(stored.spec.openstack?.network?.providerNetworks, {
      physicalNetwork: 'physnet1',
      vlan: { segments: [{ startId: 100, endId: 199 }] },
    });
    assert.deepEqual(stored.spec.openstack.blockStorage?.volumeClasses?.selector?.ids, ['vt-1']);
    const secret = await store.get(builtin.secret, 'unikorn-region', `${REGION_ID}-openstack`);
    const data = secret.data as Record<string, string>;
    assert.deepEqual(Object.keys(data).sort(), [...SECRET_KEYS].sort());
    assert.equal(Buffer.from(data.password ?? '', 'base64').toString(), 'pw-1');
  });

  it('without --create-secret prints only the Region', async () => {
    const { out } = await run(['--name', 'eu-west-1', '--region-id', REGION_ID, '--dry-run', '-o', 'json']);
    const list = JSON.parse(out) as { items: KubeObject[] };
    assert.deepEqual(
      list.items.map((o) => o.kind),
      ['Region'],
    );
  });
});

describe('discovery against the emulator', () => {
  let cloud: CloudFixture;
  let transport: Transport;
  before(async () => {
    cloud = await cloudFixture();
    transport = new Transport({ clock: cloud.clock, random: () => 0 });
  });
  after(async () => {
    await transport.close();
    await cloud.close();
  });

  it('lists flavors, external networks and volume types with the region credential', async () => {
    const admin = cloud.admin;
    const identity = admin.client('identity');
    for (const name of ['manager', 'load-balancer_member']) {
      await identity.request({ method: 'POST', path: '/roles', body: { role: { name } } });
    }
    const { credentials: c } = await configureRegion(planFor('staging'), 'pw', {
      identity,
      authUrl: cloud.emulator.authUrl,
      regionName: 'RegionOne',
      authenticates: (userID, password) =>
        passwordWorks(cloud.emulator.authUrl, userID, password, { transport, clock: cloud.clock }),
      newPassword: () => 'unused',
    });
    await admin.client('compute').request({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: 'm1.test', vcpus: 2, ram: 2048, disk: 20 } },
    });
    const external = await createNetwork(admin.client('network'), { name: 'ext', 'router:external': true });
    await admin
      .client('block-storage')
      .request({ method: 'POST', path: '/types', body: { volume_type: { name: 'ssd' } } });
    const inventory = await discoverInventory(projectSession(c, { transport, clock: cloud.clock }));
    assert.ok(inventory.flavors.some((f) => f.name === 'm1.test' && f.vcpus === 2));
    assert.deepEqual(inventory.externalNetworks, [{ id: external.id, name: 'ext' }]);
    assert.ok(inventory.volumeTypes.some((t) => t.name === 'ssd'));
    assert.match(renderInventory(inventory), /external networks \(spec\.openstack\.network\.externalNetworks/);
  });

  it('unconfigure removes what configure made, refuses while identities remain unless forced, and is idempotent', async () => {
    const identity = cloud.admin.client('identity');
    await configureRegion(planFor('undo'), 'pw', {
      identity,
      authUrl: cloud.emulator.authUrl,
      regionName: 'RegionOne',
      authenticates: () => Promise.resolve(true),
      newPassword: () => 'unused',
    });
    const [domain] = await listDomains(identity, { name: 'undo' });
    const extra = await createProject(identity, {
      name: 'an-identity',
      domain_id: domain?.id ?? assert.fail('domain'),
    });
    await assert.rejects(
      unconfigureRegion(identity, { prefix: 'undo', force: false }),
      /domain undo still holds project an-identity/,
    );
    const removed = await unconfigureRegion(identity, { prefix: 'undo', force: true });
    assert.deepEqual(removed.at(-1), 'deleted domain undo');
    assert.deepEqual([...removed].sort(), [
      'deleted domain undo',
      `deleted project ${extra.name}`,
      'deleted project undo-region',
      'deleted user undo-region',
    ]);
    assert.deepEqual(await listDomains(identity, { name: 'undo' }), []);
    assert.deepEqual(await unconfigureRegion(identity, { prefix: 'undo', force: false }), [], 'nothing left to do');
  });
});
