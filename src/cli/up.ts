/**
 * `openregion up` (what `npm start` runs): the whole system in one process on embedded defaults. The embedded
 * store in ./.openregion/, the built-in OpenStack emulator seeded with a demo region (or a real cloud with
 * --cloud), the demo region configured and registered as an operator would, every region controller and the
 * server monitor, the Keystone orders operator with its bundled actuators and a ready ControlPlane, and the REST
 * API. It prints what runs where, a development token and a first curl. The directory is locked to one `up`. A
 * restart — after Ctrl-C or a kill -9 — resumes from the store, and the built-in cloud from its state file
 * (./.openregion/cloud.db), so every resource is found where it was, with the same ids.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Logger } from 'pino';
import { Emulator } from '../emulator/emulator.ts';
import type { Client } from '../kube/client.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../kube/embedded/store.ts';
import type { StoreEncryption } from '../kube/embedded/encryption.ts';
import { stringify } from 'yaml';
import { loadCloudConfig, rawCloudEntry } from '../openstack/config.ts';
import { Session } from '../openstack/session.ts';
import { openstackRequestMetrics } from '../openstack/metrics.ts';
import { Transport } from '../openstack/transport.ts';
import { buildApi } from '../region/http/app.ts';
import { mountConsole } from './console/routes.ts';
import { createAuthenticator } from '../region/http/auth.ts';
import { DEV_ALGORITHM, DEV_AUDIENCE, DEV_ISSUER, generateDevKeyPair, signDevToken } from '../region/http/dev-token.ts';
import { clientSetFactory } from '../region/openstack/registry.ts';
import { startRegionRegistry } from './region-registry.ts';
import { CachedListClient } from '../runtime/cached-lists.ts';
import { readEnvFile, renderEnvFile } from '../region/registration/env-file.ts';
import { probeRoutes, serveHealth } from '../runtime/health.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { packageVersion } from '../util/version.ts';
import { startTracing } from './tracing.ts';
import { createLogger, type LogFormat } from '../runtime/logger.ts';
import { Manager } from '../runtime/manager.ts';
import { systemScheduler, type Scheduler } from '../runtime/scheduler.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { hostPort, regionKindsIn } from './serve-options.ts';
import { seedDemoCloud } from './up/demo-cloud.ts';
import { setUpDemoRegion } from './up/demo-region.ts';
import {
  devIdentity,
  ensureDir,
  readKeyPair,
  renderDevEnv,
  upFiles,
  writePrivate,
  type DevIdentity,
} from './up/files.ts';
import { lockDirectory } from './up/lock.ts';
import {
  CONTROL_PLANE_NAME,
  CONTROL_PLANE_NAMESPACE,
  registerKeystoneOperator,
  setUpKeystoneDemo,
} from './up/keystone.ts';
import { wireRegionService } from './up/region-service.ts';
import { emulatorStateCodec, storeEncryption } from './store-encryption.ts';
import {
  organizationLimitsOf,
  withOrganizationLimitOption,
  type OrganizationLimitFlags,
} from './organization-limit-options.ts';
import { rateLimitsOf, withRateLimitOptions, type RateLimitFlags } from './rate-limit-options.ts';
import { imageSourceOf, withImageSourceOption, type TrustFlags } from './trust-options.ts';
import type { RateLimits } from '../region/http/rate-limit.ts';
import type { OrganizationLimits } from '../region/http/decide-limit.ts';

/** A cloud administrator of any scope. */
type AdminSession = Session<'project'> | Session<'domain'> | Session<'system'>;

export const REGION_NAMESPACE = 'unikorn-region';
const KV_TOKEN = 'openregion-dev-kv';
/** What the console calls the development project (the token's `projectNames` claim). */
const DEV_PROJECT_NAME = 'development';
const DEMO_MONITOR_PERIOD_MS = 10_000;
/** What the API port answers besides the API, as `serve`'s probe port does. */
const PROBE_PATHS = ['/healthz', '/livez', '/readyz', '/metrics'] as const;

interface UpOptions {
  readonly dir: string;
  readonly host: string;
  /** The REST API's port; 0 picks a free one. The API port answers the probes and /metrics too. */
  readonly port: number;
  /** A separate probe port (/healthz, /livez, /readyz, /metrics), as `serve --health` has. */
  readonly health?: { readonly host: string; readonly port: number } | undefined;
  /** A clouds.yaml entry (cloud admin) to use instead of the emulator. */
  readonly cloud?: string | undefined;
  /**
   * With `cloud`: a KV v2 store (an emulator's, or OpenBao) for the demo ControlPlane's SecretStore, so orders can
   * be delivered; without it ESO is not started. The built-in emulator's KV is used when `cloud` is absent.
   */
  readonly kv?: { readonly url: string; readonly token: string } | undefined;
  readonly emulatorPort?: number;
  readonly clock?: Clock;
  readonly scheduler?: Scheduler;
  readonly log?: Logger;
  readonly monitorPeriodMs?: number;
  /** Where --cloud's clouds.yaml and OS_* come from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Wraps the client the running system uses (controllers, monitor, registry, API), not the demo setup's:
   * tests hold it to the shipped RBAC with an AuthorizingClient.
   */
  readonly runtimeClient?: (store: Client) => Client;
  /** The REST API's rate limits (default DEFAULT_RATE_LIMITS). */
  readonly rateLimits?: RateLimits;
  /** Per-organization limits (default DEFAULT_ORGANIZATION_LIMITS). */
  readonly organizationLimits?: OrganizationLimits;
  /** Prefixes beyond the public internet a tenant's image URL may reach (`--image-source-allow`). */
  readonly imageSourceAllow?: string[];
}

export interface RunningUp extends DevIdentity {
  readonly api: string;
  readonly token: string;
  readonly store: EmbeddedStore;
  readonly emulator: Emulator | undefined;
  readonly running: readonly string[];
  stop(): Promise<void>;
}

export async function startUp(options: UpOptions): Promise<RunningUp> {
  const clock = options.clock ?? systemClock;
  const scheduler = options.scheduler ?? systemScheduler(clock);
  const log = options.log ?? createLogger({ level: 'warn' });
  const files = upFiles(options.dir);
  ensureDir(files.dir);
  const lock = lockDirectory(files.dir);
  const cleanups: (() => Promise<void>)[] = [
    () => {
      lock.release();
      return Promise.resolve();
    },
  ];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  let store: EmbeddedStore;
  let encryption: StoreEncryption | undefined;
  try {
    // Secrets and identities' credentials are sealed at rest with the key beside the store, made on first start.
    encryption = storeEncryption(files.store, { create: true, clock });
    store = openEmbeddedStore(files.store, { clock, garbageCollection: true, encryption });
  } catch (error) {
    await stop();
    throw error;
  }
  const identity = devIdentity(files);
  // One registry for the process: the runtime's series, the API's requests and every OpenStack call.
  const metrics = new RuntimeMetrics();
  metrics.buildInfo(packageVersion(), process.version);
  const transport = new Transport({ clock, random: Math.random, observer: openstackRequestMetrics(metrics.registry) });
  cleanups.push(
    () => store.close(),
    () => transport.close(),
  );
  try {
    let emulator: Emulator | undefined;
    let admin: AdminSession;
    let adminCloudsYaml: string;
    let authUrl: string;
    let regionName: string | undefined;
    if (options.cloud === undefined) {
      emulator = await Emulator.start({
        ...(options.emulatorPort === undefined ? {} : { port: options.emulatorPort }),
        clock,
        config: { kvToken: KV_TOKEN, octaviaNetworkDriver: 'allowed_address_pairs' },
        stateFile: files.cloud,
        // The cloud's records hold the region's and KeystoneUsers' passwords: sealed as the store's Secrets are.
        ...(encryption === undefined ? {} : { stateCodec: emulatorStateCodec(encryption) }),
      });
      const running = emulator;
      cleanups.push(() => running.close());
      const session = new Session<'project'>({
        authUrl: emulator.authUrl,
        auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: 'secret' },
        scope: { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
        transport,
        clock,
        region: 'RegionOne',
      });
      await seedDemoCloud(session);
      writePrivate(files.cloudsYaml, emulator.cloudsYaml('emulator'));
      adminCloudsYaml = emulator.cloudsYaml('admin');
      admin = session;
      authUrl = emulator.authUrl;
      regionName = 'RegionOne';
    } else {
      const env = options.env ?? {};
      const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
      const sources = { env, cwd: process.cwd(), home: homedir(), readFile: read };
      const config = loadCloudConfig(sources, options.cloud);
      admin = new Session({ ...config, transport, clock }) as AdminSession;
      adminCloudsYaml = stringify({ clouds: { admin: rawCloudEntry(sources, options.cloud) } });
      authUrl = config.authUrl;
      regionName = config.region;
    }

    const previous = readEnvFile(files.regionEnv);
    const demo = await setUpDemoRegion({
      store,
      admin: admin as Session,
      authUrl,
      regionName,
      transport,
      clock,
      namespace: REGION_NAMESPACE,
      regionID: identity.regionID,
      organizationID: identity.organizationID,
      password: previous?.authUrl === authUrl ? previous.password : undefined,
    });
    writePrivate(files.regionEnv, renderEnvFile(demo.credentials, 'openregion up: the demo region account'));
    const kv = emulator === undefined ? options.kv : { url: emulator.url, token: KV_TOKEN };
    const keystoneDemo = await setUpKeystoneDemo({ store, authUrl, adminCloudsYaml, kv, clock });
    for (const name of keystoneDemo.keptCrds) {
      log.warn({ crd: name }, 'kept the CRD the store already holds; the bundled actuator serves that one');
    }

    const runtime = options.runtimeClient?.(store) ?? store;
    // serve's registry: bootstrapped from the store, then Regions, Secrets and OpenstackIdentity records read from
    // informers, by the lookups and by the reconcile passes' cached client (`manager.readsFrom` below). The emulator
    // and the dev cloud offer the versions openregion pins: no start-up check.
    const regions = await startRegionRegistry({
      client: runtime,
      namespace: REGION_NAMESPACE,
      clientSets: clientSetFactory({ transport, clock, region: regionName }),
      scheduler,
      log,
      checkVersions: false,
    });
    cleanups.push(() => regions.close());
    const { registry } = regions;
    const manager = new Manager({
      client: runtime,
      metrics,
      clock,
      scheduler,
      log,
      random: Math.random,
      namespacesOf: regionKindsIn(REGION_NAMESPACE),
    });
    manager.readsFrom(regions.reads);
    const region = wireRegionService({
      manager,
      client: runtime,
      namespace: REGION_NAMESPACE,
      registry,
      clock,
      scheduler,
      log,
      // The demo polls every 10 s (production: a minute), so a newcomer sees Running soon after provisioned.
      monitorPeriodMs: options.monitorPeriodMs ?? DEMO_MONITOR_PERIOD_MS,
    });
    const keystone = registerKeystoneOperator(manager, keystoneDemo, { withKv: kv !== undefined, clock });
    cleanups.push(() => keystone.close());
    await manager.start();
    cleanups.push(() => manager.stop());
    region.start();
    cleanups.push(() => region.close());

    const keys = readKeyPair(files.key) ?? (await generateDevKeyPair());
    writePrivate(files.key, JSON.stringify(keys));
    const token = await signDevToken(
      keys,
      // The developer runs the whole system here: they are its operator too.
      {
        subject: 'developer',
        organizationIDs: [identity.organizationID],
        projectIDs: [identity.projectID],
        projectNames: { [identity.projectID]: DEV_PROJECT_NAME },
        operator: true,
      },
      clock,
    );
    writePrivate(files.token, `${token}\n`);
    const app = await buildApi({
      client: new CachedListClient(runtime, manager),
      namespace: REGION_NAMESPACE,
      clock,
      newID: randomUUID,
      authenticate: createAuthenticator({
        key: { publicJwk: keys.publicJwk, algorithm: DEV_ALGORITHM },
        issuer: DEV_ISSUER,
        audience: DEV_AUDIENCE,
        clock,
        log: log.child({ component: 'auth' }),
      }),
      capabilities: region.capabilities,
      organizationObjects: region.organizationObjects,
      cachedObject: region.cachedObject,
      organizationCounts: region.organizationCounts,
      ...(options.rateLimits === undefined ? {} : { rateLimits: options.rateLimits }),
      ...(options.organizationLimits === undefined ? {} : { organizationLimits: options.organizationLimits }),
      imageSource: imageSourceOf({ imageSourceAllow: options.imageSourceAllow ?? [] }, log),
      // 401 challenges and the RFC 9728 metadata name the bound address (the API's default), never a Host header.
      log,
      metrics: metrics.registry,
    });
    mountConsole(app, { operator: { client: runtime, metrics: manager.metrics.registry } });
    manager.metrics.collectProcessMetrics();
    const probes = probeRoutes(manager.health, manager.metrics.registry);
    for (const path of PROBE_PATHS) {
      app.get(path, { schema: { hide: true } }, async (_request, reply) => {
        // Every probe path routes, since the registry is given.
        const response = (await probes(path)) ?? { status: 404, contentType: 'text/plain', body: '' };
        return reply.code(response.status).type(response.contentType).send(response.body);
      });
    }
    await app.listen({ host: options.host, port: options.port });
    if (options.health !== undefined) {
      const health = await serveHealth(manager.health, { ...options.health, metrics: manager.metrics.registry });
      cleanups.push(() => health.close());
    }
    cleanups.push(() => app.close());
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : options.port;
    const api = `http://${options.host}:${String(port)}`;
    writePrivate(
      files.devEnv,
      renderDevEnv(
        api,
        identity,
        files,
        emulator === undefined ? undefined : { cloudsYaml: files.cloudsYaml, name: 'emulator' },
      ),
    );
    return {
      ...identity,
      api,
      token,
      store,
      emulator,
      running: [...region.running, ...keystone.running],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function banner(up: RunningUp, dir: string): string {
  const cloud = up.emulator === undefined ? 'a real cloud (--cloud)' : `${up.emulator.url} (built-in emulator)`;
  return [
    'openregion is up: everything runs in this process (Ctrl-C stops it; a restart resumes from the store).',
    '',
    `  REST API      ${up.api}   (OpenAPI 3.1: ${up.api}/openapi.json, probes: /healthz /readyz, /metrics)`,
    `  OpenStack     ${cloud}${up.emulator === undefined ? '' : `, admin in ${dir}/clouds.yaml (cloud emulator)`}`,
    `  store         ${dir}/store.db   (openregion get servers -n ${REGION_NAMESPACE} --store ${dir}/store.db)`,
    `  region        ${up.regionID} (demo), registered for organization ${up.organizationID}`,
    `  project       ${up.projectID}`,
    `  controllers   ${up.running.join(', ')}`,
    `  ControlPlane  ${CONTROL_PLANE_NAMESPACE}/${CONTROL_PLANE_NAME} (assigns namespace ${CONTROL_PLANE_NAMESPACE})`,
    '',
    `Development token (also in ${dir}/token, variables in ${dir}/dev.env):`,
    `  ${up.token}`,
    '',
    "The web console, signed in with it (the token stays in the link's fragment, which the browser never sends):",
    `  ${up.api}/#token=${up.token}`,
    '',
    'In a second terminal, order a Keystone service account from the demo ControlPlane:',
    ...keystoneOrderExample(dir).map((line) => `  ${line}`),
    '',
    'and use the region service:',
    `  . ${dir}/dev.env`,
    `  curl -s -H "Authorization: Bearer $(cat ${dir}/token)" "$OPENREGION_API/api/v2/regions/$OPENREGION_REGION_ID/images?organizationID=$OPENREGION_ORGANIZATION_ID"`,
    `  curl -s -H "Authorization: Bearer $(cat ${dir}/token)" -H 'content-type: application/json' "$OPENREGION_API/api/v2/networks" \\`,
    `    -d '{"metadata":{"name":"net-1"},"spec":{"organizationId":"'$OPENREGION_ORGANIZATION_ID'","projectId":"'$OPENREGION_PROJECT_ID'","regionId":"'$OPENREGION_REGION_ID'","prefix":"192.168.0.0/24","dnsNameservers":[]}}'`,
    '',
  ].join('\n');
}

/**
 * The first Keystone order, as the banner and the README show it: a KeystoneUser for `default/demo` applied from
 * standard input, waited for, its delivered clouds.yaml read back, and deleted (which deletes the Keystone user).
 */
function keystoneOrderExample(dir: string): string[] {
  const store = dir === './.openregion' ? '' : ` --store ${dir}/store.db`;
  const cli = 'npm run -s openregion --';
  return [
    `${cli} apply -f -${store} <<'EOF'`,
    'apiVersion: c5c3.io/v1alpha1',
    'kind: KeystoneUser',
    `metadata: {name: workflow, namespace: ${CONTROL_PLANE_NAMESPACE}}`,
    `spec: {controlPlaneRef: {name: ${CONTROL_PLANE_NAME}}}`,
    'EOF',
    `${cli} wait keystoneuser workflow --for condition=Ready${store}`,
    `${cli} get secret workflow-credentials -o yaml${store}   # data: clouds.yaml and password, base64`,
    `${cli} delete keystoneuser workflow${store}   # the Keystone user goes too`,
  ];
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('a port number, 0 for any free one');
  return n;
}

interface UpCommandOptions extends RateLimitFlags, OrganizationLimitFlags, TrustFlags {
  dir: string;
  host: string;
  port: number;
  cloud?: string;
  health?: { host: string; port: number };
  logLevel: string;
  logFormat: LogFormat;
}

export function upCommand(): Command {
  const command = new Command('up')
    .description('Run everything in one process: store, OpenStack emulator with a demo region, controllers, REST API')
    .option('--dir <path>', 'where the store, token and dev files go', './.openregion')
    .option('--host <host>', 'the REST API address', '127.0.0.1')
    .option('--port <port>', 'the REST API port (0: any free one)', port, 8080)
    .option('--cloud <name>', 'a clouds.yaml entry (cloud admin) to use instead of the built-in emulator')
    .option(
      '--health <host:port>',
      'also serve the probes and /metrics here (they are on the API port anyway)',
      hostPort,
    )
    .option('--log-level <level>', 'log level: trace, debug, info, warn, error', 'warn')
    .addOption(
      new Option('--log-format <format>', 'logs on stdout: text lines, or one JSON object a line')
        .choices(['text', 'json'])
        .default('text'),
    );
  return withImageSourceOption(withOrganizationLimitOption(withRateLimitOptions(command))).action(
    async (options: UpCommandOptions) => {
      const tracing = startTracing(process.env, packageVersion());
      const up = await startUp({
        dir: options.dir,
        host: options.host,
        port: options.port,
        cloud: options.cloud,
        health: options.health,
        env: process.env,
        log: createLogger({ level: options.logLevel, format: options.logFormat }),
        rateLimits: rateLimitsOf(options),
        organizationLimits: organizationLimitsOf(options),
        ...(options.imageSourceAllow === undefined ? {} : { imageSourceAllow: options.imageSourceAllow }),
      });
      process.stdout.write(banner(up, options.dir));
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      process.stdout.write('openregion: stopping…\n');
      await up.stop();
      await tracing?.shutdown();
    },
  );
}
