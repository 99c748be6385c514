/**
 * `openregion up` end to end, in-process, through HTTP only (a real socket and fetch, as a newcomer's curl would):
 * create a network and a security group and see them provisioned, create a server and see it provisioned, change
 * its image and see it rebuilt, delete everything and see it gone, from the cloud too. Everything runs on one
 * ManualClock: the test moves time forward only while it waits for a condition, so the controllers' 10 s rechecks
 * and the emulator's build times pass without real sleeps. A restart then resumes from the store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import {
  bundledActuatorPermissions,
  keystoneOperatorPermissions,
  regionServicePermissions,
} from '../../src/cli/deploy/permissions.ts';
import { grantsOf } from '../../src/cli/deploy/rbac.ts';
import { REGION_NAMESPACE, startUp, type RunningUp } from '../../src/cli/up.ts';
import { parseDevEnv, upFiles } from '../../src/cli/up/files.ts';
import { DEV_AUDIENCE, DEV_ISSUER, signDevToken, type DevKeyPair } from '../../src/region/http/dev-token.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { AuthorizingClient } from '../../src/runtime/rbac.ts';
import { ManualScheduler } from '../../src/runtime/scheduler.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { restClient } from './child.ts';

type Json = Record<string, unknown>;
interface Read {
  metadata: { id: string; provisioningStatus: string };
  spec: Json;
  status: Json;
}

describe('openregion up, end to end through HTTP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-up-'));
  const clock = new ManualClock(Date.now());
  const scheduler = new ManualScheduler(clock);
  let up: RunningUp;
  let env: Record<string, string>;

  // The running system holds the RBAC the deploy overlays ship (and the bundled actuators'): a call they do not
  // grant is refused as kube-apiserver would refuse it, and recorded.
  const grants = grantsOf(
    [...regionServicePermissions(), ...keystoneOperatorPermissions('cluster'), ...bundledActuatorPermissions()],
    REGION_NAMESPACE,
  );
  const authorizers: AuthorizingClient[] = [];
  const start = () =>
    startUp({
      dir,
      host: '127.0.0.1',
      port: 0,
      clock,
      scheduler,
      log: silentLogger(),
      monitorPeriodMs: 5_000,
      runtimeClient: (store) => {
        const authorizer = new AuthorizingClient(store, grants);
        authorizers.push(authorizer);
        return authorizer;
      },
    });

  before(async () => {
    up = await start();
    env = parseDevEnv(readFileSync(join(dir, 'dev.env'), 'utf8'));
  });
  after(async () => {
    await up.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What a second terminal does: the printed API, the token file, JSON in and out. */
  const http = restClient(dir, () => env['OPENREGION_API'] ?? '');
  const read = async (path: string): Promise<Read | undefined> => {
    const { status, json } = await http('GET', path);
    return status === 200 ? (json as Read) : undefined;
  };

  /** Lets the system work until `probe` holds: real turns for I/O, then a second of the shared clock. */
  const until = async (what: string, probe: () => Promise<boolean>): Promise<void> => {
    for (let i = 0; i < 600; i++) {
      if (await probe()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
      await scheduler.advance(1_000);
    }
    assert.fail(`${what}: did not happen`);
  };
  const provisioned = (path: string) => async () => (await read(path))?.metadata.provisioningStatus === 'provisioned';
  const gone = (path: string) => async () => (await http('GET', path)).status === 404;

  it('writes what a newcomer needs: the token, dev.env with the API and ids, clouds.yaml', () => {
    assert.equal(env['OPENREGION_API'], up.api);
    assert.equal(env['OPENREGION_ORGANIZATION_ID'], up.organizationID);
    assert.equal(env['OPENREGION_PROJECT_ID'], up.projectID);
    assert.equal(env['OPENREGION_REGION_ID'], up.regionID);
    assert.match(readFileSync(join(dir, 'clouds.yaml'), 'utf8'), /emulator:/);
  });

  let network = '';
  let securityGroup = '';

  it('creates a network and a security group and sees both provisioned', async () => {
    const created = await http('POST', '/api/v2/networks', {
      metadata: { name: 'net-1' },
      spec: {
        organizationId: env['OPENREGION_ORGANIZATION_ID'],
        projectId: env['OPENREGION_PROJECT_ID'],
        regionId: env['OPENREGION_REGION_ID'],
        prefix: '192.168.0.0/24',
        dnsNameservers: [],
      },
    });
    assert.equal(created.status, 201);
    network = (created.json as Read).metadata.id;
    await until('network provisioned', provisioned(`/api/v2/networks/${network}`));
    const sg = await http('POST', '/api/v2/securitygroups', {
      metadata: { name: 'ssh' },
      spec: { networkId: network, rules: [{ direction: 'ingress', protocol: 'tcp', port: 22 }] },
    });
    assert.equal(sg.status, 201);
    securityGroup = (sg.json as Read).metadata.id;
    await until('security group provisioned', provisioned(`/api/v2/securitygroups/${securityGroup}`));
    const listed = await http('GET', `/api/v2/securitygroups?networkID=${network}`);
    assert.equal((listed.json as Read[]).length, 1);
  });

  it('creates a server, sees it provisioned, changes its image and sees it rebuilt, then deletes it', async (t) => {
    const images = await http('GET', `/api/v2/regions/${env['OPENREGION_REGION_ID'] ?? ''}/images`);
    if (images.status === 501) {
      t.skip('this build has no region inventory (flavors and images), so server creation answers 501');
      return;
    }
    const [first, second] = (images.json as Read[]).map((i) => i.metadata.id);
    const flavors = await http('GET', `/api/v2/regions/${env['OPENREGION_REGION_ID'] ?? ''}/flavors`);
    const flavor = (flavors.json as Read[])[0]?.metadata.id;
    assert.ok(first !== undefined && second !== undefined && flavor !== undefined);
    const created = await http('POST', '/api/v2/servers', {
      metadata: { name: 'web-1' },
      spec: { networkId: network, flavorId: flavor, imageId: first, networking: { securityGroups: [securityGroup] } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const server = (created.json as Read).metadata.id;
    const path = `/api/v2/servers/${server}`;
    await until('server provisioned and running', async () => {
      const s = await read(path);
      return s?.metadata.provisioningStatus === 'provisioned' && s.status['powerState'] === 'Running';
    });
    // Power actions run against the cloud and the monitor reports their effect.
    assert.equal((await http('POST', `${path}/stop`)).status, 202);
    await until('server stopped', async () => (await read(path))?.status['powerState'] === 'Stopped');
    assert.equal((await http('POST', `${path}/start`)).status, 202);
    await until('server running again', async () => (await read(path))?.status['powerState'] === 'Running');
    const console = await http('GET', `${path}/consoleoutput?length=5`);
    assert.equal(console.status, 200);
    assert.equal(typeof (console.json as { contents?: unknown }).contents, 'string');
    const changed = await http('PUT', path, {
      metadata: { name: 'web-1' },
      spec: { flavorId: flavor, imageId: second, networking: { securityGroups: [securityGroup] } },
    });
    assert.equal(changed.status, 202);
    assert.equal(
      (changed.json as Read).metadata.provisioningStatus,
      'provisioning',
      'an image change reads provisioning',
    );
    await until('server rebuilt onto the new image', async () => {
      const s = await read(path);
      return (
        s?.metadata.provisioningStatus === 'provisioned' &&
        s.spec['imageId'] === second &&
        s.status['powerState'] === 'Running'
      );
    });
    const nova = up.emulator?.control.dump()['nova'] as { servers?: { imageRef: string }[] } | undefined;
    assert.deepEqual(
      (nova?.servers ?? []).map((s) => s.imageRef),
      [second],
      'Nova runs the new image',
    );
    assert.equal((await http('DELETE', path)).status, 202);
    await until('server gone', gone(path));
  });

  it('deletes the security group and the network; both disappear', async () => {
    assert.equal((await http('DELETE', `/api/v2/securitygroups/${securityGroup}`)).status, 202);
    await until('security group gone', gone(`/api/v2/securitygroups/${securityGroup}`));
    assert.equal((await http('DELETE', `/api/v2/networks/${network}`)).status, 202);
    await until('network gone', gone(`/api/v2/networks/${network}`));
    const neutron = up.emulator?.control.dump()['neutron'] as { networks?: { name: string }[] } | undefined;
    const left = (neutron?.networks ?? []).filter((n) => n.name.includes(network));
    assert.deepEqual(left, [], 'the Neutron network is deleted too');
  });

  it('its token carries exp, iss and aud, and up refuses a token of its own key for another issuer or audience', async () => {
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    const claims = decodeJwt(token);
    assert.deepEqual([claims.iss, claims.aud], [DEV_ISSUER, DEV_AUDIENCE]);
    assert.ok(typeof claims.exp === 'number' && claims.exp * 1000 > clock.now());
    const keys = JSON.parse(readFileSync(upFiles(dir).key, 'utf8')) as DevKeyPair;
    const scope = { subject: 'developer', organizationIDs: [up.organizationID] };
    const list = async (bearer: string) =>
      (await fetch(`${up.api}/api/v2/networks`, { headers: { authorization: `Bearer ${bearer}` } })).status;
    assert.equal(await list(await signDevToken(keys, scope, clock)), 200);
    assert.equal(await list(await signDevToken(keys, { ...scope, audience: 'another-service' }, clock)), 401);
    assert.equal(await list(await signDevToken(keys, { ...scope, issuer: 'https://elsewhere' }, clock)), 401);
  });

  it('answers the probes and /metrics on the API port, without a token', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const response = await fetch(`${up.api}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(await response.text(), /check passed/);
    }
    const scrape = await fetch(`${up.api}/metrics`);
    assert.equal(scrape.status, 200);
    const text = await scrape.text();
    assert.match(text, /^controller_runtime_reconcile_total\{controller="[^"]+",result="success"\} [1-9]/m);
    assert.match(text, /^workqueue_adds_total\{name="[^"]+"\} [1-9]/m);
    assert.match(text, /^# TYPE c5c3_operator_reconcile_duration_seconds histogram$/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
  });

  it('a restart resumes from the store: the same region and identity, and what was created is still there', async () => {
    const created = await http('POST', '/api/v2/networks', {
      metadata: { name: 'kept' },
      spec: {
        organizationId: env['OPENREGION_ORGANIZATION_ID'],
        projectId: env['OPENREGION_PROJECT_ID'],
        regionId: env['OPENREGION_REGION_ID'],
        prefix: '10.1.0.0/24',
        dnsNameservers: [],
      },
    });
    const kept = (created.json as Read).metadata.id;
    const before = { region: up.regionID, organization: up.organizationID };
    await up.stop();
    up = await start();
    env = parseDevEnv(readFileSync(join(dir, 'dev.env'), 'utf8'));
    assert.deepEqual({ region: up.regionID, organization: up.organizationID }, before);
    await until('the kept network provisioned after the restart', provisioned(`/api/v2/networks/${kept}`));
  });

  it('made no call the generated RBAC does not grant (openregion rbac)', () => {
    assert.ok(authorizers.length === 2, 'both starts ran through the authorizer');
    assert.deepEqual(
      authorizers.flatMap((a) => a.denied),
      [],
    );
  });
});
