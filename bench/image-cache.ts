/**
 * The refresh-ahead image cache's figures at 1,000 public images on the emulator (loopback, this machine): listing
 * from the cache (what every API caller pays) against listing straight from Glance with the same validation and
 * translation (what each caller would pay without it), and the cost of one background refresh.
 */
import { pathToFileURL } from 'node:url';
import { Emulator } from '../src/emulator/emulator.ts';
import { createImage } from '../src/openstack/image.ts';
import { RequestAccounting } from '../src/openstack/accounting.ts';
import { Session } from '../src/openstack/session.ts';
import { Transport } from '../src/openstack/transport.ts';
import { systemClock } from '../src/util/clock.ts';
import type { RegionOpenstack } from '../src/region/apis/region.ts';
import { createRegionClientSet } from '../src/region/openstack/client-set.ts';
import { InventoryCaches } from '../src/region/openstack/inventory/caches.ts';
import { loadImages } from '../src/region/openstack/inventory/images.ts';
import { inventoryProviderFor } from '../src/region/openstack/inventory/provider.ts';
import type { Scheduler } from '../src/region/openstack/inventory/refresh-ahead.ts';
import { percentile, timed } from './stats.ts';

const IMAGES = 1_000;
const CACHED_LISTS = 2_000;
const GLANCE_LISTS = 50;
const REFRESHES = 50;

const PROPERTIES = {
  'unikorn:os:kernel': 'linux',
  'unikorn:os:family': 'debian',
  'unikorn:os:distro': 'ubuntu',
  'unikorn:os:version': '24.04',
  'unikorn:virtualization': 'virtualized',
  'unikorn:package:kubernetes': 'v1.31.2',
  architecture: 'x86_64',
};

/** No background refresh during the run: every refresh measured is one the bench asked for. */
const idle: Scheduler = { every: () => ({ cancel: () => undefined }) };

export async function benchImageCache(): Promise<Record<string, number>> {
  const emulator = await Emulator.start();
  const accounting = new RequestAccounting();
  const transport = new Transport({ clock: systemClock, random: Math.random, observer: accounting.observe });
  try {
    const admin = new Session<'project'>({
      authUrl: emulator.authUrl,
      auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: 'secret' },
      scope: { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
      transport,
      clock: systemClock,
    });
    const token = await admin.token();
    const glance = admin.client('image');
    for (let i = 0; i < IMAGES; i++) {
      await createImage(glance, { name: `bench-${String(i)}`, visibility: 'public', properties: PROPERTIES });
    }
    const config: RegionOpenstack = { endpoint: emulator.authUrl, serviceAccountSecret: { namespace: 'n', name: 's' } };
    const clients = createRegionClientSet(
      {
        authUrl: emulator.authUrl,
        domainID: 'default',
        projectID: token.project?.id ?? '',
        userID: token.user.id,
        password: 'secret',
      },
      { transport, clock: systemClock },
    );
    const region = {
      region: {
        apiVersion: 'region.unikorn-cloud.org/v1alpha1',
        kind: 'Region',
        metadata: { name: 'bench', namespace: 'default' },
        spec: { provider: 'openstack' as const, openstack: config },
      },
      config,
      clients,
      namespace: 'default',
    };
    const caches = new InventoryCaches({ clock: systemClock, imageCache: true, scheduler: idle });
    const provider = inventoryProviderFor(region, { caches });
    const ctx = { signal: new AbortController().signal };
    const count = async (listed: Promise<{ readonly items: readonly unknown[] }>) => {
      const { items } = await listed;
      if (items.length !== IMAGES) throw new Error(`listed ${String(items.length)} images`);
    };

    await count(provider.queryImages().list(ctx)); // the first load
    const cachedMs: number[] = [];
    for (let i = 0; i < CACHED_LISTS; i++) {
      cachedMs.push(await timed(() => count(provider.queryImages().availableToOrganization('org').list(ctx))));
    }
    const read = { defaultArchitecture: 'x86_64' } as const;
    const glanceMs: number[] = [];
    for (let i = 0; i < GLANCE_LISTS; i++) {
      glanceMs.push(
        await timed(() => count(loadImages(clients.region().client('image'), read).then((l) => ({ items: l.images })))),
      );
    }
    const cache = caches.for(region).images;
    if (cache === undefined) throw new Error('the image cache is off');
    const before = requestsTo(accounting, 'image');
    const refreshMs: number[] = [];
    for (let i = 0; i < REFRESHES; i++) refreshMs.push(await timed(() => cache.refresh()));
    const perRefresh = (requestsTo(accounting, 'image') - before) / REFRESHES;
    caches.stop();
    return {
      'image list from the cache, 1,000 images, p50 (ms)': percentile(cachedMs, 50),
      'image list from the cache, 1,000 images, p99 (ms)': percentile(cachedMs, 99),
      'image list from Glance, 1,000 images, p50 (ms)': percentile(glanceMs, 50),
      'image list from Glance, 1,000 images, p99 (ms)': percentile(glanceMs, 99),
      'image cache refresh p50 (ms)': percentile(refreshMs, 50),
      'image cache refresh p99 (ms)': percentile(refreshMs, 99),
      'image cache refresh, Glance requests': perRefresh,
    };
  } finally {
    await transport.close();
    await emulator.close();
  }
}

function requestsTo(accounting: RequestAccounting, service: string): number {
  return accounting.counts().reduce((n, c) => n + (c.serviceType === service ? c.requests : 0), 0);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.table(await benchImageCache());
}
