/**
 * `openregion serve`: the controllers `up` runs, against real clouds (the Regions and their credentials Secrets
 * in the cluster) and a real Kubernetes, found by kubectl's rules (--kubeconfig, $KUBECONFIG, ~/.kube/config or
 * the pod's service account; --context). Controller groups are selectable; with --leader-election only the Lease
 * holder reconciles (and a second Lease elects the server monitor), while every replica serves its probes and
 * reads Ready once its caches have synced. The probe port (--health) also serves /metrics. The REST API runs when
 * --api is given, verifying tokens against --jwks-url or a public key. The Keystone group also reconciles orders
 * on the target clusters registered by kubeconfig Secrets in --clusters-namespace; run alone, it never touches the
 * region service's kinds (they need not be installed). With --bundled-actuators it also runs the K-ORC and ESO
 * stand-ins `up` uses, for a cluster that runs neither project (their CRDs installed only where absent).
 */
import { hostname } from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import type { Logger } from 'pino';
import { CONTROLLERS_LEASE, hostPort, MONITOR_LEASE, regionKindsIn } from './serve-options.ts';
import type { KubernetesClient } from '../kube/kubernetes/client.ts';
import { kubeClientFrom } from '../kube/kubernetes/connect.ts';
import { fileEnvironment, KubeconfigError, resolveKubeconfig } from '../kube/kubernetes/kubeconfig.ts';
import { DEFAULT_CLUSTERS_NAMESPACE, type Cluster } from '../runtime/multicluster.ts';
import { openstackRequestMetrics } from '../openstack/metrics.ts';
import { Transport } from '../openstack/transport.ts';
import {
  prepareBundledActuators,
  registerBundledActuators,
  type BundledActuators,
} from '../keystone/actuators/bundled.ts';
import { registerKeystoneUserController } from '../keystone/user/register.ts';
import { buildApi } from '../region/http/app.ts';
import { mountConsole } from './console/routes.ts';
import { createAuthenticator, type AuthKey } from '../region/http/auth.ts';
import { clientSetFactory } from '../region/openstack/registry.ts';
import { startRegionRegistry } from './region-registry.ts';
import { serveHealth } from '../runtime/health.ts';
import { LeaderElector } from '../runtime/leader.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import { packageVersion } from '../util/version.ts';
import { startTracing } from './tracing.ts';
import { createLogger } from '../runtime/logger.ts';
import { Manager } from '../runtime/manager.ts';
import { systemScheduler, type Scheduler } from '../runtime/scheduler.ts';
import { systemClock } from '../util/clock.ts';
import { list } from './region.ts';
import { duration } from './wait.ts';
import {
  organizationLimitsOf,
  withOrganizationLimitOption,
  type OrganizationLimitFlags,
} from './organization-limit-options.ts';
import { rateLimitsOf, withRateLimitOptions, type RateLimitFlags } from './rate-limit-options.ts';
import { imageSourceOf, withImageSourceOption, withPublicUrlOption, type TrustFlags } from './trust-options.ts';
import { exitCodeOf } from './failure.ts';
import { leaseTimingsOf, withLeaderElectionOptions, type LeaderElectionFlags } from './leader-election-options.ts';
import {
  CONTROLLER_GROUPS,
  DEFAULT_REGION_CONCURRENCY,
  wireRegionService,
  type ControllerGroup,
} from './up/region-service.ts';

const GROUPS = [...CONTROLLER_GROUPS, 'keystone'] as const;

interface ServeOptions extends RateLimitFlags, OrganizationLimitFlags, LeaderElectionFlags, TrustFlags {
  /** The environment kubectl's loading rules read ($KUBECONFIG, a pod's KUBERNETES_SERVICE_HOST). */
  env: Readonly<Record<string, string | undefined>>;
  kubeconfig?: string;
  context?: string;
  inCluster?: boolean;
  namespace: string;
  /** Where the management cluster's other caches (the Keystone group's) watch; default every namespace. */
  watchNamespaces?: string[];
  /** Where the Keystone group reads target clusters' registration Secrets. */
  clustersNamespace: string;
  controllers?: string[];
  /** Run the bundled K-ORC and ESO actuators (the Keystone group, on a cluster without the real ones). */
  bundledActuators?: boolean;
  leaderElection?: boolean;
  leaseNamespace?: string;
  api?: string;
  jwksUrl?: string;
  publicKeyFile?: string;
  publicKeyAlgorithm: string;
  issuer?: string;
  audience?: string;
  /** Accept tokens of any iss and aud: development only (exp is still required). */
  insecureAnyIssuerAndAudience?: boolean;
  health: string;
  region?: string;
  logLevel: string;
  concurrency: number;
  /** Passes the KeystoneUser controller runs at once (upstream's MaxConcurrentReconciles); default 1. */
  keystoneConcurrency: number;
  /** Upstream's --provider-create-max-attempts: creates a never-booted server gets before it reads terminal. */
  providerCreateMaxAttempts?: number;
  /** Upstream's --poll-period: the server monitor's period, in ms. */
  pollPeriod?: number;
  /** How often flavors, volume types and external networks are re-listed, in ms. */
  inventoryRefreshPeriod?: number;
}

/** A commander parser for counts. */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive whole number, not ${value}`);
  return n;
}

/** The KeystoneUser controller's default concurrency: one pass at a time, as before the flag. */
const DEFAULT_KEYSTONE_CONCURRENCY = 1;

/** How long start-up may spend reading the Regions and asking each cloud its API versions. */
const START_UP_CHECK_MS = 60_000;

/** What the flags set of the KeystoneUser controller's registration. */
export function keystoneControllerOptions(options: Pick<ServeOptions, 'keystoneConcurrency'>): {
  maxConcurrentReconciles: number;
} {
  return { maxConcurrentReconciles: options.keystoneConcurrency };
}

/**
 * A commander parser for --watch-namespaces: a list that names at least one namespace. An empty one (a ConfigMap's
 * value left blank) would otherwise mean every namespace, which a namespaced deployment's Roles do not grant.
 */
function namespaceList(value: string, previous: string[] = []): string[] {
  const names = list(value, previous);
  if (names.length === previous.length)
    throw new InvalidArgumentError('expected namespaces, comma-separated (omit the flag to watch every namespace)');
  return names;
}

/** A commander parser for periods: a duration (30s, 5m, 1500ms) longer than zero. */
function positiveDuration(value: string): number {
  const ms = duration(value);
  if (ms < 1) throw new InvalidArgumentError(`expected a period longer than zero, not ${value}`);
  return ms;
}

function authKeyOf(options: Pick<ServeOptions, 'jwksUrl' | 'publicKeyFile' | 'publicKeyAlgorithm'>): AuthKey {
  if (options.jwksUrl !== undefined) return { jwksUrl: options.jwksUrl };
  if (options.publicKeyFile !== undefined) {
    return { publicKeyPem: readFileSync(options.publicKeyFile, 'utf8'), algorithm: options.publicKeyAlgorithm };
  }
  throw new InvalidArgumentError('--api needs --jwks-url or --public-key-file to verify tokens');
}

/**
 * The claims a token must carry to be accepted besides exp: the issuer and audience the operator names. A token
 * from another issuer, or minted for another service, must not work here, so both are required unless the operator
 * explicitly opts out.
 */
export function expectedClaimsOf(options: Pick<ServeOptions, 'issuer' | 'audience' | 'insecureAnyIssuerAndAudience'>): {
  issuer?: string;
  audience?: string;
} {
  const missing = [
    ...(options.issuer === undefined ? ['--issuer'] : []),
    ...(options.audience === undefined ? ['--audience'] : []),
  ];
  if (missing.length > 0 && options.insecureAnyIssuerAndAudience !== true) {
    throw new InvalidArgumentError(
      `--api needs ${missing.join(' and ')}: the iss and aud every token must carry ` +
        '(or --insecure-any-issuer-and-audience, for development only)',
    );
  }
  return {
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
  };
}

export function selectedGroups(names: readonly string[] | undefined): Set<(typeof GROUPS)[number]> {
  if (names === undefined || names.length === 0) return new Set(GROUPS);
  const unknown = names.filter((n) => !(GROUPS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new InvalidArgumentError(`unknown controller groups ${unknown.join(', ')}; known: ${GROUPS.join(', ')}`);
  return new Set(names as (typeof GROUPS)[number][]);
}

/** The bundled actuators serve KeystoneUser orders: without the Keystone group they would have nothing to do. */
export function bundledActuatorsNeedKeystone(bundled: boolean | undefined, groups: ReadonlySet<string>): void {
  if (bundled === true && !groups.has('keystone')) {
    throw new InvalidArgumentError('--bundled-actuators runs with the keystone controller group (--controllers)');
  }
}

async function serve(options: ServeOptions): Promise<() => Promise<void>> {
  const clock = systemClock;
  const scheduler = systemScheduler(clock);
  const log = createLogger({ level: options.logLevel });
  const tracing = startTracing(options.env, packageVersion());
  const groups = selectedGroups(options.controllers);
  bundledActuatorsNeedKeystone(options.bundledActuators, groups);
  const regionGroups = [...groups].filter((g): g is ControllerGroup => g !== 'keystone');
  const source = resolveKubeconfig(options, fileEnvironment(options.env));
  const client = kubeClientFrom(source.kind === 'in-cluster' ? { inCluster: true } : { kubeconfig: source.text });
  // One registry for the process: the runtime's series, the API's requests and every OpenStack call.
  const metrics = new RuntimeMetrics();
  metrics.buildInfo(packageVersion(), process.version);
  const transport = new Transport({ clock, random: Math.random, observer: openstackRequestMetrics(metrics.registry) });
  const identity = `${hostname()}-${randomBytes(4).toString('hex')}`;
  const leaseNamespace = options.leaseNamespace ?? options.namespace;
  const leaseTimings = leaseTimingsOf(options);
  const stopping = { value: false };
  const keystone = groups.has('keystone');
  const targets = targetClusterClients();
  const manager = new Manager({
    client,
    metrics,
    clock,
    scheduler,
    log,
    namespacesOf: regionKindsIn(options.namespace, options.watchNamespaces),
    ...(keystone ? { targetClusters: { namespace: options.clustersNamespace, clientFor: targets.clientFor } } : {}),
    ...(options.leaderElection === true
      ? { leaderElection: { namespace: leaseNamespace, name: CONTROLLERS_LEASE, identity, ...leaseTimings } }
      : {}),
    onLostLeadership: () => {
      log.error('leadership lost: exiting so a fresh process can stand for election');
      process.exitCode = 1;
      process.kill(process.pid, 'SIGTERM');
    },
  });
  manager.metrics.collectProcessMetrics();
  // The probe port answers from the start: liveness at once, readiness once the caches have synced. A pod whose
  // first lists take long (many Secrets, a slow API server) is then alive for its startupProbe, not killed.
  const health = await serveHealth(manager.health, { ...hostPort(options.health), metrics: manager.metrics.registry });
  let regions: Awaited<ReturnType<typeof startRegionRegistry>> | undefined;
  let region: ReturnType<typeof wireRegionService> | undefined;
  let actuators: BundledActuators | undefined;
  try {
    // The region service (and its start-up read of every Region) only where a region group or the API runs: the
    // Keystone operator alone needs neither the region CRDs nor the right to read them.
    regions =
      regionGroups.length === 0 && options.api === undefined
        ? undefined
        : await startRegionRegistry({
            client,
            namespace: options.namespace,
            clientSets: clientSetFactory({ transport, clock, region: options.region }),
            scheduler,
            log,
            signal: AbortSignal.timeout(START_UP_CHECK_MS),
          });
    if (regions !== undefined) manager.readsFrom(regions.reads);
    region =
      regions === undefined
        ? undefined
        : wireRegionService({
            manager,
            client,
            namespace: options.namespace,
            registry: regions.registry,
            clock,
            scheduler,
            log,
            groups: regionGroups,
            api: options.api !== undefined,
            concurrency: options.concurrency,
            ...(options.pollPeriod === undefined ? {} : { monitorPeriodMs: options.pollPeriod }),
            ...(options.inventoryRefreshPeriod === undefined
              ? {}
              : { inventoryRefreshMs: options.inventoryRefreshPeriod }),
            ...(options.providerCreateMaxAttempts === undefined
              ? {}
              : { maxServerCreateAttempts: options.providerCreateMaxAttempts }),
          });
    if (keystone) registerKeystoneUserController(manager, keystoneControllerOptions(options));
    actuators =
      options.bundledActuators === true ? await startBundledActuators(manager, client, { scheduler, log }) : undefined;
    await manager.start();
  } catch (error) {
    await regions?.close();
    await health.close();
    throw error;
  }
  const unsubscribeTargets = await manager.clusters.subscribe(targets.listener);

  // The monitor writes status on its own cadence: with leader election, only the holder of its Lease runs it.
  const monitorElector =
    region !== undefined && options.leaderElection === true && groups.has('monitor')
      ? new LeaderElector({
          client,
          scheduler,
          log: log.child({ component: 'monitor-election' }),
          namespace: leaseNamespace,
          name: MONITOR_LEASE,
          identity,
          ...leaseTimings,
          onStartedLeading: () => {
            region.start();
          },
          onStoppedLeading: () => {
            if (!stopping.value) void region.stop();
          },
        })
      : undefined;
  if (monitorElector === undefined) region?.start();
  else monitorElector.start();

  const app =
    options.api === undefined || region === undefined
      ? undefined
      : await buildApi({
          client,
          namespace: options.namespace,
          clock,
          newID: randomUUID,
          authenticate: createAuthenticator({
            key: authKeyOf(options),
            clock,
            log: log.child({ component: 'auth' }),
            ...expectedClaimsOf(options),
          }),
          capabilities: region.capabilities,
          organizationObjects: region.organizationObjects,
          cachedObject: region.cachedObject,
          organizationCounts: region.organizationCounts,
          rateLimits: rateLimitsOf(options),
          organizationLimits: organizationLimitsOf(options),
          imageSource: imageSourceOf(options, log),
          protectedResource: {
            ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
            ...(options.publicUrl === undefined ? {} : { resource: options.publicUrl }),
          },
          log,
          metrics: metrics.registry,
        });
  if (app !== undefined && options.api !== undefined) {
    mountConsole(app, { operator: { client, metrics: manager.metrics.registry } });
    await app.listen(hostPort(options.api));
  }
  const running = [...(region?.running ?? []), ...(keystone ? ['keystone users'] : []), ...(actuators?.running ?? [])];
  log.info(
    {
      controllers: running,
      api: options.api,
      health: options.health,
      ...(keystone ? { clustersNamespace: options.clustersNamespace } : {}),
    },
    'openregion serve started',
  );
  return async () => {
    stopping.value = true;
    await app?.close();
    await monitorElector?.stop();
    await region?.close();
    await manager.stop();
    await regions?.close();
    await actuators?.close();
    unsubscribeTargets();
    targets.closeAll();
    await health.close();
    await transport.close();
    client.close();
    await tracing?.shutdown();
  };
}

/** The stand-in CRDs in place (only where absent or openregion's own), then the actuators registered. */
async function startBundledActuators(
  manager: Manager,
  client: KubernetesClient,
  { scheduler, log }: { readonly scheduler: Scheduler; readonly log: Logger },
): Promise<BundledActuators> {
  const prepared = await prepareBundledActuators(client, scheduler);
  log.info(
    { installed: prepared.installed, kept: prepared.kept, secretStore: prepared.storeType?.version ?? null },
    'bundled K-ORC and ESO actuators: CRDs in place',
  );
  return registerBundledActuators(manager, { storeType: prepared.storeType, clock: scheduler.clock });
}

/**
 * Target clusters' clients: built from their registration Secrets' kubeconfigs, and closed once the manager has
 * let go of them (the Secret changed or went) or at shutdown, since each holds its own connection pool.
 */
function targetClusterClients() {
  const built = new Set<KubernetesClient>();
  const engaged = new Map<string, KubernetesClient>();
  const release = (client: KubernetesClient | undefined) => {
    if (client === undefined) return;
    client.close();
    built.delete(client);
  };
  return {
    clientFor: (kubeconfig: string): KubernetesClient => {
      const client = kubeClientFrom({ kubeconfig });
      built.add(client);
      return client;
    },
    listener: {
      engaged: (cluster: Cluster) => {
        for (const client of built) if (client === cluster.client) engaged.set(cluster.name, client);
      },
      disengaged: (name: string) => {
        release(engaged.get(name));
        engaged.delete(name);
      },
    },
    closeAll: () => {
      for (const client of built) client.close();
      built.clear();
      engaged.clear();
    },
  };
}

export function serveCommand(): Command {
  const command = new Command('serve')
    .description(
      'Run the controllers against real clouds and Kubernetes (leader election, selectable groups, REST API)',
    )
    .option('--kubeconfig <path>', 'the cluster (default as kubectl: $KUBECONFIG, ~/.kube/config, in-cluster)')
    .option('--context <name>', 'the kubeconfig context (default: its current-context)')
    .option('--in-cluster', "use the pod's service account, whatever the environment says")
    .option('--namespace <ns>', 'the region service namespace (Regions, Identities, workloads)', 'unikorn-region')
    .option(
      '--watch-namespaces <ns>',
      'where the Keystone group lists and watches orders, their control planes and Secrets (comma-separated; ' +
        'default every namespace)',
      namespaceList,
    )
    .option(
      '--clusters-namespace <ns>',
      "where target clusters' kubeconfig Secrets are registered (the Keystone group)",
      DEFAULT_CLUSTERS_NAMESPACE,
    )
    .option('--controllers <groups>', `controller groups, comma-separated (default all: ${GROUPS.join(', ')})`, list)
    .option(
      '--bundled-actuators',
      'also run the bundled K-ORC and ESO actuators, for a cluster without them (never where the real ones run)',
    )
    .option('--leader-election', 'reconcile only while holding the Lease (run several replicas)')
    .option('--lease-namespace <ns>', 'where the Leases live (default: --namespace)')
    .option('--api <host:port>', 'serve the REST API here, e.g. 0.0.0.0:8080')
    .option('--jwks-url <url>', "the token issuer's JWKS URL")
    .option('--public-key-file <pem>', 'a PEM public key (SPKI) tokens are signed with, instead of a JWKS')
    .option('--public-key-algorithm <alg>', 'the public key algorithm', 'ES256')
    .option('--issuer <iss>', 'the iss every token must carry (required with --api)')
    .option('--audience <aud>', 'the aud every token must carry (required with --api)')
    .option(
      '--insecure-any-issuer-and-audience',
      'accept tokens of any iss and aud instead (development only; exp is still required)',
    );
  return withPublicUrlOption(
    withImageSourceOption(withOrganizationLimitOption(withRateLimitOptions(withLeaderElectionOptions(command)))),
  )
    .option('--health <host:port>', 'the probe port: /healthz, /livez, /readyz and /metrics', '0.0.0.0:8081')
    .option('--region <name>', 'the catalog region endpoints are picked from')
    .option('--log-level <level>', 'log level', 'info')
    .option(
      '--concurrency <n>',
      'passes each region controller runs at once',
      positiveInteger,
      DEFAULT_REGION_CONCURRENCY,
    )
    .option(
      '--keystone-concurrency <n>',
      'passes the KeystoneUser controller runs at once (different orders; one order never twice at once)',
      positiveInteger,
      DEFAULT_KEYSTONE_CONCURRENCY,
    )
    .option(
      '--provider-create-max-attempts <n>',
      'creates a server that never booted gets before it reads terminal (default 3)',
      positiveInteger,
    )
    .option('--poll-period <duration>', "the server monitor's period, e.g. 30s or 1m (default 1m)", positiveDuration)
    .option(
      '--inventory-refresh-period <duration>',
      'how often flavors, volume types and external networks are re-listed (default 5m)',
      positiveDuration,
    )
    .action(async (flags: Omit<ServeOptions, 'env'>) => {
      const options = { ...flags, env: process.env };
      try {
        leaseTimingsOf(options);
      } catch (error) {
        // Thrown from an action, commander would not print it: say why, as for a bad flag value.
        if (error instanceof InvalidArgumentError) command.error(`error: ${error.message}`, error);
        throw error;
      }
      if (options.api !== undefined) {
        authKeyOf(options);
        expectedClaimsOf(options);
      }
      // serve runs until a signal stops it. Its timers are unref'd (clock.ts), and before the health server listens a
      // start-up wait (a stand-in CRD not yet served) can leave the loop nothing else to wait on: Node then exits 13
      // ("unsettled top-level await") having printed nothing, as 1 start in 5-8 of the bundled-actuators suite did.
      const running = setInterval(() => undefined, 2 ** 31 - 1);
      try {
        let stop: () => Promise<void>;
        try {
          stop = await serve(options);
        } catch (error) {
          if (!(error instanceof KubeconfigError)) throw error;
          process.stderr.write(`error: ${error.message}\n`);
          process.exitCode = exitCodeOf(error);
          return;
        }
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await stop();
      } finally {
        clearInterval(running);
      }
    });
}
