import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ErrorCode, TruncatedListError } from './errors.ts';
import { listAll, paginate, rebase, type PageStyle } from './pagination.ts';
import type { RecordedRequest } from './testing/fake-cloud.ts';
import { startHarness, type Harness } from './testing/harness.ts';

/** Tests of loop guards fail by timing out rather than hang the run when a guard breaks. */
const LOOP_TIMEOUT_MS = 5_000;

interface Item {
  readonly id: string;
}

const items = (n: number, prefix = 'i'): Item[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${String(i)}` }));
const ids = (list: readonly Item[]): string[] => list.map((i) => i.id);

/** The page after `marker` (all from the start without one), `limit` long (2 when the request sends none). */
function pageAfter(all: readonly Item[], req: RecordedRequest): { page: Item[]; rest: boolean; limit: number } {
  const marker = req.query.get('marker');
  const limit = Number(req.query.get('limit') ?? '2');
  const start = marker === null ? 0 : all.findIndex((i) => i.id === marker) + 1;
  const page = all.slice(start, start + limit);
  return { page, rest: start + limit < all.length, limit };
}

describe('pagination', () => {
  let h: Harness;
  let sent: number;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());
  beforeEach(() => {
    sent = h.cloud.requests.length;
  });
  /** The requests this test made, in order. */
  const made = (): RecordedRequest[] => h.cloud.requests.slice(sent);

  describe("'links' style", () => {
    it('follows Nova’s servers_links from another host across three pages', async () => {
      const all = items(5, 's');
      h.cloud.on('GET', '/compute/v2.1/servers', (req) => {
        const { page, rest, limit } = pageAfter(all, req);
        const last = page.at(-1)?.id ?? '';
        return {
          body: {
            servers: page,
            // Nova builds links from its own idea of its URL: the internal host, no proxy prefix.
            ...(rest
              ? {
                  servers_links: [
                    {
                      rel: 'next',
                      href: `http://nova-api.internal:8774/v2.1/servers?limit=${String(limit)}&marker=${last}`,
                    },
                  ],
                }
              : {}),
          },
        };
      });
      const got = await listAll<Item>(
        h.session.client('compute'),
        { method: 'GET', path: '/servers', query: { name: 'web' } },
        { kind: 'links', items: 'servers' },
      );
      assert.deepEqual(ids(got), ids(all));
      const reqs = made();
      assert.deepEqual(
        reqs.map((r) => r.path),
        ['/compute/v2.1/servers', '/compute/v2.1/servers', '/compute/v2.1/servers'],
      );
      assert.deepEqual(
        reqs.map((r) => r.query.get('marker')),
        [null, 's1', 's3'],
      );
      assert.equal(reqs[0]?.query.get('name'), 'web');
    });

    it('follows Neutron’s networks_links and sends pageSize as limit', async () => {
      const all = items(7, 'n');
      h.cloud.on('GET', '/network/v2.0/networks', (req) => {
        const { page, rest, limit } = pageAfter(all, req);
        const last = page.at(-1)?.id ?? '';
        const links = [{ rel: 'previous', href: 'https://neutron.example/v2.0/networks?page_reverse=True' }];
        if (rest) {
          links.push({
            rel: 'next',
            href: `https://neutron.example/v2.0/networks?limit=${String(limit)}&marker=${last}`,
          });
        }
        return { body: { networks: page, networks_links: links } };
      });
      const got = await listAll<Item>(
        h.session.client('network'),
        { method: 'GET', path: '/networks' },
        { kind: 'links', items: 'networks' },
        { pageSize: 3 },
      );
      assert.deepEqual(ids(got), ids(all));
      assert.deepEqual(
        made().map((r) => [r.path, r.query.get('limit'), r.query.get('marker')]),
        [
          ['/network/v2.0/networks', '3', null],
          ['/network/v2.0/networks', '3', 'n2'],
          ['/network/v2.0/networks', '3', 'n5'],
        ],
      );
    });
  });

  describe("'next' style", () => {
    it('follows Glance’s relative next path below the proxy prefix across three pages', async () => {
      const all = items(6, 'img');
      h.cloud.on('GET', '/image/v2/images', (req) => {
        const { page, rest, limit } = pageAfter(all, req);
        const last = page.at(-1)?.id ?? '';
        return {
          body: {
            images: page,
            first: '/v2/images',
            ...(rest ? { next: `/v2/images?limit=${String(limit)}&marker=${last}` } : {}),
          },
        };
      });
      const got = await listAll<Item>(
        h.session.client('image'),
        { method: 'GET', path: '/images' },
        { kind: 'next', items: 'images' },
      );
      assert.deepEqual(ids(got), ids(all));
      assert.deepEqual(
        made().map((r) => [r.path, r.query.get('marker')]),
        [
          ['/image/v2/images', null],
          ['/image/v2/images', 'img1'],
          ['/image/v2/images', 'img3'],
        ],
      );
    });

    it('follows Ironic’s absolute next URL across three pages', async () => {
      const all = items(5, 'node');
      h.cloud.on('GET', '/baremetal/v1/nodes', (req) => {
        const { page, rest, limit } = pageAfter(all, req);
        const last = page.at(-1)?.id ?? '';
        return {
          body: {
            nodes: page,
            ...(rest ? { next: `http://ironic.internal:6385/v1/nodes?limit=${String(limit)}&marker=${last}` } : {}),
          },
        };
      });
      const got = await listAll<Item>(
        h.session.client('baremetal'),
        { method: 'GET', path: '/nodes' },
        { kind: 'next', items: 'nodes' },
      );
      assert.deepEqual(ids(got), ids(all));
      assert.deepEqual(
        made().map((r) => [r.path, r.query.get('marker')]),
        [
          ['/baremetal/v1/nodes', null],
          ['/baremetal/v1/nodes', 'node1'],
          ['/baremetal/v1/nodes', 'node3'],
        ],
      );
    });
  });

  describe("'keystone' style", () => {
    it('follows links.next across three pages', async () => {
      const all = items(5, 'p');
      h.cloud.on('GET', '/identity/v3/projects', (req) => {
        const { page, rest, limit } = pageAfter(all, req);
        const last = page.at(-1)?.id ?? '';
        return {
          body: {
            projects: page,
            links: {
              self: 'https://keystone.example/v3/projects',
              previous: null,
              next: rest ? `https://keystone.example/v3/projects?limit=${String(limit)}&marker=${last}` : null,
            },
          },
        };
      });
      const got = await listAll<Item>(
        h.session.client('identity'),
        { method: 'GET', path: '/projects' },
        { kind: 'keystone', items: 'projects' },
      );
      assert.deepEqual(ids(got), ids(all));
      assert.deepEqual(
        made().map((r) => [r.path, r.query.get('marker')]),
        [
          ['/identity/v3/projects', null],
          ['/identity/v3/projects', 'p1'],
          ['/identity/v3/projects', 'p3'],
        ],
      );
    });

    it('throws TruncatedListError for a list cut short by list_limit', async () => {
      h.cloud.on('GET', '/identity/v3/users', {
        body: { users: items(3, 'u'), links: { self: 'x', previous: null, next: null }, truncated: true },
      });
      const list = listAll<Item>(
        h.session.client('identity'),
        { method: 'GET', path: '/users' },
        { kind: 'keystone', items: 'users' },
      );
      await assert.rejects(list, (e: unknown) => {
        assert.ok(e instanceof TruncatedListError);
        assert.equal(e.code, ErrorCode.Truncated);
        assert.equal(e.code, 'OS_TRUNCATED');
        assert.equal(e.serviceType, 'identity');
        assert.equal(e.urlTemplate, '/users');
        assert.match(e.message, /identity\/users/);
        assert.match(e.message, /narrow the filter/);
        assert.match(e.message, /list_limit/);
        return true;
      });
    });

    it('yields nothing from a truncated page before failing', async () => {
      h.cloud.on('GET', '/identity/v3/users', {
        body: { users: items(3, 'u'), links: { next: null }, truncated: true },
      });
      const seen: string[] = [];
      await assert.rejects(async () => {
        for await (const u of paginate<Item>(
          h.session.client('identity'),
          { method: 'GET', path: '/users' },
          { kind: 'keystone', items: 'users' },
        )) {
          seen.push(u.id);
        }
      }, TruncatedListError);
      assert.deepEqual(seen, []);
    });

    it('does not fail when the truncated page holds all the caller asked for', async () => {
      h.cloud.on('GET', '/identity/v3/users', {
        body: { users: items(3, 'u'), links: { next: null }, truncated: true },
      });
      const got = await listAll<Item>(
        h.session.client('identity'),
        { method: 'GET', path: '/users' },
        { kind: 'keystone', items: 'users' },
        { limit: 2 },
      );
      assert.deepEqual(ids(got), ['u0', 'u1']);
    });

    it('accepts an explicit "truncated": false', async () => {
      h.cloud.on('GET', '/identity/v3/users', {
        body: { users: items(2, 'u'), links: { next: null }, truncated: false },
      });
      const got = await listAll<Item>(
        h.session.client('identity'),
        { method: 'GET', path: '/users' },
        { kind: 'keystone', items: 'users' },
      );
      assert.deepEqual(ids(got), ['u0', 'u1']);
    });
  });

  describe("'single' style", () => {
    it('reads one page and follows no links', async () => {
      h.cloud.on('GET', '/placement/resource_providers', {
        body: {
          resource_providers: items(3, 'rp'),
          // Placement sends none, but a style with no links must not follow one if it appears.
          next: '/resource_providers?marker=rp2',
          links: { next: '/resource_providers?marker=rp2' },
        },
      });
      const got = await listAll<Item>(
        h.session.client('placement'),
        { method: 'GET', path: '/resource_providers' },
        { kind: 'single', items: 'resource_providers' },
      );
      assert.deepEqual(ids(got), ['rp0', 'rp1', 'rp2']);
      assert.equal(made().length, 1);
    });
  });

  describe("'offset' style", () => {
    const style: PageStyle = { kind: 'offset', items: 'server_groups', pageSize: 2 };
    const serveByOffset = (all: readonly Item[]) => {
      h.cloud.on('GET', '/compute/v2.1/os-server-groups', (req) => {
        const offset = Number(req.query.get('offset') ?? '0');
        const limit = Number(req.query.get('limit') ?? '1000');
        return { body: { server_groups: all.slice(offset, offset + limit) } };
      });
    };

    it('requests limit and offset until a short page, across three pages', async () => {
      const all = items(5, 'g');
      serveByOffset(all);
      const got = await listAll<Item>(
        h.session.client('compute'),
        { method: 'GET', path: '/os-server-groups', query: { all_projects: 'True' } },
        style,
      );
      assert.deepEqual(ids(got), ids(all));
      assert.deepEqual(
        made().map((r) => [r.query.get('limit'), r.query.get('offset'), r.query.get('all_projects')]),
        [
          ['2', '0', 'True'],
          ['2', '2', 'True'],
          ['2', '4', 'True'],
        ],
      );
    });

    it('ends at an empty page when the list is a whole number of pages', { timeout: LOOP_TIMEOUT_MS }, async () => {
      const all = items(4, 'g');
      serveByOffset(all);
      const got = await listAll<Item>(h.session.client('compute'), { method: 'GET', path: '/os-server-groups' }, style);
      assert.deepEqual(ids(got), ids(all));
      assert.deepEqual(
        made().map((r) => r.query.get('offset')),
        ['0', '2', '4'],
      );
    });

    it('takes a smaller pageSize from the caller but never a larger one', async () => {
      const all = items(3, 'g');
      serveByOffset(all);
      const client = h.session.client('compute');
      const spec = { method: 'GET', path: '/os-server-groups' } as const;
      assert.deepEqual(ids(await listAll<Item>(client, spec, style, { pageSize: 1 })), ids(all));
      assert.deepEqual(
        made().map((r) => [r.query.get('limit'), r.query.get('offset')]),
        [
          ['1', '0'],
          ['1', '1'],
          ['1', '2'],
          ['1', '3'],
        ],
      );
      sent = h.cloud.requests.length;
      // Nova caps a page at its max_limit; a larger request would make the first capped page look like the last.
      assert.deepEqual(ids(await listAll<Item>(client, spec, style, { pageSize: 50 })), ids(all));
      assert.deepEqual(
        made().map((r) => r.query.get('limit')),
        ['2', '2'],
      );
    });

    it('asks for at least one item a page', { timeout: LOOP_TIMEOUT_MS }, async () => {
      serveByOffset(items(2, 'g'));
      const got = await listAll<Item>(
        h.session.client('compute'),
        { method: 'GET', path: '/os-server-groups' },
        style,
        { pageSize: 0 },
      );
      assert.deepEqual(ids(got), ['g0', 'g1']);
      assert.deepEqual(
        made().map((r) => r.query.get('limit')),
        ['1', '1', '1'],
      );
    });

    it('stops when a service ignores limit and sends more than a page', { timeout: LOOP_TIMEOUT_MS }, async () => {
      h.cloud.on('GET', '/compute/v2.1/os-server-groups', { body: { server_groups: items(5, 'g') } });
      const got = await listAll<Item>(h.session.client('compute'), { method: 'GET', path: '/os-server-groups' }, style);
      assert.deepEqual(ids(got), ids(items(5, 'g')));
      assert.equal(made().length, 1);
    });

    it('stops at `limit` without fetching further pages', async () => {
      serveByOffset(items(9, 'g'));
      const got = await listAll<Item>(
        h.session.client('compute'),
        { method: 'GET', path: '/os-server-groups' },
        style,
        { limit: 3 },
      );
      assert.deepEqual(ids(got), ['g0', 'g1', 'g2']);
      assert.equal(made().length, 2);
    });
  });

  describe('limits and ends', () => {
    const serveLinks = (all: readonly Item[]) => {
      h.cloud.on('GET', '/compute/v2.1/servers', (req) => {
        const { page, rest, limit } = pageAfter(all, req);
        const last = page.at(-1)?.id ?? '';
        const href = `http://nova/v2.1/servers?limit=${String(limit)}&marker=${last}`;
        return { body: { servers: page, ...(rest ? { servers_links: [{ rel: 'next', href }] } : {}) } };
      });
    };
    const listServers = (options?: { limit?: number; pageSize?: number }) =>
      listAll<Item>(
        h.session.client('compute'),
        { method: 'GET', path: '/servers' },
        { kind: 'links', items: 'servers' },
        options,
      );

    it('stops at `limit` in the middle of a page without fetching the next', async () => {
      serveLinks(items(10, 's'));
      assert.deepEqual(ids(await listServers({ limit: 3 })), ['s0', 's1', 's2']);
      assert.equal(made().length, 2);
    });

    it('stops at `limit` at the end of a page without fetching the next', async () => {
      serveLinks(items(10, 's'));
      assert.deepEqual(ids(await listServers({ limit: 4 })), ['s0', 's1', 's2', 's3']);
      assert.equal(made().length, 2);
    });

    it('sends nothing for a limit of 0', async () => {
      serveLinks(items(10, 's'));
      assert.deepEqual(await listServers({ limit: 0 }), []);
      assert.equal(made().length, 0);
    });

    it('sends pageSize as the limit query parameter, and none without it', async () => {
      serveLinks(items(3, 's'));
      await listServers({ pageSize: 25 });
      assert.equal(made()[0]?.query.get('limit'), '25');
      sent = h.cloud.requests.length;
      await listServers();
      assert.equal(made()[0]?.query.has('limit'), false);
    });

    it('ends the list at an empty page even when it carries a next link', { timeout: LOOP_TIMEOUT_MS }, async () => {
      h.cloud.on('GET', '/compute/v2.1/servers', (req) => ({
        body: {
          servers: req.query.has('marker') ? [] : items(2, 's'),
          servers_links: [{ rel: 'next', href: `http://nova/v2.1/servers?marker=m${String(h.cloud.requests.length)}` }],
        },
      }));
      assert.deepEqual(ids(await listServers()), ['s0', 's1']);
      assert.equal(made().length, 2);
    });

    it('does not loop on a service that returns the same next link forever', { timeout: LOOP_TIMEOUT_MS }, async () => {
      h.cloud.on('GET', '/compute/v2.1/servers', {
        body: { servers: items(2, 's'), servers_links: [{ rel: 'next', href: 'http://nova/v2.1/servers?marker=s1' }] },
      });
      const got = await listServers();
      assert.equal(got.length, 4);
      assert.equal(made().length, 2);
    });

    it('does not loop on next links that cycle', { timeout: LOOP_TIMEOUT_MS }, async () => {
      h.cloud.on('GET', '/compute/v2.1/servers', (req) => {
        const to = req.query.get('marker') === 'a' ? 'b' : 'a';
        return {
          body: {
            servers: items(1, 's'),
            servers_links: [{ rel: 'next', href: `http://nova/v2.1/servers?marker=${to}` }],
          },
        };
      });
      await listServers();
      assert.deepEqual(
        made().map((r) => r.query.get('marker')),
        [null, 'a', 'b'],
      );
    });
  });
});

describe('rebase', () => {
  it('keeps our host when the link names another', () => {
    assert.equal(
      rebase('https://cloud.example:8774/v2.1', 'http://nova-api.internal:8774/v2.1/servers?limit=2&marker=a'),
      'https://cloud.example:8774/v2.1/servers?limit=2&marker=a',
    );
  });

  it('keeps https when the service behind a TLS proxy links with http', () => {
    assert.equal(
      rebase('https://cloud.example/v2.0', 'http://cloud.example/v2.0/networks?marker=n1'),
      'https://cloud.example/v2.0/networks?marker=n1',
    );
  });

  it('puts back the proxy’s path prefix the service does not know about', () => {
    assert.equal(
      rebase('https://cloud.example/compute/v2.1', 'http://nova:8774/v2.1/servers?marker=s1'),
      'https://cloud.example/compute/v2.1/servers?marker=s1',
    );
    assert.equal(
      rebase('https://cloud.example/openstack/volume/v3/p-1', 'http://cinder:8776/v3/p-1/volumes/detail?marker=v'),
      'https://cloud.example/openstack/volume/v3/p-1/volumes/detail?marker=v',
    );
  });

  it('does not double a prefix the link already has', () => {
    assert.equal(
      rebase('https://cloud.example/compute/v2.1', 'https://cloud.example/compute/v2.1/servers?marker=s1'),
      'https://cloud.example/compute/v2.1/servers?marker=s1',
    );
  });

  it('resolves a relative link against the endpoint', () => {
    assert.equal(
      rebase('https://cloud.example:9292/image/v2', '/v2/images?marker=i1'),
      'https://cloud.example:9292/image/v2/images?marker=i1',
    );
    assert.equal(
      rebase('https://glance.example/v2', '/v2/images?marker=i1'),
      'https://glance.example/v2/images?marker=i1',
    );
  });
});
