/**
 * Test support for the REST API: an in-memory store serving every region kind with one visible Region, a signing
 * key and tokens for two organizations, a fake inventory, and the API built over them (exercised with inject()).
 */
import assert from 'node:assert/strict';
import type { EmbeddedStore } from '../../../kube/embedded/store.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { ManualClock } from '../../../util/clock.ts';
import { API_VERSION, regionKinds, regionType } from '../../apis/index.ts';
import { openRegionStore } from '../../apis/testing/store.ts';
import type { ImageQuery } from '../../provider/contract.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import type { Flavor, Image, VolumeClass } from '../../provider/types.ts';
import { buildApi } from '../app.ts';
import { createAuthenticator } from '../auth.ts';
import type { ApiDeps, Capabilities, RegionInventory } from '../context.ts';
import { DEV_ALGORITHM, DEV_AUDIENCE, DEV_ISSUER, generateDevKeyPair, signDevToken } from '../dev-token.ts';
import { PROBLEM_CONTENT_TYPE } from '../problem.ts';
import type { Api } from '../routes/kit.ts';
import { testImage } from '../../provider/testing/image.ts';

export const NAMESPACE = 'unikorn-region';
export const REGION_ID = 'c0a8f0e2-0000-4000-8000-00000000000a';
export const ORG_A = 'org-a';
export const ORG_B = 'org-b';
export const PROJECT_A = 'project-a';
export const PROJECT_B = 'project-b';
export const FLAVOR = 'flavor-small';
export const FLAVOR_BAREMETAL = 'flavor-metal';
export const IMAGE = 'image-ubuntu';
export const IMAGE_2 = 'image-rocky';
export const VOLUME_CLASS = 'class-fast';

const image = (id: string, name: string, overrides: Partial<Image> = {}): Image =>
  testImage(id, { name, sizeGiB: 2, ...overrides });

export const IMAGES: readonly Image[] = [
  image(IMAGE, 'ubuntu-24.04'),
  image(IMAGE_2, 'rocky-9'),
  image('image-pending', 'pending', { status: 'pending' }),
  image('image-arm', 'arm', { architecture: 'aarch64' }),
  image('image-b-private', 'b-private', { organizationID: ORG_B }),
];

const FLAVORS: readonly Flavor[] = [
  {
    id: FLAVOR,
    name: 'small',
    architecture: 'x86_64',
    cpus: 1,
    memoryBytes: 2 ** 30,
    diskBytes: 10 * 2 ** 30,
    baremetal: false,
    pinnedOnly: false,
  },
  {
    id: FLAVOR_BAREMETAL,
    name: 'metal',
    architecture: 'x86_64',
    cpus: 64,
    memoryBytes: 2 ** 38,
    diskBytes: 1000 * 2 ** 30,
    baremetal: true,
    pinnedOnly: false,
  },
];

const VOLUME_CLASSES: readonly VolumeClass[] = [
  { id: VOLUME_CLASS, name: 'fast', media: 'nvme', encrypted: false, minCapacityGiB: 10, maxCapacityGiB: 100 },
];

class FakeImageQuery implements ImageQuery {
  constructor(
    private readonly images: readonly Image[],
    private readonly filters: readonly ((i: Image) => boolean)[] = [],
  ) {}
  #with(filter: (i: Image) => boolean): ImageQuery {
    return new FakeImageQuery(this.images, [...this.filters, filter]);
  }
  availableToOrganization(...orgs: string[]): ImageQuery {
    return this.#with((i) => i.organizationID === undefined || orgs.includes(i.organizationID));
  }
  ownedByOrganization(...orgs: string[]): ImageQuery {
    return this.#with((i) => i.organizationID !== undefined && orgs.includes(i.organizationID));
  }
  statusIn(...statuses: Image['status'][]): ImageQuery {
    return this.#with((i) => statuses.includes(i.status));
  }
  list(): Promise<{ epoch: number; items: Image[] }> {
    return Promise.resolve({ epoch: 1, items: this.images.filter((i) => this.filters.every((f) => f(i))) });
  }
}

/**
 * An inventory over these flavors and this (mutable) image list: a created image joins it pending, with the next
 * of `imageIds` as its id; a deleted one leaves it.
 */
export function inventoryOver(
  images: Image[],
  flavors: readonly Flavor[] = FLAVORS,
  imageIDs: () => string = () => `image-${String(images.length + 1)}`,
): RegionInventory {
  return {
    flavors: () => Promise.resolve(flavors),
    volumeClasses: () => Promise.resolve(VOLUME_CLASSES),
    queryImages: () => new FakeImageQuery(images),
    getImage: (_ctx, organizationID, imageID) => {
      const found = images.find(
        (i) => i.id === imageID && (i.organizationID === undefined || i.organizationID === organizationID),
      );
      return found === undefined ? Promise.reject(new ResourceNotFoundError('no image')) : Promise.resolve(found);
    },
    createImage: (_ctx, wanted) => {
      const created: Image = { ...wanted, id: imageIDs(), created: CREATED, modified: CREATED, status: 'pending' };
      images.push(created);
      return Promise.resolve(created);
    },
    deleteImage: (_ctx, imageID) => {
      const at = images.findIndex((i) => i.id === imageID);
      if (at < 0) return Promise.reject(new ResourceNotFoundError('no image'));
      images.splice(at, 1);
      return Promise.resolve();
    },
  };
}

const CREATED = '2026-01-01T00:00:00Z';

const fakeInventory: RegionInventory = inventoryOver([...IMAGES]);

export const allCapabilities: Capabilities = {
  controllers: { servers: true, loadBalancers: true, volumes: true },
  inventory: (regionID) =>
    regionID === REGION_ID ? Promise.resolve(fakeInventory) : Promise.reject(new ResourceNotFoundError('region')),
  externalNetworks: () => Promise.resolve([{ id: 'ext-1', name: 'public' }]),
};

export interface ApiFixture {
  readonly api: Api;
  readonly store: EmbeddedStore;
  readonly clock: ManualClock;
  /** Tokens: organization A (all projects), B, and A limited to project A. */
  readonly tokens: { readonly a: string; readonly b: string; readonly aProjectOnly: string };
  /** Every stored region object but Regions, as `kind/name`, to prove a refused request wrote nothing. */
  snapshot(): Promise<string[]>;
  close(): Promise<void>;
}

export async function apiFixture(
  capabilities: Capabilities = allCapabilities,
  overrides: Partial<
    Pick<
      ApiDeps,
      | 'imageSource'
      | 'service'
      | 'protectedResource'
      | 'requestTimeoutMs'
      | 'rateLimits'
      | 'organizationLimits'
      | 'organizationObjects'
      | 'log'
      | 'metrics'
    >
  > = {},
  /** The store's garbage collector, as `up` runs it (off unless asked for). */
  options: { readonly garbageCollection?: boolean } = {},
): Promise<ApiFixture> {
  const clock = new ManualClock();
  const store = await openRegionStore(clock, { garbageCollection: options.garbageCollection });
  await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  await store.create(regionType, {
    apiVersion: API_VERSION,
    kind: 'Region',
    metadata: { name: REGION_ID, namespace: NAMESPACE, labels: { 'unikorn-cloud.org/name': 'demo' } },
    spec: {
      provider: 'openstack',
      openstack: {
        endpoint: 'http://keystone.invalid/v3',
        serviceAccountSecret: { namespace: NAMESPACE, name: 'region-credentials' },
      },
    },
  });
  const keys = await generateDevKeyPair();
  let next = 0;
  const api = await buildApi({
    client: store,
    namespace: NAMESPACE,
    clock,
    newID: () => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`,
    authenticate: createAuthenticator({
      key: { publicJwk: keys.publicJwk, algorithm: DEV_ALGORITHM },
      issuer: DEV_ISSUER,
      audience: DEV_AUDIENCE,
      clock,
    }),
    capabilities,
    // No fetch from tests: every image URL serves a raw image unless a test says otherwise.
    imageSource: () => Promise.resolve(undefined),
    ...overrides,
  });
  const sign = (organizationIDs: string[], projectIDs?: string[]) =>
    signDevToken(
      keys,
      { subject: `user@${organizationIDs.join(',')}`, organizationIDs, ...(projectIDs ? { projectIDs } : {}) },
      clock,
    );
  const tokens = { a: await sign([ORG_A]), b: await sign([ORG_B]), aProjectOnly: await sign([ORG_A], [PROJECT_A]) };
  return {
    api,
    store,
    clock,
    tokens,
    snapshot: async () => {
      const names: string[] = [];
      for (const kind of regionKinds) {
        if (kind.type.kind === 'Region') continue;
        const { items } = await store.list(kind.type, { namespace: NAMESPACE });
        names.push(...items.map((o) => `${o.kind}/${o.metadata.name}@${o.metadata.resourceVersion ?? ''}`));
      }
      return names.sort();
    },
    close: async () => {
      await api.close();
      await store.close();
    },
  };
}

/** A request as the holder of `token`; the JSON body of the answer with its status. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the body's shape
export async function call<T = unknown>(
  f: ApiFixture,
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await f.api.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: response.statusCode, body: (response.body === '' ? undefined : response.json()) as T };
}

/** Creates a network as `token` in the organization and project; returns its id. */
export async function createNetwork(
  f: ApiFixture,
  token: string,
  organizationID = ORG_A,
  projectID = PROJECT_A,
  name = 'net',
): Promise<string> {
  const { status, body } = await call<{ metadata: { id: string } }>(f, token, 'POST', '/api/v2/networks', {
    metadata: { name },
    spec: {
      organizationId: organizationID,
      projectId: projectID,
      regionId: REGION_ID,
      prefix: '192.168.0.0/24',
      dnsNameservers: [],
    },
  });
  if (status !== 201) throw new Error(`network create answered ${String(status)}`);
  return body.metadata.id;
}

interface Violations {
  readonly errors: readonly { readonly field: string; readonly rule: string }[];
}

/** `field:rule` for each violation of a problem answer. */
export const violationsOf = (body: unknown): string[] =>
  ((body as Partial<Violations> | undefined)?.errors ?? []).map((e) => `${e.field}:${e.rule}`);

/**
 * Sends a request the API must refuse, as organization A: expects `status` with a problem document naming each of
 * `expected` (`field:rule`), and the store unchanged.
 */
export async function refusedUnchanged(
  f: ApiFixture,
  method: 'POST' | 'PUT',
  url: string,
  payload: unknown,
  status: number,
  expected: readonly string[],
): Promise<void> {
  const before = await f.snapshot();
  const response = await f.api.inject({
    method,
    url,
    headers: { authorization: `Bearer ${f.tokens.a}` },
    payload: payload as Record<string, unknown>,
  });
  assert.equal(response.statusCode, status, `${method} ${url}: ${response.body}`);
  assert.match(String(response.headers['content-type']), new RegExp(PROBLEM_CONTENT_TYPE.replace('+', '\\+')));
  const body = response.json<{ type: string }>();
  assert.ok(body.type.startsWith('https://'), 'a problem type');
  const named = violationsOf(body);
  for (const v of expected) assert.ok(named.includes(v), `${v} in ${JSON.stringify(named)}`);
  assert.deepEqual(await f.snapshot(), before, 'nothing stored');
}
