/**
 * The production path as an operator walks it, with the CLI as a child process each step, on a kube-apiserver 1.20
 * of this suite's (so "the cluster holds what it held" is exact: no other suite writes there) and the shared dev
 * cloud (real Keystone, Nova, Neutron):
 *
 * `region configure` → `region register` (no namespace beforehand) → `openregion token` → `serve --api` with that
 * token's key, `--leader-election`, `--bundled-actuators` → a server on `or.small` through the REST API → a flavor
 * the admin adds shows in the API without a restart → a KeystoneUser to Ready (real Keystone, the emulator's KV) → a
 * second replica's /readyz is 200 while standing by → everything deleted → `region deregister` → `region
 * unconfigure`; then the cluster holds exactly what it held before (the suite plays kube-controller-manager's
 * namespace controller, which this apiserver lacks) and the cloud holds nothing of the walk's.
 *
 * Needs the kube-apiserver binary (scripts/kube-apiserver.sh) and the dev cloud (scripts/devcloud.sh): skipped
 * loudly without either, a failure under CI=true.
 */
import { c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig, V1Namespace, V1NamespaceSpec, V1ObjectMeta } from '@kubernetes/client-node';
import { Emulator } from '../../src/emulator/emulator.ts';
import { installCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import { discoverStoreType, keystoneCrds, keystoneUserType, type KeystoneUser } from '../../src/keystone/apis/index.ts';
import { customResourceDefinition } from '../../src/kube/crd.ts';
import { isKubeNotFound } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin, type ResourceType } from '../../src/kube/resource-type.ts';
import { deleteServer, listFlavors, listServers } from '../../src/openstack/compute.ts';
import {
  deleteDomain,
  deleteProject,
  deleteUser,
  findUserByName,
  listDomains,
  listProjects,
  listUsers,
  updateDomain,
} from '../../src/openstack/identity.ts';
import {
  deleteNetwork,
  deletePort,
  deleteRouter,
  deleteSecurityGroup,
  listFloatingIPs,
  listNetworks,
  listPorts,
  listRouters,
  listSecurityGroups,
} from '../../src/openstack/network.ts';
import { regionKinds, regionType } from '../../src/region/apis/index.ts';
import { esoCrds, korcCrds } from '../fixtures/third-party-crds/index.ts';
import { cloudsFile, contractCloud } from '../openstack/cloud.ts';
import { setUpExternalControlPlane } from './control-plane-fixture.ts';
import { freePort } from './deploy-fixture.ts';
import { eventually } from './fixtures.ts';
import { configureAndRegister } from './region-setup.ts';
import { startPrivateApiServer, type PrivateApiServer } from './keystone-clusters.ts';
import { withRealApiServer } from './real-apiserver.ts';
import { DEV_AUDIENCE, DEV_ISSUER } from '../../src/region/http/dev-token.ts';

const exec = promisify(execFile);
const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const run = randomBytes(3).toString('hex');
const PREFIX = `walk-${run}`;
const NAMESPACE = `walk-${run}`;
const CP_NS = `walk-${run}-cp`;
const ORGANIZATION = `org-${run}`;
const PROJECT = `project-${run}`;
const KV_TOKEN = 'walk-kv';
/** Bounds on waiting for the cloud and the controllers, not assertions about their speed. */
const CONVERGE_MS = 240_000;

interface Read {
  readonly metadata: { readonly id: string; readonly name: string; readonly provisioningStatus?: string };
}

/** An `openregion` command as an operator runs it; its output, or the failure with its output. */
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

const cloud = await contractCloud();

await withRealApiServer('test/kube/operator-walk.test.ts', () => {
  describe('the operator walk: configure, register, serve, use, deregister, unconfigure', { skip: !cloud }, () => {
    const c = cloud as NonNullable<typeof cloud>;
    const dir = mkdtempSync(join(tmpdir(), 'openregion-walk-'));
    const files = {
      kubeconfig: join(dir, 'kubeconfig'),
      providerEnv: join(dir, 'region.env'),
      key: join(dir, 'dev-key.json'),
      publicKey: join(dir, 'dev-key.pem'),
    };
    const adminEnv = { OS_CLIENT_CONFIG_FILE: cloudsFile };
    let server: PrivateApiServer | undefined;
    let cluster: KubernetesClient;
    let emulator: Emulator;
    const replicas: { process: ChildProcess; output: string; health: string }[] = [];
    let api = '';
    let token = '';
    let regionId = '';
    let clusterBefore: string[] = [];
    let cloudBefore: CloudState;
    const ours = { projects: new Set<string>(), flavor: '', domain: '' };

    before(async () => {
      emulator = await Emulator.start({ config: { kvToken: KV_TOKEN } });
      server = await startPrivateApiServer(`walk-${run}`);
      writeFileSync(files.kubeconfig, server.kubeconfig, { mode: 0o600 });
      cluster = kubeClientFrom({ kubeconfig: server.kubeconfig });
      // What the platform team installed before the operator arrives: every CRD (openregion's, K-ORC's, ESO's), so
      // serve --bundled-actuators keeps them all and the walk itself installs nothing cluster-wide.
      await installCrds(cluster, [
        ...regionKinds.map((k) => customResourceDefinition(k)),
        ...keystoneCrds(),
        ...c5c3StandInCrds(),
        ...korcCrds(),
        ...esoCrds('v2.9'),
      ]);
      await cluster.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CP_NS } });
      clusterBefore = await clusterState(cluster);
      cloudBefore = await cloudState();
    });

    after(async () => {
      for (const replica of replicas) if (replica.process.exitCode === null) replica.process.kill('SIGKILL');
      await purgeWhatIsLeft().catch((error: unknown) => {
        process.stderr.write(`operator walk: cleaning the cloud failed: ${String(error)}\n`);
      });
      cluster.close();
      await server?.stop();
      await emulator.close();
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('configure makes the Keystone scaffolding; register makes the namespace and the Region', async () => {
      await assert.rejects(cluster.get(builtin.namespace, undefined, NAMESPACE), isKubeNotFound, 'no namespace yet');
      const { configured, registered, ...region } = await configureAndRegister(openregion, {
        prefix: PREFIX,
        providerEnv: files.providerEnv,
        osCloud: 'devcloud-admin',
        env: adminEnv,
        name: `walk-${run}`,
        namespace: NAMESPACE,
        kubeconfig: files.kubeconfig,
        organization: ORGANIZATION,
      });
      assert.match(configured, new RegExp(`created domain ${PREFIX}`));
      ours.domain = (await listDomains(identity(), { name: PREFIX }))[0]?.id ?? assert.fail('the domain');
      assert.match(registered, new RegExp(`namespace/${NAMESPACE} created`));
      assert.match(registered, new RegExp(`region ${region.regionId} \\(walk-[0-9a-f]+\\) created`));
      regionId = region.regionId;
      assert.equal((await cluster.get(regionType, NAMESPACE, regionId)).spec.provider, 'openstack');
    });

    it('serve, with a token openregion token minted, answers the API; a standby replica is Ready too', async () => {
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
          '1h',
        ])
      ).trim();
      const apiPort = await freePort();
      api = `http://127.0.0.1:${String(apiPort)}`;
      // openregion token's iss and aud by default, which serve requires it be told.
      const apiFlags = [
        `--api=127.0.0.1:${String(apiPort)}`,
        `--public-key-file=${files.publicKey}`,
        `--issuer=${DEV_ISSUER}`,
        `--audience=${DEV_AUDIENCE}`,
      ];
      for (const extra of [apiFlags, []]) {
        const port = await freePort();
        const process = spawn(
          globalThis.process.execPath,
          [
            '--import',
            'tsx',
            main,
            'serve',
            `--kubeconfig=${files.kubeconfig}`,
            `--namespace=${NAMESPACE}`,
            `--watch-namespaces=${NAMESPACE},${CP_NS}`,
            '--leader-election',
            '--bundled-actuators',
            '--inventory-refresh-period=2s',
            '--poll-period=5s',
            `--health=127.0.0.1:${String(port)}`,
            ...extra,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const replica = { process, output: '', health: `http://127.0.0.1:${String(port)}` };
        process.stdout.on('data', (chunk: Buffer) => (replica.output += chunk.toString()));
        process.stderr.on('data', (chunk: Buffer) => (replica.output += chunk.toString()));
        replicas.push(replica);
        await eventually(
          `/readyz of replica ${String(replicas.length)} (output so far: ${replica.output})`,
          async () =>
            (await fetch(`${replica.health}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
          120_000,
        );
        // The first replica takes the Lease before the second starts, so the second is the standby.
        if (replicas.length === 1) {
          await eventually(
            'the first replica leads',
            async () => ((await lease())?.spec?.holderIdentity ? true : undefined),
            60_000,
          );
        }
      }
      const [leader, standby] = replicas;
      assert.ok(leader !== undefined && standby !== undefined);
      assert.equal((await fetch(`${standby.health}/readyz`)).status, 200, 'the standby is Ready');
      assert.equal((await fetch(`${standby.health}/healthz`)).status, 200, 'and live');
      assert.match(
        await (await fetch(`${standby.health}/metrics`)).text(),
        /leader_election_master_status\{name="openregion-controllers"\} 0/,
        'it is the standby',
      );
      const refused = await fetch(`${api}/api/v2/networks`, { headers: { authorization: 'Bearer not-a-token' } });
      assert.equal(refused.status, 401);
      await eventually('the refusal reason in the log', () =>
        Promise.resolve(/"reason":"malformed"[^\n]*"msg":"token refused"/.test(leader.output) ? true : undefined),
      );
      assert.ok(!leader.output.includes(token), 'the minted token never reaches the log');
    });

    it('the Region reads Ready with its inventory counts, written by serve', async () => {
      const ready = await eventually(
        'Region Ready',
        async () => {
          const region = await cluster.get(regionType, NAMESPACE, regionId);
          const condition = region.status?.conditions?.find((x) => x.type === 'Ready');
          return condition?.status === 'True' ? condition : undefined;
        },
        60_000,
      );
      assert.match(ready.message, /^\d+ flavors?, \d+ external networks?, \d+ volume class(es)?$/);
    });

    it('a server on or.small is provisioned through the API, and deleted with its network', async () => {
      const flavors = await rest<Read[]>('GET', `/api/v2/regions/${regionId}/flavors`);
      const small = flavors.find((f) => f.metadata.name === 'or.small') ?? assert.fail('or.small is offered');
      const images = await rest<Read[]>('GET', `/api/v2/regions/${regionId}/images`);
      const image = images.find((i) => i.metadata.name === 'or-image-a') ?? assert.fail('or-image-a is offered');
      const network = await rest<Read>('POST', '/api/v2/networks', {
        metadata: { name: 'walk-net' },
        spec: {
          organizationId: ORGANIZATION,
          projectId: PROJECT,
          regionId,
          prefix: '192.168.77.0/24',
          dnsNameservers: [],
        },
      });
      const created = await rest<Read>('POST', '/api/v2/servers', {
        metadata: { name: 'walk-server' },
        spec: { networkId: network.metadata.id, flavorId: small.metadata.id, imageId: image.metadata.id },
      });
      for (const path of [`/api/v2/networks/${network.metadata.id}`, `/api/v2/servers/${created.metadata.id}`]) {
        await eventually(
          `${path} provisioned (${leaderOutput()})`,
          async () =>
            (await rest<Read>('GET', path)).metadata.provisioningStatus === 'provisioned' ? true : undefined,
          CONVERGE_MS,
        );
      }
      for (const project of await listProjects(identity(), { domainID: ours.domain })) ours.projects.add(project.id);
      await rest('DELETE', `/api/v2/servers/${created.metadata.id}`);
      await gone(`/api/v2/servers/${created.metadata.id}`);
      await rest('DELETE', `/api/v2/networks/${network.metadata.id}`);
      await gone(`/api/v2/networks/${network.metadata.id}`);
      await eventually(
        'the identity and its Keystone project gone',
        async () => ((await listProjects(identity(), { domainID: ours.domain })).length === 1 ? true : undefined),
        CONVERGE_MS,
      );
    });

    it('a flavor the admin adds shows in the API without a restart, and goes when deleted', async () => {
      const name = `walk-${run}-flavor`;
      const { body } = await c.admin.client('compute').request<{ flavor: { id: string } }>({
        method: 'POST',
        path: '/flavors',
        body: { flavor: { name, vcpus: 1, ram: 256, disk: 1 } },
      });
      ours.flavor = body.flavor.id;
      const listed = async () =>
        (await rest<Read[]>('GET', `/api/v2/regions/${regionId}/flavors`)).map((f) => f.metadata.name);
      await eventually(
        'the new flavor listed',
        async () => ((await listed()).includes(name) ? true : undefined),
        60_000,
      );
      await c.admin.client('compute').request({ method: 'DELETE', path: '/flavors/{id}', params: { id: ours.flavor } });
      await eventually('the flavor unlisted', async () => ((await listed()).includes(name) ? undefined : true), 60_000);
    });

    it('a KeystoneUser reaches Ready under --bundled-actuators against the real Keystone; deleted, its user goes', async () => {
      const storeType = (await discoverStoreType(cluster, 'SecretStore')) ?? assert.fail('SecretStore served');
      await setUpExternalControlPlane(cluster, {
        namespace: CP_NS,
        name: 'cp',
        namespaceAssignments: [{ namespace: CP_NS }],
        keystoneAuthUrl: c.authUrl,
        adminCloudsYaml: c.adminCloudsYaml,
        kv: { url: emulator.url, token: KV_TOKEN },
        storeType,
      });
      const name = `walk-${run}-user`;
      await cluster.create(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name, namespace: CP_NS },
        spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
      });
      const order = () => cluster.get(keystoneUserType, CP_NS, name);
      await eventually(
        `${name} Ready (${leaderOutput()})`,
        async () => {
          const o: KeystoneUser = await order();
          return o.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True' ? o : undefined;
        },
        CONVERGE_MS,
      );
      assert.notEqual(await findUserByName(identity(), 'default', name), undefined, 'the Keystone user exists');
      await cluster.delete(keystoneUserType, CP_NS, name);
      await eventually(
        `${name} deleted`,
        () =>
          order().then(
            () => undefined,
            (error: unknown) => (isKubeNotFound(error) ? true : undefined),
          ),
        CONVERGE_MS,
      );
      assert.equal(await findUserByName(identity(), 'default', name), undefined, 'the Keystone user is deleted');
    });

    it('serve stops; deregister and unconfigure undo register and configure, and a second run has nothing to do', async () => {
      for (const replica of replicas) {
        replica.process.kill('SIGTERM');
        await new Promise((resolve) => replica.process.once('exit', resolve));
      }
      await deleteControlPlane();
      const target = ['--namespace', NAMESPACE, '--kubeconfig', files.kubeconfig, '--name', `walk-${run}`];
      const deregistered = await openregion(['region', 'deregister', ...target]);
      assert.match(deregistered, /deleted region[^]*deleted secret[^]*deleted namespace/);
      assert.match(await openregion(['region', 'deregister', ...target]), /nothing to deregister/);
      await actAsNamespaceController(NAMESPACE);
      const unconfigured = await openregion(
        [
          'region',
          'unconfigure',
          '--prefix',
          PREFIX,
          '--os-cloud',
          'devcloud-admin',
          '--provider-env',
          files.providerEnv,
        ],
        adminEnv,
      );
      assert.match(unconfigured, new RegExp(`deleted domain ${PREFIX}`));
      assert.match(
        await openregion(['region', 'unconfigure', '--prefix', PREFIX, '--os-cloud', 'devcloud-admin'], adminEnv),
        /nothing to remove/,
      );
    });

    it('the cluster holds exactly what it held before; the cloud holds nothing of the walk', async () => {
      assert.deepEqual(await clusterState(cluster), clusterBefore);
      // Neutron makes a `default` security group for a project on its first network call and keeps it after the
      // project is deleted; it refuses to delete one for anyone but an admin, so the region's scoped credentials
      // cannot. An operator purges them as the admin (README, Operating a region); so does the walk.
      const network = c.admin.client('network');
      for (const group of await listSecurityGroups(network, { name: 'default' })) {
        if (ours.projects.has(group.project_id)) await deleteSecurityGroup(network, group.id);
      }
      const now = await cloudState();
      const added = now.items.filter((item) => !cloudBefore.ids.has(item.id));
      const walks = added.filter(
        (item) =>
          item.name.includes(run) ||
          (item.domain !== undefined && item.domain === ours.domain) ||
          (item.project !== undefined && ours.projects.has(item.project)) ||
          item.id === ours.flavor ||
          item.id === ours.domain,
      );
      assert.deepEqual(walks, [], 'nothing the walk made is left in the cloud');
      const shared = cloudBefore.items.filter((i) => i.name.startsWith('or-') || i.name.startsWith('or.'));
      const missing = shared.filter((i) => !now.ids.has(i.id));
      assert.deepEqual(missing, [], "the dev cloud's shared fixtures are all still there");
    });

    /** After a failed step: what the walk made in the cloud, removed as the admin (a passing walk left nothing). */
    async function purgeWhatIsLeft(): Promise<void> {
      const [domain] = await listDomains(identity(), { name: PREFIX });
      if (domain === undefined) return;
      const projects = await listProjects(identity(), { domainID: domain.id });
      const mine = new Set(projects.map((p) => p.id));
      const compute = c.admin.client('compute');
      const network = c.admin.client('network');
      for (const s of await listServers(compute, { allTenants: true })) {
        if (mine.has((s as { tenant_id?: string }).tenant_id ?? '')) await deleteServer(compute, s.id);
      }
      const owned = <T extends object>(items: T[]) =>
        items.filter((i) => mine.has((i as { project_id?: string }).project_id ?? ''));
      for (const port of owned(await listPorts(network))) await deletePort(network, port.id).catch(() => undefined);
      for (const router of owned(await listRouters(network))) {
        await deleteRouter(network, router.id).catch(() => undefined);
      }
      for (const net of owned(await listNetworks(network))) await deleteNetwork(network, net.id).catch(() => undefined);
      for (const group of owned(await listSecurityGroups(network))) await deleteSecurityGroup(network, group.id);
      for (const user of await listUsers(identity(), { domainID: domain.id })) await deleteUser(identity(), user.id);
      for (const project of projects) await deleteProject(identity(), project.id);
      await updateDomain(identity(), domain.id, { enabled: false });
      await deleteDomain(identity(), domain.id);
    }

    function identity() {
      return c.admin.client('identity');
    }

    function leaderOutput(): string {
      return replicas[0]?.output.slice(-4000) ?? '';
    }

    async function lease() {
      return cluster.get(builtin.lease, NAMESPACE, 'openregion-controllers').catch(() => undefined);
    }

    async function rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${api}${path}`, {
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
    }

    async function gone(path: string): Promise<void> {
      await eventually(
        `${path} gone (${leaderOutput()})`,
        async () => {
          const response = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${token}` } });
          return response.status === 404 ? true : undefined;
        },
        CONVERGE_MS,
      );
    }

    /** The control plane's setup goes as the platform team would remove it: everything the test made in CP_NS. */
    async function deleteControlPlane(): Promise<void> {
      await deleteAllIn(CP_NS);
    }

    /**
     * kube-controller-manager's namespace controller, which this apiserver runs without: empty a namespace being
     * deleted (every kind served in it), then finalize it.
     */
    async function actAsNamespaceController(namespace: string): Promise<void> {
      const ns = await cluster.get(builtin.namespace, undefined, namespace).catch(() => undefined);
      if (ns === undefined) return;
      assert.notEqual(ns.metadata.deletionTimestamp, undefined, `${namespace} is being deleted`);
      await deleteAllIn(namespace);
      const kc = new KubeConfig();
      kc.loadFromString(server?.kubeconfig ?? '');
      const body = new V1Namespace();
      body.metadata = new V1ObjectMeta();
      body.metadata.name = namespace;
      body.spec = new V1NamespaceSpec();
      body.spec.finalizers = [];
      await kc.makeApiClient(CoreV1Api).replaceNamespaceFinalize({ name: namespace, body });
      await eventually(
        `${namespace} gone`,
        () =>
          cluster.get(builtin.namespace, undefined, namespace).then(
            () => undefined,
            () => true,
          ),
        30_000,
      );
    }

    /** Deletes every object of every namespaced kind in `namespace`, finalizers removed (nothing runs to clear them). */
    async function deleteAllIn(namespace: string): Promise<void> {
      for (const type of await namespacedKinds(cluster)) {
        const { items } = await cluster.list(type, { namespace });
        for (const item of items) {
          if ((item.metadata.finalizers ?? []).length > 0) {
            await cluster
              .patch(type, namespace, item.metadata.name, { type: 'merge', patch: { metadata: { finalizers: null } } })
              .catch(() => undefined);
          }
          await cluster.delete(type, namespace, item.metadata.name).catch(() => undefined);
        }
      }
    }

    interface CloudItem {
      readonly kind: string;
      readonly id: string;
      readonly name: string;
      readonly project?: string;
      readonly domain?: string;
    }
    interface CloudState {
      readonly items: CloudItem[];
      readonly ids: Set<string>;
    }

    /** Every object of the kinds the walk touches, as the admin lists them. */
    async function cloudState(): Promise<CloudState> {
      const compute = c.admin.client('compute');
      const network = c.admin.client('network');
      const item = (kind: string, o: object): CloudItem => {
        const v = o as {
          id: string;
          name?: string | null;
          project_id?: string;
          tenant_id?: string;
          domain_id?: string;
        };
        return {
          kind,
          id: v.id,
          name: v.name ?? '',
          ...((v.project_id ?? v.tenant_id) ? { project: v.project_id ?? v.tenant_id } : {}),
          ...(v.domain_id === undefined ? {} : { domain: v.domain_id }),
        };
      };
      const items = [
        ...(await listDomains(identity())).map((o) => item('domain', o)),
        ...(await listProjects(identity())).map((o) => item('project', o)),
        ...(await listUsers(identity())).map((o) => item('user', o)),
        ...(await listFlavors(compute, { isPublic: 'all' })).map((o) => item('flavor', o)),
        ...(await listServers(compute, { allTenants: true })).map((o) => item('server', o)),
        ...(await listNetworks(network)).map((o) => item('network', o)),
        ...(await listRouters(network)).map((o) => item('router', o)),
        ...(await listPorts(network)).map((o) => item('port', o)),
        ...(await listSecurityGroups(network)).map((o) => item('security group', o)),
        ...(await listFloatingIPs(network)).map((o) => item('floating ip', o)),
      ];
      return { items, ids: new Set(items.map((i) => i.id)) };
    }
  });
});

/** Every namespaced kind the cluster serves that the walk could write: core kinds and every CRD's. */
async function namespacedKinds(cluster: KubernetesClient): Promise<ResourceType[]> {
  const { items } = await cluster.list(builtin.customResourceDefinition);
  const custom = items.flatMap((crd) => {
    const spec = crd['spec'] as {
      group: string;
      scope: string;
      names: { kind: string; plural: string };
      versions: { name: string; served: boolean; storage: boolean }[];
    };
    const version = spec.versions.find((v) => v.storage) ?? spec.versions[0];
    if (spec.scope !== 'Namespaced' || version === undefined) return [];
    return [
      { group: spec.group, version: version.name, kind: spec.names.kind, plural: spec.names.plural, namespaced: true },
    ];
  });
  return [builtin.secret, builtin.configMap, builtin.lease, builtin.event, ...custom];
}

/** The cluster as names: namespaces, CRDs, and every namespaced object of the kinds the walk could write. */
async function clusterState(cluster: KubernetesClient): Promise<string[]> {
  const names: string[] = [];
  for (const ns of (await cluster.list(builtin.namespace)).items) names.push(`namespace/${ns.metadata.name}`);
  for (const crd of (await cluster.list(builtin.customResourceDefinition)).items)
    names.push(`crd/${crd.metadata.name}`);
  for (const type of await namespacedKinds(cluster)) {
    for (const o of (await cluster.list(type)).items) {
      names.push(`${type.plural}.${type.group}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    }
  }
  return names.sort();
}
