/**
 * Fail-over, measured as an operator would see it (docs/adr/0035-failover-lease-timings.md): two `serve` replicas
 * with `--leader-election` on kube-apiserver 1.20 and the emulator (seeded as `up` seeds it), a wave of servers
 * created through the standby's REST API, and the leader SIGKILLed mid-wave, once with the `fast` Lease profile and
 * once with the defaults. It asserts what must hold whatever the timings (the standby takes over and logs whom it
 * replaced; every server converges; not one Nova server is duplicated) and PRINTS the figures, never asserting them:
 * the time from the kill to the standby holding the Lease, the gap it logged, and the wave's wall time beside a wave
 * without a crash. bench/README.md ("Fail-over") records them.
 *
 * Needs the kube-apiserver binary (scripts/kube-apiserver.sh): skipped loudly without it, a failure under CI=true.
 * Run it under `flock /tmp/openregion-realsvc.lock` on a shared machine.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { seedDemoCloud } from '../../src/cli/up/demo-cloud.ts';
import { Emulator } from '../../src/emulator/emulator.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { listServers } from '../../src/openstack/compute.ts';
import { Session } from '../../src/openstack/session.ts';
import { Transport } from '../../src/openstack/transport.ts';
import { DEV_AUDIENCE, DEV_ISSUER } from '../../src/region/http/dev-token.ts';
import { systemClock } from '../../src/util/clock.ts';
import { freePort } from './deploy-fixture.ts';
import { eventually, installRegionCrds } from './fixtures.ts';
import { configureAndRegister, forceDeregister } from './region-setup.ts';
import { withRealApiServer } from './real-apiserver.ts';

const exec = promisify(execFile);
const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const run = randomBytes(3).toString('hex');
const NAMESPACE = `failover-${run}`;
const ORGANIZATION = `org-${run}`;
const PROJECT = `project-${run}`;
const SERVERS = Number(process.env.FAILOVER_SERVERS ?? 60);
/** Bounds on waiting, not assertions about speed. */
const CONVERGE_MS = 300_000;

interface Read {
  readonly metadata: { readonly id: string; readonly name: string; readonly provisioningStatus?: string };
}

interface Replica {
  readonly process: ChildProcess;
  output: string;
  readonly health: string;
}

async function openregion(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import', 'tsx', main, ...args], {
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`openregion ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, {
      cause: error,
    });
  }
}

/** The JSON log records of a replica whose message is `msg`. */
function logged(replica: Replica, msg: string): Record<string, unknown>[] {
  return replica.output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return {};
      }
    })
    .filter((r) => r.msg === msg);
}

const ms = (n: number) => `${(n / 1000).toFixed(1)} s`;

await withRealApiServer('test/kube/failover.test.ts', (apiserver) => {
  describe('fail-over: the leader SIGKILLed mid-wave, with the fast Lease profile and the defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openregion-failover-'));
    const files = {
      kubeconfig: '',
      cloudsYaml: join(dir, 'clouds.yaml'),
      providerEnv: join(dir, 'region.env'),
      key: join(dir, 'dev-key.json'),
      publicKey: join(dir, 'dev-key.pem'),
    };
    let cluster: KubernetesClient;
    let emulator: Emulator;
    let admin: Session<'project'>;
    let transport: Transport;
    let token = '';
    let regionId = '';
    const replicas: Replica[] = [];
    const figures: string[] = [];

    before(async () => {
      files.kubeconfig = await apiserver.kubeconfigPath();
      cluster = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      await installRegionCrds(cluster);
      emulator = await Emulator.start({ config: { octaviaNetworkDriver: 'allowed_address_pairs' } });
      transport = new Transport({ clock: systemClock, random: Math.random });
      admin = new Session<'project'>({
        authUrl: emulator.authUrl,
        auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: 'secret' },
        scope: { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
        transport,
        clock: systemClock,
        region: 'RegionOne',
      });
      await seedDemoCloud(admin);
      writeFileSync(files.cloudsYaml, emulator.cloudsYaml('emulator'), { mode: 0o600 });
      const env = { OS_CLIENT_CONFIG_FILE: files.cloudsYaml };
      ({ regionId } = await configureAndRegister(openregion, {
        prefix: `fo-${run}`,
        providerEnv: files.providerEnv,
        osCloud: 'emulator',
        env,
        name: `failover-${run}`,
        namespace: NAMESPACE,
        kubeconfig: files.kubeconfig,
        organization: ORGANIZATION,
      }));
      token = (
        await openregion([
          'token',
          '--key',
          files.key,
          '--public-key',
          files.publicKey,
          '--organization-id',
          ORGANIZATION,
          '--project-id',
          PROJECT,
          '--lifetime',
          '2h',
        ])
      ).trim();
    });

    after(async () => {
      for (const replica of replicas) if (replica.process.exitCode === null) replica.process.kill('SIGKILL');
      if (figures.length > 0)
        process.stdout.write(`\nfail-over figures (${String(SERVERS)} servers a wave):\n${figures.join('\n')}\n\n`);
      await forceDeregister(openregion, { regionId, namespace: NAMESPACE, kubeconfig: files.kubeconfig }).catch(
        (error: unknown) => process.stderr.write(`failover: deregister: ${String(error)}\n`),
      );
      for (const name of ['openregion-controllers', 'openregion-server-monitor']) {
        await cluster.delete(builtin.lease, NAMESPACE, name).catch(() => undefined);
      }
      cluster.close();
      await transport.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A `serve` replica with the region groups, the REST API when `api` is given, and these Lease flags. */
    async function startReplica(leaseFlags: readonly string[], api?: number): Promise<Replica> {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          main,
          'serve',
          `--kubeconfig=${files.kubeconfig}`,
          `--namespace=${NAMESPACE}`,
          '--controllers=identities,networks,servers,loadbalancers,volumes,monitor',
          '--leader-election',
          ...leaseFlags,
          '--poll-period=2s',
          `--health=127.0.0.1:${String(port)}`,
          ...(api === undefined
            ? []
            : [
                `--api=127.0.0.1:${String(api)}`,
                `--public-key-file=${files.publicKey}`,
                `--issuer=${DEV_ISSUER}`,
                `--audience=${DEV_AUDIENCE}`,
              ]),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const replica: Replica = { process: child, output: '', health: `http://127.0.0.1:${String(port)}` };
      child.stdout.on('data', (chunk: Buffer) => (replica.output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (replica.output += chunk.toString()));
      replicas.push(replica);
      await eventually(
        `/readyz of a replica (output so far: ${replica.output.slice(-2000)})`,
        async () =>
          (await fetch(`${replica.health}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
        120_000,
      );
      return replica;
    }

    const lease = () => cluster.get(builtin.lease, NAMESPACE, 'openregion-controllers').catch(() => undefined);
    const identityOf = (replica: Replica) =>
      String(
        logged(replica, 'standing for election').find((r) => r.lease === `${NAMESPACE}/openregion-controllers`)
          ?.identity,
      );

    function client(api: number) {
      return async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
        const response = await fetch(`http://127.0.0.1:${String(api)}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${method} ${path}: ${String(response.status)} ${text}`);
        return (text === '' ? undefined : JSON.parse(text)) as T;
      };
    }

    /**
     * One wave: a network, then SERVERS servers created by 8 concurrent clients; `midWave` runs once a third have
     * converged. Answers the wave's wall time (first create to last provisioned). Everything is deleted after.
     */
    async function wave(api: number, label: string, midWave?: () => Promise<void>): Promise<number> {
      const rest = client(api);
      const offered = async (what: string, name: string) =>
        (await rest<Read[]>('GET', `/api/v2/regions/${regionId}/${what}`)).find((o) => o.metadata.name === name);
      const flavor = await eventually('the demo flavor offered', () => offered('flavors', 'demo.small'), 60_000);
      const image = await eventually('the demo image offered', () => offered('images', 'ubuntu-24.04'), 60_000);
      const network = await rest<Read>('POST', '/api/v2/networks', {
        metadata: { name: `${label}-net` },
        spec: {
          organizationId: ORGANIZATION,
          projectId: PROJECT,
          regionId,
          prefix: '192.168.0.0/16',
          dnsNameservers: [],
        },
      });
      await eventually(
        'the network provisioned',
        async () =>
          (await rest<Read>('GET', `/api/v2/networks/${network.metadata.id}`)).metadata.provisioningStatus ===
          'provisioned'
            ? true
            : undefined,
        CONVERGE_MS,
      );
      const ids: string[] = [];
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = next++; i < SERVERS; i = next++) {
            const created = await rest<Read>('POST', '/api/v2/servers', {
              metadata: { name: `${label}-${String(i)}` },
              spec: { networkId: network.metadata.id, flavorId: flavor.metadata.id, imageId: image.metadata.id },
            });
            ids.push(created.metadata.id);
          }
        }),
      );
      const provisioned = async () =>
        (await rest<Read[]>('GET', '/api/v2/servers')).filter(
          (s) => s.metadata.name.startsWith(`${label}-`) && s.metadata.provisioningStatus === 'provisioned',
        ).length;
      if (midWave !== undefined) {
        await eventually(
          'a third of the wave converged',
          async () => ((await provisioned()) >= SERVERS / 3 ? true : undefined),
          CONVERGE_MS,
        );
        await midWave();
      }
      await eventually(
        `every server of ${label} provisioned`,
        async () => ((await provisioned()) === SERVERS ? true : undefined),
        CONVERGE_MS,
      );
      const wall = performance.now() - started;

      // Not one server made twice, whatever the crash interrupted.
      const nova = (await listServers(admin.client('compute'), { allTenants: true })).filter((s) =>
        s.name.startsWith(`${label}-`),
      );
      const byName = new Map<string, number>();
      for (const s of nova) byName.set(s.name, (byName.get(s.name) ?? 0) + 1);
      assert.deepEqual(
        [...byName].filter(([, n]) => n > 1),
        [],
        'no duplicate Nova server',
      );
      assert.equal(byName.size, SERVERS);

      for (const id of ids) await rest('DELETE', `/api/v2/servers/${id}`);
      await rest('DELETE', `/api/v2/networks/${network.metadata.id}`);
      await eventually(
        `the wave ${label} deleted`,
        async () => {
          const response = await fetch(`http://127.0.0.1:${String(api)}/api/v2/networks/${network.metadata.id}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          return response.status === 404 ? true : undefined;
        },
        CONVERGE_MS,
      );
      return wall;
    }

    /** Two replicas: the first leads, the second stands by with the API; the leader is SIGKILLed mid-wave. */
    async function crashMidWave(profile: string, leaseFlags: readonly string[]): Promise<void> {
      const api = await freePort();
      const leader = await startReplica(leaseFlags);
      await eventually(
        'the first replica leads',
        async () => ((await lease())?.spec?.holderIdentity === identityOf(leader) ? true : undefined),
        60_000,
      );
      const standby = await startReplica(leaseFlags, api);
      assert.notEqual(identityOf(standby), 'undefined', 'the standby logged its identity at start, before leading');
      let killedAt = 0;
      let tookAt = 0;
      const wall = await wave(api, `fo-${profile}`, async () => {
        killedAt = performance.now();
        leader.process.kill('SIGKILL');
        await eventually(
          'the standby takes the Lease',
          async () => ((await lease())?.spec?.holderIdentity === identityOf(standby) ? true : undefined),
          CONVERGE_MS,
        );
        tookAt = performance.now();
      });
      const became = logged(standby, 'became leader').find((r) => r.component === 'leader-election');
      assert.equal(became?.previousHolder, identityOf(leader), 'the new leader names the one it replaced');
      assert.equal(became.released, false, 'a SIGKILLed leader releases nothing');
      figures.push(
        `  ${profile.padEnd(8)} lease ${leaseFlags.join(' ') || 'defaults (15s/10s/2s)'}: kill -> standby holds the Lease ${ms(tookAt - killedAt)}; ` +
          `gap logged ${ms(Number(became.gapMs))}; wave with the crash ${ms(wall)}`,
      );
      standby.process.kill('SIGTERM');
      await eventually(
        'the standby stopped',
        () => Promise.resolve(standby.process.exitCode !== null ? true : undefined),
        60_000,
      );
    }

    it('a wave without a crash (the baseline)', async () => {
      const api = await freePort();
      const only = await startReplica(['--leader-election-profile=fast'], api);
      await eventually(
        'it leads',
        async () => ((await lease())?.spec?.holderIdentity === identityOf(only) ? true : undefined),
        60_000,
      );
      const wall = await wave(api, 'fo-base');
      figures.push(`  baseline one replica, no crash: wave ${ms(wall)}`);
      only.process.kill('SIGTERM');
      await eventually('it stopped', () => Promise.resolve(only.process.exitCode !== null ? true : undefined), 60_000);
    });

    it('fast profile: the standby takes over, every server converges, none duplicated', async () => {
      await crashMidWave('fast', ['--leader-election-profile=fast']);
    });

    it("controller-runtime's defaults: the same, later", async () => {
      await crashMidWave('default', []);
    });
  });
});
