/**
 * The emulator's own figures: latency of a token issue, a server create and `GET /servers/detail` with 1,000
 * servers, measured through openregion's client over loopback on this machine.
 */
import { pathToFileURL } from 'node:url';
import { Emulator } from '../src/emulator/emulator.ts';
import { createServer, findServerByName, listServers, updateQuotaSet } from '../src/openstack/compute.ts';
import { findImageByName } from '../src/openstack/image.ts';
import { Transport } from '../src/openstack/transport.ts';
import { systemClock } from '../src/util/clock.ts';
import { seedEmulator } from '../test/openstack/seed.ts';
import { emulatorAdmin } from './emulator-process.ts';
import { percentile, timed } from './stats.ts';

const SERVERS = 1_000;
const TOKENS = 300;
const LISTS = 30;

export async function benchEmulator(): Promise<Record<string, number>> {
  const emulator = await Emulator.start();
  const transport = new Transport({ clock: systemClock, random: Math.random });
  const session = () => emulatorAdmin(emulator.authUrl, transport);
  try {
    await seedEmulator(emulator);
    const tokenMs: number[] = [];
    for (let i = 0; i < TOKENS; i++) tokenMs.push(await timed(() => session().token()));

    const admin = session();
    const compute = admin.client('compute');
    const projectID = (await admin.token()).project?.id;
    if (projectID === undefined) throw new Error('the admin token has no project');
    // As on a real cloud, the default quota (10 instances) would stop the run long before 1,000.
    await updateQuotaSet(compute, projectID, { instances: -1, cores: -1, ram: -1 });
    const image = await findImageByName(session().client('image'), 'or-image-a');
    const flavor = await compute.request<{ flavors: { id: string; name: string }[] }>({
      method: 'GET',
      path: '/flavors',
    });
    const small = flavor.body.flavors.find((f) => f.name === 'or.small');
    if (!image || !small) throw new Error('the seeded image or flavor is missing');
    const createMs: number[] = [];
    for (let i = 0; i < SERVERS; i++) {
      const server = { name: `bench-${String(i)}`, flavorRef: small.id, imageRef: image.id, networks: 'none' } as const;
      createMs.push(await timed(() => createServer(compute, server)));
    }
    if (!(await findServerByName(compute, 'bench-999'))) throw new Error('the last server is missing');
    const listMs: number[] = [];
    for (let i = 0; i < LISTS; i++) {
      listMs.push(
        await timed(async () => {
          const servers = await listServers(compute);
          if (servers.length !== SERVERS) throw new Error(`listed ${String(servers.length)} servers`);
        }),
      );
    }
    return {
      'token issue p50 (ms)': percentile(tokenMs, 50),
      'token issue p99 (ms)': percentile(tokenMs, 99),
      'server create p50 (ms)': percentile(createMs, 50),
      'server create p99 (ms)': percentile(createMs, 99),
      'GET /servers/detail, 1,000 servers, p50 (ms)': percentile(listMs, 50),
      'GET /servers/detail, 1,000 servers, p99 (ms)': percentile(listMs, 99),
    };
  } finally {
    await transport.close();
    await emulator.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.table(await benchEmulator());
}
