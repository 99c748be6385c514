import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { capturedLogger } from '../../runtime/testing/logger.ts';
import type { KubeObject } from '../../kube/object.ts';
import { labels, serverType } from '../apis/index.ts';
import type { Client } from '../../kube/client.ts';
import type { Capabilities, OrganizationCounts, OrganizationObjects } from './context.ts';
import { DEFAULT_ORGANIZATION_LIMITS, type LimitedKind, type OrganizationLimits } from './decide-limit.ts';
import { OrganizationLimiter } from './limits.ts';
import { PROBLEM_CONTENT_TYPE } from './problem.ts';
import { Repository } from './repository.ts';
import {
  allCapabilities,
  apiFixture,
  call,
  FLAVOR,
  IMAGE,
  NAMESPACE,
  ORG_A,
  ORG_B,
  PROJECT_A,
  PROJECT_B,
  REGION_ID,
  VOLUME_CLASS,
  type ApiFixture,
} from './testing/api.ts';

/** The fixture's capabilities, counting every time the API reaches for the cloud (the inventory, external networks). */
function countingCapabilities(): { capabilities: Capabilities; cloudCalls: () => number } {
  let calls = 0;
  const { inventory, externalNetworks } = allCapabilities;
  if (inventory === undefined || externalNetworks === undefined) throw new Error('the fixture has both');
  return {
    capabilities: {
      ...allCapabilities,
      inventory: (regionID, signal) => {
        calls++;
        return inventory(regionID, signal);
      },
      externalNetworks: (regionID, signal) => {
        calls++;
        return externalNetworks(regionID, signal);
      },
    },
    cloudCalls: () => calls,
  };
}

const limited = (table: Partial<Record<LimitedKind, number>>, organizations = {}): OrganizationLimits => ({
  defaults: { ...DEFAULT_ORGANIZATION_LIMITS.defaults, ...table },
  organizations,
});

interface World {
  readonly f: ApiFixture;
  readonly cloudCalls: () => number;
}

async function world(
  limits: OrganizationLimits,
  more: Pick<Parameters<typeof apiFixture>[1] & object, 'metrics' | 'log' | 'organizationObjects'> = {},
): Promise<World> {
  const { capabilities, cloudCalls } = countingCapabilities();
  const f = await apiFixture(capabilities, { organizationLimits: limits, ...more });
  return { f, cloudCalls };
}

const PROJECT = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}`;

async function created(f: ApiFixture, url: string, body: unknown, token = f.tokens.a): Promise<string> {
  const answer = await call<{ metadata: { id: string } }>(f, token, 'POST', url, body);
  assert.equal(answer.status, 201, `POST ${url}: ${JSON.stringify(answer.body)}`);
  return answer.body.metadata.id;
}

const v2Network = (i: number, organizationID = ORG_A, projectID = PROJECT_A) => ({
  metadata: { name: `net-${String(i)}` },
  spec: {
    organizationId: organizationID,
    projectId: projectID,
    regionId: REGION_ID,
    prefix: `192.168.${String(i)}.0/24`,
    dnsNameservers: [],
  },
});

const v1Identity = (i: number) => ({ metadata: { name: `id-${String(i)}` }, spec: { regionId: REGION_ID } });

/** A v1 identity and a v1 network in it: the path v1's children are made under, and the network's id. */
async function v1Base(f: ApiFixture): Promise<{ base: string; network: string }> {
  const identity = await created(f, `${PROJECT}/identities`, v1Identity(99));
  const base = `${PROJECT}/identities/${identity}`;
  const network = await created(f, `${base}/networks`, {
    metadata: { name: 'base' },
    spec: { prefix: '10.99.0.0/24', dnsNameservers: [] },
  });
  return { base, network };
}

interface Case {
  readonly route: string;
  readonly kind: LimitedKind;
  /** What the creates need, made first (and counted, if it is of the kind); the URL and each create's body. */
  readonly setup: (f: ApiFixture) => Promise<{ url: string; body: (i: number) => unknown }>;
}

const cases: Case[] = [
  {
    route: 'POST /api/v1/…/identities',
    kind: 'identities',
    setup: () => Promise.resolve({ url: `${PROJECT}/identities`, body: v1Identity }),
  },
  {
    route: 'POST /api/v2/networks (its identity)',
    kind: 'identities',
    setup: () => Promise.resolve({ url: '/api/v2/networks', body: (i) => v2Network(i) }),
  },
  {
    route: 'POST /api/v2/networks',
    kind: 'networks',
    setup: () => Promise.resolve({ url: '/api/v2/networks', body: (i) => v2Network(i) }),
  },
  {
    route: 'POST /api/v1/…/identities/{identity}/networks',
    kind: 'networks',
    setup: async (f) => {
      const identity = await created(f, `${PROJECT}/identities`, v1Identity(0));
      return {
        url: `${PROJECT}/identities/${identity}/networks`,
        body: (i) => ({
          metadata: { name: `v1-net-${String(i)}` },
          spec: { prefix: `10.${String(20 + i)}.0.0/24`, dnsNameservers: [] },
        }),
      };
    },
  },
  {
    route: 'POST /api/v2/securitygroups',
    kind: 'security-groups',
    setup: async (f) => {
      const networkID = await created(f, '/api/v2/networks', v2Network(0));
      return {
        url: '/api/v2/securitygroups',
        body: (i) => ({ metadata: { name: `sg-${String(i)}` }, spec: { networkId: networkID, rules: [] } }),
      };
    },
  },
  {
    route: 'POST /api/v1/…/identities/{identity}/securitygroups',
    kind: 'security-groups',
    setup: async (f) => {
      const { base } = await v1Base(f);
      return {
        url: `${base}/securitygroups`,
        body: (i) => ({ metadata: { name: `v1-sg-${String(i)}` }, spec: { rules: [] } }),
      };
    },
  },
  {
    route: 'POST /api/v2/servers',
    kind: 'servers',
    setup: async (f) => {
      const networkID = await created(f, '/api/v2/networks', v2Network(0));
      return {
        url: '/api/v2/servers',
        body: (i) => ({
          metadata: { name: `s-${String(i)}` },
          spec: { networkId: networkID, flavorId: FLAVOR, imageId: IMAGE },
        }),
      };
    },
  },
  {
    route: 'POST /api/v1/…/identities/{identity}/servers',
    kind: 'servers',
    setup: async (f) => {
      const { base, network } = await v1Base(f);
      return {
        url: `${base}/servers`,
        body: (i) => ({
          metadata: { name: `v1-s-${String(i)}` },
          spec: { flavorId: FLAVOR, imageId: IMAGE, networks: [{ id: network }] },
        }),
      };
    },
  },
  {
    route: 'POST /api/v2/volumes',
    kind: 'volumes',
    setup: async (f) => {
      const networkID = await created(f, '/api/v2/networks', v2Network(0));
      return {
        url: '/api/v2/volumes',
        body: (i) => ({
          metadata: { name: `vol-${String(i)}` },
          spec: { networkId: networkID, volumeClassId: VOLUME_CLASS, sizeGiB: 10 },
        }),
      };
    },
  },
  {
    route: 'POST /api/v2/loadbalancers',
    kind: 'load-balancers',
    setup: async (f) => {
      const networkID = await created(f, '/api/v2/networks', v2Network(0));
      return {
        url: '/api/v2/loadbalancers',
        body: (i) => ({
          metadata: { name: `lb-${String(i)}` },
          spec: {
            networkId: networkID,
            listeners: [{ name: 'http', protocol: 'tcp', port: 80, pool: { members: [] } }],
          },
        }),
      };
    },
  },
];

interface ProblemBody {
  status: number;
  detail: string;
  errors?: { rule: string }[];
}

describe('per-organization limits, every create route (docs/adr/0041-organization-limits.md)', () => {
  for (const c of cases) {
    it(`${c.route}: up to the ${c.kind} limit, then 403 naming it; nothing stored, the cloud not asked`, async () => {
      const LIMIT = 3;
      const { f, cloudCalls } = await world(limited({ [c.kind]: LIMIT }));
      try {
        const { url, body } = await c.setup(f);
        // What the setup made of the kind counts too (a v1 network's identity): fill up to the limit.
        let i = 1;
        for (;;) {
          const answer = await call<ProblemBody>(f, f.tokens.a, 'POST', url, body(i++));
          if (answer.status === 403) {
            assert.equal(answer.body.detail, `organization limit for ${c.kind.replace('-', ' ')} reached: 3 of 3`);
            break;
          }
          assert.equal(answer.status, 201, JSON.stringify(answer.body));
          assert.ok(i <= LIMIT + 1, 'the limit was let through');
        }
        const before = await f.snapshot();
        const calls = cloudCalls();
        const response = await f.api.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${f.tokens.a}` },
          payload: body(i) as Record<string, unknown>,
        });
        assert.equal(response.statusCode, 403);
        assert.match(String(response.headers['content-type']), new RegExp(PROBLEM_CONTENT_TYPE.replace('+', '\\+')));
        const problem = response.json<ProblemBody>();
        assert.equal(problem.status, 403);
        assert.equal(problem.detail, `organization limit for ${c.kind.replace('-', ' ')} reached: 3 of 3`);
        assert.deepEqual(
          problem.errors?.map((e) => e.rule),
          ['organizationLimit'],
        );
        assert.deepEqual(await f.snapshot(), before, 'nothing written to the store');
        assert.equal(cloudCalls(), calls, 'the cloud not asked');
      } finally {
        await f.close();
      }
    });
  }

  it('an identity made by v1 and one made for a v2 network count against one limit', async () => {
    const { f } = await world(limited({ identities: 2 }));
    try {
      await created(f, `${PROJECT}/identities`, v1Identity(1));
      await created(f, '/api/v2/networks', v2Network(1));
      const refused = await call<ProblemBody>(f, f.tokens.a, 'POST', `${PROJECT}/identities`, v1Identity(2));
      assert.equal(refused.status, 403);
      assert.equal(refused.body.detail, 'organization limit for identities reached: 2 of 2');
    } finally {
      await f.close();
    }
  });

  it("an organization's override replaces the default for it alone; the operator log says who met which", async () => {
    const captured = capturedLogger();
    const { f } = await world(limited({ networks: 2 }, { [ORG_A]: { networks: 1 } }), { log: captured.log });
    try {
      await created(f, '/api/v2/networks', v2Network(1));
      const a = await call<ProblemBody>(f, f.tokens.a, 'POST', '/api/v2/networks', v2Network(2));
      assert.equal(a.status, 403);
      assert.equal(a.body.detail, 'organization limit for networks reached: 1 of 1');
      await created(f, '/api/v2/networks', v2Network(1, ORG_B, PROJECT_B), f.tokens.b);
      await created(f, '/api/v2/networks', v2Network(2, ORG_B, PROJECT_B), f.tokens.b);
      const b = await call<ProblemBody>(f, f.tokens.b, 'POST', '/api/v2/networks', v2Network(3, ORG_B, PROJECT_B));
      assert.equal(b.status, 403);
      assert.equal(b.body.detail, 'organization limit for networks reached: 2 of 2');
      const reached = captured.records().filter((r) => r['msg'] === 'organization limit reached');
      assert.deepEqual(
        reached.map((r) => [r['organization'], r['kind'], r['usage'], r['limit'], r['level']]),
        [
          [ORG_A, 'networks', 1, 1, 'info'],
          [ORG_B, 'networks', 2, 2, 'info'],
        ],
      );
    } finally {
      await f.close();
    }
  });

  it('an object being deleted counts until it is gone', async () => {
    const { f } = await world(limited({ servers: 2 }));
    try {
      const networkID = await created(f, '/api/v2/networks', v2Network(0));
      const server = (i: number) => ({
        metadata: { name: `s-${String(i)}` },
        spec: { networkId: networkID, flavorId: FLAVOR, imageId: IMAGE },
      });
      const first = await created(f, '/api/v2/servers', server(1));
      await created(f, '/api/v2/servers', server(2));
      // Its controller's finalizer holds it while the cloud server goes.
      const held = await f.store.get(serverType, NAMESPACE, first);
      await f.store.update(serverType, { ...held, metadata: { ...held.metadata, finalizers: ['test/hold'] } });
      assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/servers/${first}`)).status, 202);
      assert.notEqual((await f.store.get(serverType, NAMESPACE, first)).metadata.deletionTimestamp, undefined);
      assert.equal((await call(f, f.tokens.a, 'POST', '/api/v2/servers', server(3))).status, 403);
      const deleting = await f.store.get(serverType, NAMESPACE, first);
      await f.store.update(serverType, { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } });
      await created(f, '/api/v2/servers', server(3));
    } finally {
      await f.close();
    }
  });

  it('N creates racing for the last slot: exactly one passes (servers, and v2 networks with their identities)', async () => {
    const { f } = await world(limited({ servers: 5, networks: 3 }));
    try {
      const networkID = await created(f, '/api/v2/networks', v2Network(0));
      const server = (i: number) => ({
        metadata: { name: `s-${String(i)}` },
        spec: { networkId: networkID, flavorId: FLAVOR, imageId: IMAGE },
      });
      for (let i = 1; i <= 4; i++) await created(f, '/api/v2/servers', server(i));
      const servers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call(f, f.tokens.a, 'POST', '/api/v2/servers', server(10 + i))),
      );
      assert.deepEqual(servers.map((r) => r.status).sort(), [201, 403, 403, 403, 403, 403, 403, 403]);
      assert.equal((await f.store.list(serverType, { namespace: NAMESPACE })).items.length, 5);

      await created(f, '/api/v2/networks', v2Network(1));
      const networks = await Promise.all(
        Array.from({ length: 6 }, (_, i) => call(f, f.tokens.a, 'POST', '/api/v2/networks', v2Network(10 + i))),
      );
      assert.deepEqual(networks.map((r) => r.status).sort(), [201, 403, 403, 403, 403, 403]);
    } finally {
      await f.close();
    }
  });

  it('counted from an informer plus its own unseen creates: 8 racing at limit−1 give one 201, the store never listed', async () => {
    // An informer that shows only what it was shown: frozen while the creates race, then caught up by hand.
    let shown: KubeObject[] = [];
    const organizationObjects: OrganizationObjects = (type, organization) =>
      type.plural === serverType.plural
        ? new Set(
            shown.filter((o) => o.metadata.labels?.[labels.organization] === organization).map((o) => o.metadata.name),
          )
        : undefined;
    const { f } = await world(limited({ servers: 5 }), { organizationObjects });
    try {
      const networkId = await created(f, '/api/v2/networks', v2Network(0));
      const server = (i: number) => ({
        metadata: { name: `s-${String(i)}` },
        spec: { networkId, flavorId: FLAVOR, imageId: IMAGE },
      });
      for (let i = 1; i <= 4; i++) await created(f, '/api/v2/servers', server(i));
      shown = (await f.store.list(serverType, { namespace: NAMESPACE })).items;
      const list = f.store.list.bind(f.store);
      let serverLists = 0;
      f.store.list = (type, options) => {
        if (type.plural === serverType.plural) serverLists++;
        return list(type, options);
      };
      const racing = await Promise.all(
        Array.from({ length: 8 }, (_, i) => call(f, f.tokens.a, 'POST', '/api/v2/servers', server(10 + i))),
      );
      assert.deepEqual(racing.map((r) => r.status).sort(), [201, 403, 403, 403, 403, 403, 403, 403]);
      assert.equal(serverLists, 0, 'no create listed the store');
      // The informer catches up: the create it now shows is counted once, not twice.
      shown = (await list(serverType, { namespace: NAMESPACE })).items;
      assert.equal(shown.length, 5);
      assert.equal((await call(f, f.tokens.a, 'POST', '/api/v2/servers', server(30))).status, 403);
      // One goes (its informer shows it gone): there is room for exactly one again.
      shown = shown.slice(1);
      assert.equal((await call(f, f.tokens.a, 'POST', '/api/v2/servers', server(31))).status, 201);
      assert.equal((await call(f, f.tokens.a, 'POST', '/api/v2/servers', server(32))).status, 403);
    } finally {
      await f.close();
    }
  });

  it('a count from the informer looks at none of its objects: at 990 of 1,000, a burst of 12 unseen creates gives exactly 10', async () => {
    // The informer's names, frozen while the creates race: a set that refuses to be walked and records each lookup,
    // so a count that passes over the organization's objects fails here (twice a create made a 10,000-server wave
    // quadratic; docs/adr/0048-reconcile-reads-from-informer-caches.md).
    const looked: string[] = [];
    class Unwalkable extends Set<string> {
      override has(name: string): boolean {
        looked.push(name);
        return super.has(name);
      }
      override [Symbol.iterator](): SetIterator<string> {
        throw new Error('the organization was walked');
      }
      override forEach(): void {
        throw new Error('the organization was walked');
      }
      override values(): SetIterator<string> {
        throw new Error('the organization was walked');
      }
      override keys(): SetIterator<string> {
        throw new Error('the organization was walked');
      }
      override entries(): SetIterator<[string, string]> {
        throw new Error('the organization was walked');
      }
    }
    const fleet = new Unwalkable();
    for (let i = 0; i < 990; i++) fleet.add(`shown-${String(i)}`);
    const organizationObjects: OrganizationObjects = (type, organization) =>
      type.plural === serverType.plural ? (organization === ORG_A ? fleet : new Set()) : undefined;
    const { f } = await world(limited({ servers: 1000 }), { organizationObjects });
    try {
      const networkId = await created(f, '/api/v2/networks', v2Network(0));
      const list = f.store.list.bind(f.store);
      let serverLists = 0;
      f.store.list = (type, options) => {
        if (type.plural === serverType.plural) serverLists++;
        return list(type, options);
      };
      const racing = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(f, f.tokens.a, 'POST', '/api/v2/servers', {
            metadata: { name: `s-${String(i)}` },
            spec: { networkId, flavorId: FLAVOR, imageId: IMAGE },
          }),
        ),
      );
      assert.deepEqual(
        racing.map((r) => r.status).sort(),
        [...Array.from({ length: 10 }, () => 201), 403, 403],
        JSON.stringify(racing.map((r) => r.body)),
      );
      assert.equal(serverLists, 0, 'no create listed the store');
      // Each lookup is of a create this process made, never of what the informer already showed.
      const made = new Set((await list(serverType, { namespace: NAMESPACE })).items.map((o) => o.metadata.name));
      assert.equal(made.size, 10);
      assert.ok(looked.length > 0, 'the unseen creates were looked up');
      assert.deepEqual(
        looked.filter((name) => !made.has(name)),
        [],
      );
    } finally {
      await f.close();
    }
  });

  /** An informer frozen at what it was last shown (names), for the servers of every organization. */
  function frozenInformer(): { shown: Set<string>; organizationObjects: OrganizationObjects } {
    const shown = new Set<string>();
    return {
      shown,
      organizationObjects: (type, organization) =>
        type.plural === serverType.plural ? (organization === ORG_A ? shown : new Set()) : undefined,
    };
  }

  it('with an informer, the organization’s admitted creates write at once, and still stop exactly at the limit', async () => {
    const { shown, organizationObjects } = frozenInformer();
    const { f } = await world(limited({ servers: 5 }), { organizationObjects });
    try {
      const networkId = await created(f, '/api/v2/networks', v2Network(0));
      const server = (i: number) => ({
        metadata: { name: `s-${String(i)}` },
        spec: { networkId, flavorId: FLAVOR, imageId: IMAGE },
      });
      for (let i = 1; i <= 2; i++) await created(f, '/api/v2/servers', server(i));
      for (const o of (await f.store.list(serverType, { namespace: NAMESPACE })).items) shown.add(o.metadata.name);
      // Each server write waits a while for others to join it (a store round trip), then goes ahead.
      const create = f.store.create.bind(f.store);
      let inFlight = 0;
      let most = 0;
      f.store.create = async (type, object, options) => {
        if (type.plural !== serverType.plural) return create(type, object, options);
        inFlight++;
        most = Math.max(most, inFlight);
        for (let i = 0; i < 50 && inFlight < 3; i++) await new Promise((resolve) => setImmediate(resolve));
        try {
          return await create(type, object, options);
        } finally {
          inFlight--;
        }
      };
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, i) => call(f, f.tokens.a, 'POST', '/api/v2/servers', server(10 + i))),
      );
      assert.deepEqual(racing.map((r) => r.status).sort(), [201, 201, 201, 403, 403, 403]);
      assert.equal(most, 3, 'the three admitted writes were in flight together (one at a time before)');
      assert.equal((await f.store.list(serverType, { namespace: NAMESPACE })).items.length, 5);
    } finally {
      await f.close();
    }
  });

  it('with an informer, a create it shows before the write answers counts once; a write that fails frees its slot', async () => {
    const { shown, organizationObjects } = frozenInformer();
    const { f } = await world(limited({ servers: 5 }), { organizationObjects });
    try {
      const networkId = await created(f, '/api/v2/networks', v2Network(0));
      const server = (i: number) => ({
        metadata: { name: `s-${String(i)}` },
        spec: { networkId, flavorId: FLAVOR, imageId: IMAGE },
      });
      for (let i = 1; i <= 2; i++) await created(f, '/api/v2/servers', server(i));
      for (const o of (await f.store.list(serverType, { namespace: NAMESPACE })).items) shown.add(o.metadata.name);
      // The watch event outruns the create's answer: the informer shows each server before its write returns.
      const create = f.store.create.bind(f.store);
      let failNext = false;
      f.store.create = async (type, object, options) => {
        if (type.plural !== serverType.plural) return create(type, object, options);
        if (failNext) {
          failNext = false;
          throw new Error('the store is unavailable');
        }
        const made = await create(type, object, options);
        shown.add(made.metadata.name);
        await new Promise((resolve) => setImmediate(resolve));
        return made;
      };
      const racing = await Promise.all(
        Array.from({ length: 5 }, (_, i) => call(f, f.tokens.a, 'POST', '/api/v2/servers', server(10 + i))),
      );
      assert.deepEqual(racing.map((r) => r.status).sort(), [201, 201, 201, 403, 403], 'each counted once');
      // One goes, as the informer shows it: one slot. Its first taker's write fails: the slot is free again.
      const gone = [...shown][0] ?? assert.fail('a server');
      await f.store.delete(serverType, NAMESPACE, gone);
      shown.delete(gone);
      failNext = true;
      assert.ok((await call(f, f.tokens.a, 'POST', '/api/v2/servers', server(20))).status >= 500);
      assert.equal((await call(f, f.tokens.a, 'POST', '/api/v2/servers', server(21))).status, 201);
      assert.equal((await call(f, f.tokens.a, 'POST', '/api/v2/servers', server(22))).status, 403);
    } finally {
      await f.close();
    }
  });

  it('where an informer indexes the kinds, a scrape counts from its index and never lists the store', async () => {
    const metrics = new Registry();
    let lists = 0;
    const refusing = {
      list: () => {
        lists++;
        return Promise.reject(new Error('the store was listed'));
      },
    } as unknown as Client;
    const counts: OrganizationCounts = (type) =>
      type.plural === serverType.plural
        ? new Map([
            [ORG_A, 3],
            [ORG_B, 1],
          ])
        : new Map();
    new OrganizationLimiter(limited({ servers: 7 }), new Repository(refusing, NAMESPACE), {
      metrics,
      counts,
      cached: () => new Set(),
    });
    const text = await metrics.metrics();
    assert.equal(lists, 0, 'no list of the store');
    assert.match(text, /^openregion_organization_usage\{organization="org-a",kind="servers"\} 3$/m);
    assert.match(text, /^openregion_organization_usage\{organization="org-b",kind="servers"\} 1$/m);
    assert.match(text, /^openregion_organization_limit\{organization="org-a",kind="servers"\} 7$/m);
  });

  it('usage and limits per organization and kind are gauges on the metrics registry', async () => {
    const metrics = new Registry();
    const { f } = await world(limited({ servers: 7 }, { [ORG_B]: { networks: 5 } }), { metrics });
    try {
      const networkID = await created(f, '/api/v2/networks', v2Network(0));
      for (let i = 1; i <= 2; i++) {
        await created(f, '/api/v2/servers', {
          metadata: { name: `s-${String(i)}` },
          spec: { networkId: networkID, flavorId: FLAVOR, imageId: IMAGE },
        });
      }
      const text = await metrics.metrics();
      assert.match(text, /^openregion_organization_usage\{organization="org-a",kind="servers"\} 2$/m);
      assert.match(text, /^openregion_organization_usage\{organization="org-a",kind="networks"\} 1$/m);
      assert.match(text, /^openregion_organization_usage\{organization="org-a",kind="identities"\} 1$/m);
      assert.match(text, /^openregion_organization_limit\{organization="org-a",kind="servers"\} 7$/m);
      assert.match(text, /^openregion_organization_limit\{organization="org-a",kind="identities"\} 100$/m);
      // An organization with an override is reported before it holds anything; others only once they do.
      assert.match(text, /^openregion_organization_limit\{organization="org-b",kind="networks"\} 5$/m);
      assert.doesNotMatch(text, /organization_usage\{organization="org-b"/);
      // What is deleted leaves the gauge at the next scrape.
      const servers = (await f.store.list(serverType, { namespace: NAMESPACE })).items;
      for (const s of servers) await f.store.delete(serverType, NAMESPACE, s.metadata.name);
      assert.doesNotMatch(await metrics.metrics(), /organization_usage\{organization="org-a",kind="servers"\}/);
    } finally {
      await f.close();
    }
    // A store that cannot be read (closed here) leaves the last values: the scrape still answers.
    assert.match(await metrics.metrics(), /^openregion_organization_usage\{organization="org-a",kind="networks"\} 1$/m);
  });
});
