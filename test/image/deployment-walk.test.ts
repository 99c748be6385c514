/**
 * The deployment walk: openregion installed as a platform team installs it, and used. The image (scripts/image.sh)
 * runs each shipped overlay's Deployment arguments with nothing but a token TokenRequest minted for that overlay's
 * ServiceAccount, on a private management kube-apiserver 1.20, against the real dev cloud:
 * - the region service: a Region registered with `region register`, a network and a server created through the
 *   API provisioned on the dev cloud, then deleted;
 * - the Keystone operator: a KeystoneUser placed on a second kube-apiserver registered as a target cluster reaches
 *   Ready, its credentials Secret delivered beside it, and `/metrics` carries c5c3_operator_* samples.
 * K-ORC and ESO run in their own deployments in production; here the bundled stand-ins play them, in this process
 * with the admin's credentials, so the image runs the Keystone overlay exactly as shipped. Each token is also
 * refused what its overlay does not need. Skipped loudly without podman and the image, kubectl, the kube-apiserver
 * binary or the dev cloud; a failure under CI.
 */
import { c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import { grantNamespaces } from '../../src/cli/target-cluster.ts';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Emulator } from '../../src/emulator/emulator.ts';
import { registerBundledActuators, type BundledActuators } from '../../src/keystone/actuators/bundled.ts';
import { installCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import { discoverStoreType, keystoneCrds, keystoneUserType, type KeystoneUser } from '../../src/keystone/apis/index.ts';
import { customResourceDefinition } from '../../src/kube/crd.ts';
import { isKubeNotFound } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { findUserByName, listDomains, listProjects } from '../../src/openstack/identity.ts';
import { deleteSecurityGroup, listSecurityGroups } from '../../src/openstack/network.ts';
import { regionKinds } from '../../src/region/apis/index.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { KUBECONFIG_SECRET_LABEL } from '../../src/runtime/multicluster.ts';
import { systemClock } from '../../src/util/clock.ts';
import { esoCrds, korcCrds } from '../fixtures/third-party-crds/index.ts';
import { setUpExternalControlPlane } from '../kube/control-plane-fixture.ts';
import {
  freePort,
  kubectl,
  kubectlPresent,
  mintToken,
  render,
  tokenKubeconfig,
  type Rendered,
} from '../kube/deploy-fixture.ts';
import { eventually } from '../kube/fixtures.ts';
import { startPrivateApiServer, type PrivateApiServer } from '../kube/keystone-clusters.ts';
import { withRealApiServer } from '../kube/real-apiserver.ts';
import { cloudsFile, contractCloud } from '../openstack/cloud.ts';
import { DEV_AUDIENCE, DEV_ISSUER } from '../../src/region/http/dev-token.ts';

const execute = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/image.sh', import.meta.url));
const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const inCI = process.env.CI === 'true';
const run = randomBytes(3).toString('hex');
const PREFIX = `deploy-${run}`;
const ORGANIZATION = `org-${run}`;
const PROJECT = `project-${run}`;
const CP_NS = 'openstack';
const ORDERS_NS = `orders-${run}`;
const CLUSTER = 'target';
const KV_TOKEN = 'deploy-walk-kv';
/** Bounds on waiting for the cloud and the controllers, not assertions about their speed. */
const CONVERGE_MS = 240_000;

interface Read {
  readonly metadata: { readonly id: string; readonly name: string; readonly provisioningStatus?: string };
}

/** A development `openregion` command (the walk's operator at their desk): its output. */
async function openregion(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await execute(process.execPath, ['--import', 'tsx', main, ...args], {
      env: { ...process.env, ...env },
    });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`openregion ${args.join(' ')}: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
  }
}

async function imagePresent(): Promise<boolean> {
  try {
    const { stdout } = await execute('bash', [script, 'name']);
    await execute('podman', ['image', 'exists', stdout.trim()]);
    return true;
  } catch {
    return false;
  }
}

/** The first container's args of the rendered Deployment: what a pod of the overlay runs. */
function deploymentArgs(rendered: Rendered): string[] {
  const deployment = rendered.objects.find((o) => o.kind === 'Deployment') ?? assert.fail('a Deployment');
  const spec = deployment['spec'] as { template: { spec: { containers: { args: string[] }[] } } };
  return spec.template.spec.containers[0]?.args ?? assert.fail('container args');
}

/**
 * The overlay's args as the pod would run them, outside a pod: the kubeconfig mounted at /kube/config instead of
 * the in-cluster service account, the Downward API's namespace and the Secret's token claims filled in, the ports on
 * the host's loopback.
 */
function asContainerArgs(args: readonly string[], namespace: string, ports: { health: number; api?: number }) {
  return args.map((arg) => {
    if (arg === '--in-cluster') return '--kubeconfig=/kube/config';
    if (arg.startsWith('--health=')) return `--health=127.0.0.1:${String(ports.health)}`;
    if (arg.startsWith('--api=')) return `--api=127.0.0.1:${String(ports.api)}`;
    // The API key Secret's issuer and audience, as the pod's environment fills them in: openregion token's.
    return arg
      .replace('$(POD_NAMESPACE)', namespace)
      .replace('$(API_TOKEN_ISSUER)', DEV_ISSUER)
      .replace('$(API_TOKEN_AUDIENCE)', DEV_AUDIENCE);
  });
}

interface Container {
  readonly name: string;
  readonly process: ChildProcess;
  output: string;
}

/** `openregion ARGS` in the image, detached from the test but logged, with `mounts` (host path → container path). */
function startContainer(name: string, args: readonly string[], mounts: Record<string, string>): Container {
  const volumes = Object.entries(mounts).map(([host, inside]) => `-v ${host}:${inside}:ro`);
  const process = spawn('bash', [script, 'run', ...args], {
    env: { ...globalThis.process.env, OPENREGION_PODMAN_FLAGS: [`--name ${name}`, ...volumes].join(' ') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const container: Container = { name, process, output: '' };
  process.stdout.on('data', (chunk: Buffer) => (container.output += chunk.toString()));
  process.stderr.on('data', (chunk: Buffer) => (container.output += chunk.toString()));
  return container;
}

async function stopContainer(container: Container): Promise<number | null> {
  if (container.process.exitCode !== null) return container.process.exitCode;
  const exited = new Promise<number | null>((resolve) => container.process.once('exit', resolve));
  await execute('podman', ['stop', '--time', '20', container.name]).catch(() => undefined);
  return exited;
}

const ready = async (health: string) =>
  (await fetch(`${health}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined;

/** Whether the kubeconfig's identity may do it (`kubectl auth can-i`, which exits 1 for "no"). */
async function canI(kubeconfigPath: string, args: readonly string[]): Promise<boolean> {
  return kubectl(kubeconfigPath, ['auth', 'can-i', ...args]).then(
    () => true,
    (error: unknown) => {
      if (/exited 1:/.test((error as Error).message)) return false;
      throw error;
    },
  );
}

const missing = !(await imagePresent())
  ? 'podman or the image is absent (bash scripts/image.sh build)'
  : !(await kubectlPresent())
    ? 'kubectl is not on the PATH'
    : undefined;
const cloud = missing === undefined ? await contractCloud() : undefined;

if (missing !== undefined) {
  if (inCI) {
    void it('the deployment walk has what it needs', () => assert.fail(`CI=true and ${missing}`));
  } else {
    process.stderr.write(`\n*** SKIPPING test/image/deployment-walk.test.ts: ${missing}.\n\n`);
    void it('the deployment walk', { skip: missing });
  }
} else {
  await withRealApiServer('test/image/deployment-walk.test.ts', () => {
    describe('the deployment walk: the image, the shipped overlays, their tokens alone', { skip: !cloud }, () => {
      const c = cloud as NonNullable<typeof cloud>;
      const dir = mkdtempSync(join(tmpdir(), 'openregion-deploy-walk-'));
      const path = (name: string) => join(dir, name);
      const adminEnv = { OS_CLIENT_CONFIG_FILE: cloudsFile };
      let managementServer: PrivateApiServer | undefined;
      let targetServer: PrivateApiServer | undefined;
      let management: KubernetesClient;
      let target: KubernetesClient;
      let emulator: Emulator;
      let standIns: { manager: Manager; actuators: BundledActuators } | undefined;
      const containers: Container[] = [];
      let region: Rendered;
      let operator: Rendered;
      let regionID = '';
      let api = '';
      let regionHealth = '';
      let operatorHealth = '';
      let apiToken = '';
      /** The identity projects the region service made, for the admin's clean-up of what Neutron keeps. */
      const projects = new Set<string>();

      before(async () => {
        emulator = await Emulator.start({ config: { kvToken: KV_TOKEN } });
        managementServer = await startPrivateApiServer(`deploy-walk-${run}`);
        targetServer = await startPrivateApiServer(`deploy-walk-target-${run}`);
        writeFileSync(path('management-admin'), managementServer.kubeconfig, { mode: 0o600 });
        writeFileSync(path('target-admin'), targetServer.kubeconfig, { mode: 0o600 });
        management = kubeClientFrom({ kubeconfig: managementServer.kubeconfig });
        target = kubeClientFrom({ kubeconfig: targetServer.kubeconfig });
        // The platform team's part: every CRD (openregion's, K-ORC's, ESO's), then the overlays and the target side.
        await installCrds(management, [
          ...regionKinds.map((k) => customResourceDefinition(k)),
          ...keystoneCrds(),
          ...c5c3StandInCrds(),
          ...korcCrds(),
          ...esoCrds('v2.9'),
        ]);
        await installCrds(target, [...keystoneCrds(), ...c5c3StandInCrds()]);
        region = await render('overlays/region-service', 'unikorn-region', run);
        operator = await render('overlays/keystone-operator-cluster-wide', 'openregion-system', run);
        for (const rendered of [region, operator]) {
          await kubectl(path('management-admin'), ['apply', '--server-side', '-f', '-'], rendered.yaml);
        }
        const targetSide = await render('target-cluster', 'openregion-system', run);
        await kubectl(path('target-admin'), ['apply', '--server-side', '-f', '-'], targetSide.yaml);
        for (const [cluster, name] of [
          [management, CP_NS],
          [management, 'c5c3-clusters'],
          [target, ORDERS_NS],
        ] as const) {
          await cluster.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        }
        // The operator's rights in the orders' namespace, as `openregion target-cluster grant` gives them.
        await grantNamespaces(target, [ORDERS_NS], {
          namespace: targetSide.namespace,
          name: targetSide.name('openregion-keystone-operator'),
        });
        // Each token is TokenRequest's, for the ServiceAccount its overlay made.
        const tokenFile = async (server: PrivateApiServer, rendered: Rendered, account: string, file: string) => {
          const token = await mintToken(server.kubeconfig, rendered.namespace, rendered.name(account));
          // Readable by the container's own user (uid 65532).
          writeFileSync(path(file), tokenKubeconfig(server.kubeconfig, token, rendered.namespace), { mode: 0o644 });
        };
        await tokenFile(managementServer, region, 'openregion', 'region-kubeconfig');
        await tokenFile(managementServer, operator, 'openregion', 'operator-kubeconfig');
        const targetToken = await mintToken(
          targetServer.kubeconfig,
          targetSide.namespace,
          targetSide.name('openregion-keystone-operator'),
        );
        await management.create(builtin.secret, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: CLUSTER, namespace: 'c5c3-clusters', labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
          stringData: {
            kubeconfig: tokenKubeconfig(targetServer.kubeconfig, targetToken, ORDERS_NS),
            namespaces: ORDERS_NS,
          },
        });
      });

      after(async () => {
        for (const container of containers) await stopContainer(container);
        await standIns?.manager.stop();
        await standIns?.actuators.close();
        await openregion(
          ['region', 'unconfigure', '--prefix', PREFIX, '--os-cloud', 'devcloud-admin', '--force'],
          adminEnv,
        ).catch((error: unknown) => process.stderr.write(`deployment walk: unconfigure failed: ${String(error)}\n`));
        management.close();
        target.close();
        await managementServer?.stop();
        await targetServer?.stop();
        await emulator.close();
        await c.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('each overlay’s token is refused what its overlay does not need', async () => {
        const regionKubeconfig = path('region-kubeconfig');
        assert.equal(await canI(regionKubeconfig, ['get', 'secrets', '-n', region.namespace]), true);
        // Its cached runtime lookups list and watch its own namespace's Secrets (ADR 0046), never another's.
        assert.equal(await canI(regionKubeconfig, ['list', 'secrets', '-n', region.namespace]), true);
        assert.equal(await canI(regionKubeconfig, ['list', 'secrets', '-A']), false);
        assert.equal(await canI(regionKubeconfig, ['list', 'secrets', '-n', 'kube-system']), false);
        assert.equal(await canI(regionKubeconfig, ['get', 'secrets', '-n', 'kube-system']), false);
        assert.equal(await canI(regionKubeconfig, ['list', 'keystoneusers.c5c3.io', '-A']), false);
        assert.equal(await canI(regionKubeconfig, ['create', 'customresourcedefinitions']), false);
        assert.equal(await canI(regionKubeconfig, ['*', '*']), false);
        const operatorKubeconfig = path('operator-kubeconfig');
        assert.equal(await canI(operatorKubeconfig, ['update', 'keystoneusers.c5c3.io', '-n', ORDERS_NS]), true);
        assert.equal(await canI(operatorKubeconfig, ['list', 'servers.region.unikorn-cloud.org', '-A']), false);
        assert.equal(await canI(operatorKubeconfig, ['delete', 'namespaces']), false);
        assert.equal(await canI(operatorKubeconfig, ['*', '*']), false);
        for (const rendered of [region, operator]) {
          for (const role of rendered.objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')) {
            assert.doesNotMatch(JSON.stringify(role['rules']), /"\*"/, `${role.kind} ${role.metadata.name}`);
          }
        }
      });

      it('region configure and register make a Region; the region service image serves it with its token alone', async () => {
        await openregion(
          [
            'region',
            'configure',
            '--prefix',
            PREFIX,
            '--provider-env',
            path('region.env'),
            '--os-cloud',
            'devcloud-admin',
          ],
          adminEnv,
        );
        const registered = await openregion([
          'region',
          'register',
          '--provider-env',
          path('region.env'),
          '--name',
          PREFIX,
          '--namespace',
          region.namespace,
          '--kubeconfig',
          path('management-admin'),
          '--create-secret',
          '--organization-id',
          ORGANIZATION,
        ]);
        regionID =
          (/region ([0-9a-f-]{36}) \(deploy-[0-9a-f]+\) created/.exec(registered) ?? assert.fail(registered))[1] ?? '';
        apiToken = (
          await openregion([
            'token',
            '--key',
            path('dev-key.json'),
            '--public-key',
            path('public.pem'),
            '--organization-id',
            ORGANIZATION,
            '--project-id',
            PROJECT,
            '--lifetime',
            '1h',
          ])
        ).trim();
        chmodSync(path('public.pem'), 0o644); // read by the container's own user
        const ports = { health: await freePort(), api: await freePort() };
        regionHealth = `http://127.0.0.1:${String(ports.health)}`;
        api = `http://127.0.0.1:${String(ports.api)}`;
        const args = asContainerArgs(deploymentArgs(region), region.namespace, ports);
        // The overlay reads the API's public key from the Secret it mounts at /etc/openregion/api.
        const keyMount =
          args.find((a) => a.startsWith('--public-key-file='))?.split('=')[1] ?? assert.fail(args.join(' '));
        const container = startContainer(`openregion-deploy-walk-region-${run}`, args, {
          [path('region-kubeconfig')]: '/kube/config',
          [path('public.pem')]: keyMount,
        });
        containers.push(container);
        await eventually(`the region service Ready (${container.output})`, () => ready(regionHealth), 120_000);
      });

      it('a network and a server created through the API are provisioned on the dev cloud, then deleted', async () => {
        const flavors = await rest<Read[]>('GET', `/api/v2/regions/${regionID}/flavors`);
        const small = flavors.find((f) => f.metadata.name === 'or.small') ?? assert.fail('or.small is offered');
        const images = await rest<Read[]>('GET', `/api/v2/regions/${regionID}/images`);
        const image = images.find((i) => i.metadata.name === 'or-image-a') ?? assert.fail('or-image-a is offered');
        const network = await rest<Read>('POST', '/api/v2/networks', {
          metadata: { name: 'deploy-net' },
          spec: {
            organizationId: ORGANIZATION,
            projectId: PROJECT,
            regionId: regionID,
            prefix: '192.168.78.0/24',
            dnsNameservers: [],
          },
        });
        const server = await rest<Read>('POST', '/api/v2/servers', {
          metadata: { name: 'deploy-server' },
          spec: { networkId: network.metadata.id, flavorId: small.metadata.id, imageId: image.metadata.id },
        });
        const paths = [`/api/v2/networks/${network.metadata.id}`, `/api/v2/servers/${server.metadata.id}`];
        for (const p of paths) {
          await eventually(
            `${p} provisioned (${containers[0]?.output.slice(-3000) ?? ''})`,
            async () => ((await rest<Read>('GET', p)).metadata.provisioningStatus === 'provisioned' ? true : undefined),
            CONVERGE_MS,
          );
        }
        for (const p of paths.reverse()) {
          await rest('DELETE', p);
          await eventually(
            `${p} gone`,
            async () => ((await fetch(`${api}${p}`, { headers: auth() })).status === 404 ? true : undefined),
            CONVERGE_MS,
          );
        }
        const [domain] = await listDomains(c.admin.client('identity'), { name: PREFIX });
        for (const p of await listProjects(c.admin.client('identity'), { domainID: domain?.id ?? '' })) {
          projects.add(p.id);
        }
        await eventually(
          'the identity project gone',
          async () =>
            (await listProjects(c.admin.client('identity'), { domainID: domain?.id ?? '' })).length === 1
              ? true
              : undefined,
          CONVERGE_MS,
        );
      });

      it('the Keystone operator image delivers a KeystoneUser on a registered target cluster, and counts it', async () => {
        // K-ORC's and ESO's part, played by the bundled stand-ins with the admin's credentials.
        const storeType = (await discoverStoreType(management, 'SecretStore')) ?? assert.fail('SecretStore served');
        const manager = new Manager({ client: management, clock: systemClock });
        standIns = { manager, actuators: registerBundledActuators(manager, { storeType, clock: systemClock }) };
        await manager.start();
        await setUpExternalControlPlane(management, {
          namespace: CP_NS,
          name: 'cp',
          namespaceAssignments: [{ namespace: ORDERS_NS, targetClusterRef: { name: CLUSTER } }],
          keystoneAuthUrl: c.authUrl,
          adminCloudsYaml: c.adminCloudsYaml,
          kv: { url: emulator.url, token: KV_TOKEN },
          storeType,
        });
        const ports = { health: await freePort() };
        operatorHealth = `http://127.0.0.1:${String(ports.health)}`;
        const container = startContainer(
          `openregion-deploy-walk-operator-${run}`,
          asContainerArgs(deploymentArgs(operator), operator.namespace, ports),
          { [path('operator-kubeconfig')]: '/kube/config' },
        );
        containers.push(container);
        await eventually(`the operator Ready (${container.output})`, () => ready(operatorHealth), 120_000);
        const name = `deploy-${run}-user`;
        await target.create(keystoneUserType, {
          apiVersion: 'c5c3.io/v1alpha1',
          kind: 'KeystoneUser',
          metadata: { name, namespace: ORDERS_NS },
          spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
        });
        const order = await eventually(
          `${name} Ready on the target cluster (${container.output.slice(-3000)})`,
          async () => {
            const o: KeystoneUser = await target.get(keystoneUserType, ORDERS_NS, name);
            return o.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True' ? o : undefined;
          },
          CONVERGE_MS,
        );
        const secretName = order.status?.secretName ?? assert.fail('the delivered Secret is named in status');
        const delivered = await target.get(builtin.secret, ORDERS_NS, secretName);
        assert.ok(Object.keys(delivered['data'] as object).length > 0, 'the credentials Secret is delivered beside it');
        assert.notEqual(await findUserByName(c.admin.client('identity'), 'default', name), undefined);

        const metrics = await (await fetch(`${operatorHealth}/metrics`)).text();
        const provisioned =
          /^c5c3_operator_reconcile_duration_seconds_count\{sub_reconciler="KeystoneUserProvision"\} (\d+)$/m.exec(
            metrics,
          );
        assert.ok(Number(provisioned?.[1] ?? 0) > 0, `a provision step observed:\n${metrics}`);
        assert.match(metrics, /^# TYPE c5c3_operator_reconcile_errors_total counter$/m);

        await target.delete(keystoneUserType, ORDERS_NS, name);
        await eventually(
          `${name} deleted`,
          () =>
            target.get(keystoneUserType, ORDERS_NS, name).then(
              () => undefined,
              (error: unknown) => (isKubeNotFound(error) ? true : undefined),
            ),
          CONVERGE_MS,
        );
        assert.equal(await findUserByName(c.admin.client('identity'), 'default', name), undefined);
      });

      it('both images stop cleanly on SIGTERM, refused nothing; deregister and unconfigure leave nothing behind', async () => {
        for (const container of containers) {
          assert.equal(await stopContainer(container), 0, container.output);
          assert.match(container.output, /openregion serve started/);
          assert.doesNotMatch(container.output, /forbidden/i, container.output);
          assert.ok(!container.output.includes(apiToken), 'the API token never reaches the log');
        }
        const deregistered = await openregion([
          'region',
          'deregister',
          '--namespace',
          region.namespace,
          '--kubeconfig',
          path('management-admin'),
          '--name',
          PREFIX,
        ]);
        assert.match(deregistered, /deleted region/);
        const unconfigured = await openregion(
          [
            'region',
            'unconfigure',
            '--prefix',
            PREFIX,
            '--os-cloud',
            'devcloud-admin',
            '--provider-env',
            path('region.env'),
          ],
          adminEnv,
        );
        assert.match(unconfigured, new RegExp(`deleted domain ${PREFIX}`));
        assert.deepEqual(await listDomains(c.admin.client('identity'), { name: PREFIX }), []);
        // Neutron keeps a deleted project's `default` security group, which only an admin may remove (ADR 0019).
        const network = c.admin.client('network');
        for (const group of await listSecurityGroups(network, { name: 'default' })) {
          if (projects.has(group.project_id)) await deleteSecurityGroup(network, group.id);
        }
        for (const group of await listSecurityGroups(network)) assert.ok(!projects.has(group.project_id), group.id);
      });

      function auth(): Record<string, string> {
        return { authorization: `Bearer ${apiToken}` };
      }

      async function rest<T = unknown>(method: string, p: string, body?: unknown): Promise<T> {
        const response = await fetch(`${api}${p}`, {
          method,
          headers: { ...auth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${method} ${p}: ${String(response.status)} ${text}`);
        return (text === '' ? undefined : JSON.parse(text)) as T;
      }
    });
  });
}
