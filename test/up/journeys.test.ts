/**
 * `openregion up` as a newcomer lives it, as a child process (issue 19's Done means):
 *
 * 1. The README's walkthrough, its sh block run verbatim in a second shell: create, wait, rebuild, attach a volume,
 *    delete.
 * 2. At the same time, through the REST API: a network, a server, a volume and a load balancer with a public IP,
 *    all provisioned.
 * 3. `kill -9` and a fresh start, then Ctrl-C (SIGINT) and a fresh start. After each start, once every resource has
 *    had a pass that ended done and the server monitor has polled, every resource reads provisioned with unchanged
 *    ids, and the built-in cloud holds exactly the records it held before: the same ids, one of each, no errors.
 *
 * The walkthrough runs in a directory inside the repository (under .cache/, ignored), as a newcomer's checkout has
 * it: `npm run openregion` finds the package from there.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseDevEnv } from '../../src/cli/up/files.ts';
import { cloudIDs, cloudState, REPO, restClient, startChildUp, type ChildUp } from './child.ts';

/** Bounds on waiting, not assertions about speed: convergence rides the controllers' 10 s rechecks. */
const CONVERGE_MS = 240_000;
const POLL_MS = 250;

interface Read {
  readonly metadata: { id: string; provisioningStatus: string; healthStatus: string };
  readonly status: Record<string, unknown>;
}

interface Seen {
  readonly reads: Record<string, Read>;
  readonly cloud: Record<string, string[]>;
}

/** The README's walkthrough: the sh block after its `walkthrough` marker. */
function walkthrough(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const marker = readme.indexOf('<!-- walkthrough:');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
  assert.ok(marker >= 0 && block?.[1] !== undefined, 'README.md has a walkthrough block');
  return block[1];
}

describe('up as a newcomer runs it: the README walkthrough, then kill -9 and Ctrl-C resume everything', () => {
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  const root = mkdtempSync(join(REPO, '.cache', 'journeys-'));
  const dir = join(root, '.openregion');
  let up: ChildUp;
  const rest = restClient(dir, () => up.api);
  const paths: Record<string, string> = {};
  let before0: Seen;

  before(async () => {
    up = await startChildUp(dir);
  });
  after(async () => {
    await up.stop('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  const until = async (what: string, probe: () => Promise<boolean>): Promise<void> => {
    const deadline = Date.now() + CONVERGE_MS;
    while (!(await probe())) {
      if (Date.now() > deadline) assert.fail(`${what}: not within ${String(CONVERGE_MS)} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  const read = async (path: string) => {
    const { status, json } = await rest('GET', path);
    assert.equal(status, 200, path);
    return json as Read;
  };
  const created = async (path: string, body: unknown): Promise<string> => {
    const { status, json } = await rest('POST', path, body);
    assert.equal(status, 201, `${path}: ${JSON.stringify(json)}`);
    return (json as Read).metadata.id;
  };
  const allProvisioned = async () => {
    for (const path of Object.values(paths)) {
      if ((await read(path)).metadata.provisioningStatus !== 'provisioned') return false;
    }
    return true;
  };
  const seen = async (): Promise<Seen> => {
    const reads: Record<string, Read> = {};
    for (const [kind, path] of Object.entries(paths)) reads[kind] = await read(path);
    return { reads, cloud: cloudIDs(await cloudState(dir)) };
  };

  describe('the first run: two terminals at once', { concurrency: 2 }, () => {
    it('the README walkthrough, verbatim: create, wait, rebuild, attach, delete; nothing of it is left in the cloud', async () => {
      // Only the harness's last line is added: it prints the ids the walkthrough made, to look for them afterwards.
      const script = `${walkthrough()}\necho "walkthrough ids: $NETWORK_ID $SERVER_ID $VOLUME_ID"\n`;
      const env = Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !key.startsWith('OS_') && !key.startsWith('OPENREGION_')),
      );
      const shell = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: root,
        env: { ...env, NODE_OPTIONS: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      shell.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      shell.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const [code] = (await once(shell, 'exit')) as [number | null];
      assert.equal(code, 0, `the walkthrough failed:\n${output}`);
      assert.match(output, /server\.region\.unikorn-cloud\.org\/[0-9a-f-]{36} condition met/);
      assert.match(output, /^\| scope +\| project /m, 'cloud check reached the built-in cloud');
      const [, networkID, serverID, volumeID = '-'] =
        /walkthrough ids: (\S+) (\S+) (\S+)/.exec(output) ?? assert.fail(output);
      assert.match(
        output,
        new RegExp(`"volumes":\\[\\{"volumeId":"${volumeID}","provisioningStatus":"provisioned","device":"/dev/vd`),
        'the server read its volume attached',
      );
      const state = JSON.stringify(await cloudState(dir));
      assert.ok(!state.includes(serverID ?? '-'), 'the server is gone from the cloud');
      assert.ok(!state.includes(volumeID), 'the volume is gone from the cloud');
      assert.ok(!state.includes(networkID ?? '-'), 'the network is gone from the cloud');
    });

    it('creates a network, a server, a volume and a load balancer with a public IP; all provisioned', async () => {
      const env = parseDevEnv(readFileSync(join(dir, 'dev.env'), 'utf8'));
      const region = env['OPENREGION_REGION_ID'] ?? '';
      const first = async (path: string) => ((await rest('GET', path)).json as Read[])[0]?.metadata.id;
      const [image, flavor, volumeClass] = await Promise.all([
        first(`/api/v2/regions/${region}/images`),
        first(`/api/v2/regions/${region}/flavors`),
        first(`/api/v2/regions/${region}/volumeclasses`),
      ]);
      assert.ok(image !== undefined && flavor !== undefined && volumeClass !== undefined);
      const network = await created('/api/v2/networks', {
        metadata: { name: 'net-2' },
        spec: {
          organizationId: env['OPENREGION_ORGANIZATION_ID'],
          projectId: env['OPENREGION_PROJECT_ID'],
          regionId: region,
          prefix: '192.168.10.0/24',
          dnsNameservers: [],
        },
      });
      paths.network = `/api/v2/networks/${network}`;
      const [server, volume, loadBalancer] = await Promise.all([
        created('/api/v2/servers', {
          metadata: { name: 'web-1' },
          spec: { networkId: network, flavorId: flavor, imageId: image },
        }),
        created('/api/v2/volumes', {
          metadata: { name: 'data-1' },
          spec: { networkId: network, volumeClassId: volumeClass, sizeGiB: 10 },
        }),
        created('/api/v2/loadbalancers', {
          metadata: { name: 'lb-1' },
          spec: {
            networkId: network,
            publicIP: true,
            listeners: [{ name: 'http', protocol: 'tcp', port: 80, pool: { members: [] } }],
          },
        }),
      ]);
      paths.server = `/api/v2/servers/${server}`;
      paths.volume = `/api/v2/volumes/${volume}`;
      paths.loadBalancer = `/api/v2/loadbalancers/${loadBalancer}`;
      await until('everything provisioned', allProvisioned);
      const lb = (await read(paths.loadBalancer)).status;
      assert.match(String(lb.publicIP), /^\d+\.\d+\.\d+\.\d+$/, 'a public IP');
      const state = await cloudState(dir);
      const nova = state.nova as { servers: { vmState: string }[] };
      const cinder = state.cinder as { volumes: { name: string; status: string }[] };
      const octavia = state.octavia as { loadbalancers: { provisioning: string }[] };
      const neutron = state.neutron as { floatingIps: { portId: string | null }[] };
      assert.ok(nova.servers.length >= 1 && nova.servers.every((s) => s.vmState === 'active'));
      // The walkthrough, running meanwhile, has a volume of its own.
      assert.deepEqual(
        cinder.volumes.filter((v) => v.name === `volume-${volume}`).map((v) => v.status),
        ['available'],
      );
      assert.deepEqual(
        octavia.loadbalancers.map((l) => l.provisioning),
        ['ACTIVE'],
      );
      assert.equal(neutron.floatingIps.filter((f) => f.portId !== null).length, 1);
    });
  });

  /** After a start: every resource has had a pass that ended done, and the monitor has polled without failure. */
  const settledAfterStart = async (): Promise<void> => {
    const ids = Object.values(paths).map((path) => path.split('/').at(-1));
    await until('a done pass for every resource and a clean monitor poll', () => {
      const done = new Set(
        up.logs.filter((l) => l.msg === 'reconciled' && l.result === 'success').map((l) => String(l.name)),
      );
      const polled = up.logs.some((l) => l.msg === 'server monitor polled' && l.failures === 0);
      return Promise.resolve(polled && ids.every((id) => id !== undefined && done.has(id)));
    });
  };

  const assertResumed = async (): Promise<void> => {
    const now = await seen();
    for (const [kind, read] of Object.entries(now.reads)) {
      const was = before0.reads[kind];
      assert.equal(read.metadata.id, was?.metadata.id, kind);
      assert.equal(read.metadata.provisioningStatus, 'provisioned', `${kind}: ${JSON.stringify(read.metadata)}`);
      assert.equal(read.metadata.healthStatus, was?.metadata.healthStatus, `${kind} health`);
    }
    assert.deepEqual(now.reads.loadBalancer?.status, before0.reads.loadBalancer?.status, 'the same VIP and public IP');
    assert.deepEqual(now.cloud, before0.cloud, 'the cloud holds exactly what it held: nothing re-created or added');
    const errors = up.logs.filter((l) => l.level === 'error' || l.level === 'fatal');
    assert.deepEqual(errors, [], 'nothing logged at error level');
  };

  it('kill -9, then a fresh start: the same resources, provisioned, in the same cloud', async () => {
    before0 = await seen();
    const state = await cloudState(dir);
    const count = (service: string, collection: string) => (state[service]?.[collection] as unknown[]).length;
    assert.deepEqual(
      [count('nova', 'servers'), count('cinder', 'volumes'), count('octavia', 'loadbalancers')],
      [1, 1, 1],
      'one of each: the walkthrough deleted its own',
    );
    assert.equal(await up.stop('SIGKILL'), null);
    up = await startChildUp(dir);
    await settledAfterStart();
    await assertResumed();
  });

  it('Ctrl-C (SIGINT), then a fresh start: the same again', async () => {
    assert.equal(await up.stop('SIGINT'), 0);
    up = await startChildUp(dir);
    await settledAfterStart();
    await assertResumed();
  });
});
