/**
 * Upstream's v1 API on `openregion up`, end to end through HTTP only (a real socket and fetch, as an unchanged
 * upstream client would): an identity, a network and a security group in it, a server on them, a reboot that reaches
 * the cloud, the console output, then v1 deletes down to the identity's cloud project. Each object is the one v2
 * reads, at the same id. One ManualClock: time moves only while the test waits for a condition.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startUp, type RunningUp } from '../../src/cli/up.ts';
import { parseDevEnv } from '../../src/cli/up/files.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { ManualScheduler } from '../../src/runtime/scheduler.ts';
import { ManualClock } from '../../src/util/clock.ts';

type Json = Record<string, unknown>;
interface Read {
  metadata: { id: string; provisioningStatus: string };
  spec: Json;
  status?: Json;
}
interface NovaServer {
  id: string;
  taskState: string | null;
}

describe("upstream's v1 API on up, end to end through HTTP", () => {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-up-v1-'));
  const clock = new ManualClock(Date.now());
  const scheduler = new ManualScheduler(clock);
  let up: RunningUp;
  let env: Record<string, string>;

  before(async () => {
    up = await startUp({ dir, host: '127.0.0.1', port: 0, clock, scheduler, log: silentLogger() });
    env = parseDevEnv(readFileSync(join(dir, 'dev.env'), 'utf8'));
  });
  after(async () => {
    await up.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const http = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    const response = await fetch(`${env['OPENREGION_API'] ?? ''}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  const read = async (path: string): Promise<Read | undefined> => {
    const { status, json } = await http('GET', path);
    return status === 200 ? (json as Read) : undefined;
  };
  const created = async (path: string, body: unknown): Promise<string> => {
    const response = await http('POST', path, body);
    assert.equal(response.status, 201, `${path}: ${JSON.stringify(response.json)}`);
    return (response.json as Read).metadata.id;
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
  const nova = () => (up.emulator?.control.dump()['nova'] as { servers?: NovaServer[] } | undefined)?.servers ?? [];

  const organization = () => `/api/v1/organizations/${env['OPENREGION_ORGANIZATION_ID'] ?? ''}`;
  const project = () => `${organization()}/projects/${env['OPENREGION_PROJECT_ID'] ?? ''}`;
  let identity = '';
  let network = '';
  let securityGroup = '';
  let server = '';
  const inIdentity = (rest: string) => `${project()}/identities/${identity}/${rest}`;

  it('creates an identity, a network and a security group in it; v2 reads the same network and group', async () => {
    identity = await created(`${project()}/identities`, {
      metadata: { name: 'v1-identity' },
      spec: { regionId: env['OPENREGION_REGION_ID'] },
    });
    await until('identity provisioned', provisioned(`${project()}/identities/${identity}`));
    const listed = (await http('GET', `${organization()}/identities`)).json as Read[];
    assert.ok(
      listed.some((i) => i.metadata.id === identity),
      'listed among the organization identities',
    );

    network = await created(inIdentity('networks'), {
      metadata: { name: 'v1-net' },
      spec: { prefix: '192.168.10.0/24', dnsNameservers: ['8.8.8.8'] },
    });
    await until('network provisioned', provisioned(inIdentity(`networks/${network}`)));
    const v2Network = await read(`/api/v2/networks/${network}`);
    assert.equal(v2Network?.metadata.provisioningStatus, 'provisioned', 'the same network through v2');
    assert.equal(v2Network.status?.['prefix'], '192.168.10.0/24');

    securityGroup = await created(inIdentity('securitygroups'), {
      metadata: { name: 'v1-ssh' },
      spec: { rules: [{ direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' }] },
    });
    await until('security group provisioned', provisioned(inIdentity(`securitygroups/${securityGroup}`)));
    const v2Group = await read(`/api/v2/securitygroups/${securityGroup}`);
    // A v1 group lives in its identity, on no network (upstream's v1); v2 reads the same object.
    assert.deepEqual(
      [v2Group?.metadata.provisioningStatus, v2Group?.status?.['regionId'], v2Group?.spec['rules']],
      [
        'provisioned',
        env['OPENREGION_REGION_ID'],
        [{ direction: 'ingress', protocol: 'tcp', port: 22, prefix: '0.0.0.0/0' }],
      ],
      'the same security group through v2',
    );
  });

  it('creates a server from the v1 inventory, reboots it in the cloud and reads its console; v2 reads it', async () => {
    const region = env['OPENREGION_REGION_ID'] ?? '';
    const images = (await http('GET', `${organization()}/regions/${region}/images`)).json as Read[];
    const flavors = (await http('GET', `${organization()}/regions/${region}/flavors`)).json as Read[];
    const image = images[0]?.metadata.id;
    const flavor = flavors[0]?.metadata.id;
    assert.ok(image !== undefined && flavor !== undefined, 'the v1 inventory lists an image and a flavor');

    server = await created(inIdentity('servers'), {
      metadata: { name: 'v1-web' },
      spec: { flavorId: flavor, imageId: image, networks: [{ id: network }], securityGroups: [{ id: securityGroup }] },
    });
    const path = inIdentity(`servers/${server}`);
    await until('server provisioned and running', async () => {
      const s = await read(path);
      return s?.metadata.provisioningStatus === 'provisioned' && s.status?.['phase'] === 'Running';
    });
    const v2 = await read(`/api/v2/servers/${server}`);
    assert.deepEqual(
      [v2?.status?.['networkId'], v2?.spec['imageId'], v2?.status?.['powerState']],
      [network, image, 'Running'],
      'the same server through v2',
    );

    const cloudID = nova().find((s) => s.taskState === null)?.id;
    assert.ok(cloudID !== undefined && nova().length === 1, 'one Nova server, idle');
    assert.equal((await http('POST', `${path}/softreboot`)).status, 202);
    assert.equal(nova()[0]?.taskState, 'rebooting', 'the soft reboot reached Nova');
    await until('server idle and running after the reboot', async () => {
      const s = await read(path);
      return nova()[0]?.taskState === null && s?.status?.['phase'] === 'Running';
    });

    const output = await http('GET', `${path}/consoleoutput?length=5`);
    assert.equal(output.status, 200);
    assert.equal(typeof (output.json as { contents?: unknown }).contents, 'string');
  });

  it('deletes the server, the security group, the network and the identity through v1; v2 and the cloud agree', async () => {
    assert.equal((await http('DELETE', inIdentity(`servers/${server}`))).status, 202);
    await until('server gone', gone(inIdentity(`servers/${server}`)));
    assert.equal((await http('GET', `/api/v2/servers/${server}`)).status, 404, 'gone through v2 too');
    assert.deepEqual(nova(), [], 'the Nova server is deleted');

    assert.equal((await http('DELETE', inIdentity(`securitygroups/${securityGroup}`))).status, 202);
    await until('security group gone', gone(`/api/v2/securitygroups/${securityGroup}`));
    assert.equal((await http('DELETE', inIdentity(`networks/${network}`))).status, 202);
    await until('network gone', gone(`/api/v2/networks/${network}`));
    assert.equal((await http('GET', inIdentity(`networks/${network}`))).status, 404);

    const projectOf = (await read(`${project()}/identities/${identity}`))?.spec['openstack'] as
      { projectId?: string } | undefined;
    assert.ok(projectOf?.projectId !== undefined, 'the identity read names its cloud project');
    assert.equal((await http('DELETE', `${project()}/identities/${identity}`)).status, 202);
    await until('identity gone', gone(`${project()}/identities/${identity}`));
    const keystone = up.emulator?.control.dump()['keystone'] as { projects?: { id: string }[] } | undefined;
    assert.ok(keystone?.projects !== undefined, 'the emulator dumps its Keystone projects');
    assert.equal(
      keystone.projects.some((p) => p.id === projectOf.projectId),
      false,
      'the identity cloud project is deleted',
    );
  });
});
