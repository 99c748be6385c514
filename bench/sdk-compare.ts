/**
 * openregion's OpenStack client beside Debian's python3-openstacksdk and gophercloud on the real dev cloud: each
 * authenticates afresh (password, project-scoped admin) and lists the SERVERS servers of one project (`all_tenants`,
 * `project_id`), ROUNDS times, alternating; figures are the median wall time of a round and the HTTP requests one
 * round makes. The peers' rounds are timed inside their own processes after start-up (bench/sdk_list.py,
 * bench/gophercloud_list/main.go), as ours are inside this one.
 *
 * The servers are ones Nova never schedules: a flavor of the bench's own asks for more memory than any compute
 * node has, so each batched create (min_count/max_count) ends in the scheduler's NoValidHost within seconds and the
 * servers read ERROR, with no build on the fake compute node (building 500 took it 75-80 minutes and a core). Nova
 * lists them as it lists any server: the same query, the same rows per server (the fault in place of addresses).
 * They live in the dedicated project `openregion-bench-sdk-unscheduled`, and are deleted after the rounds with the
 * flavor (an unscheduled server has no host: its delete is Nova's local one). When the dev cloud or openstacksdk
 * is absent, the scenario says it was skipped and why; when Go or gophercloud is absent, only gophercloud's
 * figures are skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { promisify } from 'node:util';
import { RequestAccounting } from '../src/openstack/accounting.ts';
import { deleteServer, listServers, updateQuotaSet, type ComputeClient } from '../src/openstack/compute.ts';
import { loadCloudConfig, type CloudConfig } from '../src/openstack/config.ts';
import { createProject, findProjectByName, findRoleByName, grantRole } from '../src/openstack/identity.ts';
import type { ImageClient } from '../src/openstack/image.ts';
import { DEFAULT_COMPUTE_MICROVERSION } from '../src/openstack/microversion.ts';
import { Session } from '../src/openstack/session.ts';
import { Transport } from '../src/openstack/transport.ts';
import { systemClock } from '../src/util/clock.ts';
import { gophercloudList } from './gophercloud.ts';
import { judged, percentile, timed } from './stats.ts';

const CLOUDS_YAML = '/var/lib/openregion-devcloud/clouds.yaml';
const CLOUD = 'devcloud-admin';
const PROJECT = 'openregion-bench-sdk-unscheduled';
/** A flavor no compute node can hold (the fake driver's node has 800,000 MiB): NoValidHost at scheduling. */
const FLAVOR = { name: 'openregion-bench-unschedulable', ram: 2_000_000_000, vcpus: 1, disk: 1 };
/**
 * BENCH_SDK_SERVERS (default 250): one list of them is one Nova page either way, so the per-server work the clients
 * are compared on is the same kind; 500 made the scenario 650 s of the whole run's 30-minute budget, most of it
 * Nova scheduling and deleting them.
 */
const SERVERS = Number(process.env['BENCH_SDK_SERVERS'] ?? 250);
const BATCH = 50;
/** Debian's interpreter, where python3-openstacksdk installs (a pyenv `python3` first on PATH would not see it). */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const ROUNDS = 5;

export type Skipped = { readonly skipped: string };
/** What a peer's program prints for its rounds. */
type PeerRounds = { readonly ms: number[]; readonly servers: number; readonly requests: number };

export async function benchSdkCompare(): Promise<Record<string, number | string> | Skipped> {
  if (!existsSync(CLOUDS_YAML)) return { skipped: `no dev cloud (${CLOUDS_YAML} is absent)` };
  const python = await run(PYTHON, ['-c', 'import openstack']).catch(() => undefined);
  if (python === undefined)
    return { skipped: 'python3-openstacksdk is not installed (apt-get install python3-openstacksdk)' };
  const env = { ...process.env, OS_CLIENT_CONFIG_FILE: CLOUDS_YAML };
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
  const config = loadCloudConfig({ env, cwd: process.cwd(), home: homedir(), readFile: read }, CLOUD);
  const accounting = new RequestAccounting();
  const transport = new Transport({ clock: systemClock, random: Math.random, observer: accounting.observe });
  try {
    const admin = new Session({ ...config, transport, clock: systemClock }) as Session<'project'>;
    try {
      await admin.token();
    } catch (error) {
      return { skipped: `the dev cloud does not answer (${error instanceof Error ? error.message : String(error)})` };
    }
    const projectID = await benchProject(admin);
    try {
      await ensureServers(admin, config, transport, projectID);
      await untilScheduled(admin.client('compute'), projectID);
      return await rounds(admin, config, env, projectID, accounting);
    } finally {
      await cleanUp(admin.client('compute'), projectID);
    }
  } finally {
    await transport.close();
  }
}

async function rounds(
  admin: Session<'project'>,
  config: CloudConfig,
  env: NodeJS.ProcessEnv,
  projectID: string,
  accounting: RequestAccounting,
): Promise<Record<string, number | string>> {
  const gophercloud = await gophercloudList();
  const peerArgs = [CLOUD, projectID, '1'];
  // gophercloud sends no compute microversion, so Nova answers it at 2.1 and does less per server than at ours. It
  // also runs at ours: ours against that is the clients' own difference.
  const ourMicroversion = config.microversions.compute ?? DEFAULT_COMPUTE_MICROVERSION;

  // Rounds alternate, ours then the peers', so all see the same load on the shared dev cloud.
  accounting.reset();
  const oursMs: number[] = [];
  const sdkMs: number[] = [];
  const goMs: number[] = [];
  const goPinnedMs: number[] = [];
  // Nova's answer alone, at each microversion: one GET read to its last byte, nothing parsed.
  const novaMs = { base: [] as number[], ours: [] as number[] };
  const novaAnswer = rawServerList(admin, projectID);
  let listed = 0;
  let sdk: PeerRounds = { ms: [], servers: 0, requests: 0 };
  let go: PeerRounds = { ms: [], servers: 0, requests: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    const fresh = new Transport({ clock: systemClock, random: Math.random, observer: accounting.observe });
    const session = new Session({ ...config, transport: fresh, clock: systemClock }) as Session<'project'>;
    oursMs.push(
      await timed(async () => {
        await session.token();
        listed = (await listServers(session.client('compute'), { allTenants: true, projectID })).length;
      }),
    );
    await fresh.close();
    const script = new URL('./sdk_list.py', import.meta.url).pathname;
    sdk = JSON.parse((await run(PYTHON, [script, ...peerArgs], env)).stdout) as PeerRounds;
    sdkMs.push(...sdk.ms);
    if (typeof gophercloud === 'string') {
      go = JSON.parse((await run(gophercloud, peerArgs, env)).stdout) as PeerRounds;
      goMs.push(...go.ms);
      const pinned = JSON.parse((await run(gophercloud, [...peerArgs, ourMicroversion], env)).stdout) as PeerRounds;
      goPinnedMs.push(...pinned.ms);
    }
    novaMs.base.push(await novaAnswer('2.1'));
    novaMs.ours.push(await novaAnswer(ourMicroversion));
  }
  const oursRequests = accounting.total() / ROUNDS;
  const listMs = accounting.counts().find((c) => c.serviceType === 'compute')?.totalMs ?? 0;
  const ours = percentile(oursMs, 50);
  const theirs = percentile(sdkMs, 50);
  const goMedian = percentile(goMs, 50);
  const goPinnedMedian = percentile(goPinnedMs, 50);
  const ratio = (peer: number) => judged(Math.round((ours / peer) * 100) / 100, '≤', 1);
  return {
    'servers listed (openregion)': listed,
    'servers listed (openstacksdk)': sdk.servers,
    'openregion: authenticate + list, median (ms)': ours,
    'openstacksdk: authenticate + list, median (ms)': theirs,
    'openregion / openstacksdk wall time': ratio(theirs),
    'openregion requests per round': oursRequests,
    'openregion: of a round, the server list request (ms, mean)': Math.round(listMs / ROUNDS),
    'openstacksdk requests per round': sdk.requests,
    "Nova's server list alone at compute 2.1, median (ms)": percentile(novaMs.base, 50),
    [`Nova's server list alone at compute ${ourMicroversion}, median (ms)`]: percentile(novaMs.ours, 50),
    ...(typeof gophercloud === 'string'
      ? {
          'servers listed (gophercloud)': go.servers,
          'gophercloud: authenticate + list, median (ms)': goMedian,
          'openregion / gophercloud wall time': ratio(goMedian),
          'gophercloud requests per round': go.requests,
          [`gophercloud at compute ${ourMicroversion}: authenticate + list, median (ms)`]: goPinnedMedian,
          // The same request, the same answer: the clients' own difference.
          [`openregion / gophercloud at compute ${ourMicroversion}`]: ratio(goPinnedMedian),
        }
      : { gophercloud: `skipped: ${gophercloud.skipped}` }),
  };
}

/** Times one bare GET of the project's servers at a compute microversion, read to the end and not parsed (ms). */
function rawServerList(admin: Session<'project'>, projectID: string): (microversion: string) => Promise<number> {
  return async (microversion) => {
    const token = await admin.token();
    const url = `${await admin.client('compute').baseUrl()}/servers/detail?all_tenants=True&project_id=${projectID}`;
    const headers = { 'x-auth-token': token.value, 'openstack-api-version': `compute ${microversion}` };
    return timed(async () => {
      const response = await fetch(url, { headers });
      if (!response.ok) throw new Error(`GET ${url}: ${String(response.status)}`);
      await response.arrayBuffer();
    });
  };
}

/** The dedicated project, found or made. */
async function benchProject(admin: Session<'project'>): Promise<string> {
  const identity = admin.client('identity');
  const project =
    (await findProjectByName(identity, 'default', PROJECT)) ??
    (await createProject(identity, { name: PROJECT, domain_id: 'default', description: 'openregion bench' }));
  return project.id;
}

/** The project's SERVERS servers, made with batched creates. */
async function ensureServers(
  admin: Session<'project'>,
  config: CloudConfig,
  transport: Transport,
  projectID: string,
): Promise<void> {
  const identity = admin.client('identity');
  const compute = admin.client('compute');
  const project = { id: projectID };
  let present = (await listServers(compute, { allTenants: true, projectID: project.id })).length;
  if (present === SERVERS) return;
  // A run with another BENCH_SDK_SERVERS left more: the list must hold exactly SERVERS.
  if (present > SERVERS) {
    await cleanUp(compute, project.id, false);
    present = 0;
  }
  await updateQuotaSet(compute, project.id, { instances: -1, cores: -1, ram: -1 });
  const member = await findRoleByName(identity, 'member');
  if (!member) throw new Error('the dev cloud has no member role');
  await grantRole(identity, { userID: (await admin.token()).user.id, projectID: project.id, roleID: member.id });
  const flavor = await unschedulableFlavor(compute);
  const image = await activeImage(admin.client('image'));
  const scope = { kind: 'project', project: { id: project.id } } as const;
  const scoped = new Session({ ...config, scope, transport, clock: systemClock });
  process.stdout.write(`  creating ${String(SERVERS - present)} unschedulable servers in ${PROJECT}\n`);
  while (present < SERVERS) {
    const count = Math.min(BATCH, SERVERS - present);
    await scoped.client('compute').request({
      method: 'POST',
      path: '/servers',
      body: {
        server: {
          name: `bench-sdk-${String(present)}`,
          flavorRef: flavor,
          imageRef: image,
          networks: 'none',
          min_count: count,
          max_count: count,
        },
      },
    });
    present += count;
  }
}

/** Waits while any of the servers is still being scheduled (BUILD): then the list no longer changes. */
async function untilScheduled(compute: ComputeClient, projectID: string): Promise<void> {
  for (let said = -1; ;) {
    const building = (await listServers(compute, { allTenants: true, projectID })).filter(
      (s) => s.status === 'BUILD',
    ).length;
    if (building === 0) return;
    if (said === -1 || said - building >= 50) {
      process.stdout.write(`  waiting for Nova to schedule ${String(building)} of the ${String(SERVERS)} servers\n`);
      said = building;
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

/** Deletes the project's servers (8 at a time), waits until Nova lists none, then deletes the flavor. */
async function cleanUp(compute: ComputeClient, projectID: string, flavorToo = true): Promise<void> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const left = await listServers(compute, { allTenants: true, projectID });
    if (left.length === 0) break;
    if (attempt % 10 === 0) {
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < left.length; i = next++)
          await deleteServer(compute, left[i]?.id ?? '').catch(() => undefined);
      };
      await Promise.all(Array.from({ length: 8 }, lane));
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  if (!flavorToo) return;
  const flavor = await findFlavor(compute);
  if (flavor !== undefined)
    await compute.request({ method: 'DELETE', path: `/flavors/${flavor}` }).catch(() => undefined);
}

async function findFlavor(compute: ComputeClient): Promise<string | undefined> {
  const flavors = await compute.request<{ flavors: { id: string; name: string }[] }>({
    method: 'GET',
    path: '/flavors',
    query: { is_public: 'None' },
  });
  return flavors.body.flavors.find((f) => f.name === FLAVOR.name)?.id;
}

/** The bench's flavor no compute node can hold, made when absent. */
async function unschedulableFlavor(compute: ComputeClient): Promise<string> {
  const found = await findFlavor(compute);
  if (found !== undefined) return found;
  const created = await compute.request<{ flavor: { id: string } }>({
    method: 'POST',
    path: '/flavors',
    body: { flavor: FLAVOR },
  });
  return created.body.flavor.id;
}

/**
 * The first active public image. An admin's list also shows other projects' private images (Octavia's amphora
 * image in the service project), which Nova refuses to boot in the bench's project.
 */
async function activeImage(glance: ImageClient): Promise<string> {
  const images = await glance.request<{ images: { id: string }[] }>({
    method: 'GET',
    path: '/images',
    query: { status: 'active', visibility: 'public' },
  });
  const image = images.body.images[0];
  if (image === undefined) throw new Error('the dev cloud has no active image');
  return image.id;
}

async function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stdout: string }> {
  return promisify(execFile)(command, args, { env, maxBuffer: 16 * 2 ** 20 });
}
