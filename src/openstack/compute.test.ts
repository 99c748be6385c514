import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  attachVolume,
  createKeypair,
  createRemoteConsole,
  createServer,
  createServerGroup,
  createServerImage,
  deleteKeypair,
  deleteServer,
  deleteServerGroup,
  detachVolume,
  escapeRegExp,
  findServerByName,
  findServerGroupByName,
  getConsoleOutput,
  getFlavor,
  getFlavorExtraSpecs,
  getKeypair,
  getQuotaSet,
  getServer,
  getServerGroup,
  getVolumeAttachment,
  listFlavors,
  listKeypairs,
  listServerGroups,
  listServers,
  listVolumeAttachments,
  PowerState,
  rebootServer,
  rebuildServer,
  startServer,
  stopServer,
  UNLIMITED,
  unlimitedComputeQuota,
  updateQuotaSet,
  type ComputeClient,
  type Server,
  type ServerCreate,
} from './compute.ts';
import { ConflictError, ConsistencyError, NotFoundError } from './errors.ts';
import { clientHarness, type Harness } from './testing/harness.ts';

const base = '/compute/v2.1';

/** A server as Nova 2.90 shows it to a project admin, in ERROR with a fault. */
function novaServer(id: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name,
    status: 'ERROR',
    tenant_id: 'p-1',
    user_id: 'u-1',
    'OS-EXT-STS:task_state': null,
    'OS-EXT-STS:vm_state': 'error',
    'OS-EXT-STS:power_state': 0,
    'OS-SRV-USG:launched_at': null,
    'OS-SRV-USG:terminated_at': null,
    'OS-EXT-SRV-ATTR:hypervisor_hostname': 'node-7',
    'OS-EXT-SRV-ATTR:hostname': name,
    'OS-EXT-AZ:availability_zone': 'nova',
    image: { id: 'img-1', links: [{ rel: 'bookmark', href: 'http://nova/images/img-1' }] },
    flavor: {
      original_name: 'g.small',
      vcpus: 2,
      ram: 4096,
      disk: 20,
      ephemeral: 0,
      swap: 0,
      extra_specs: { 'resources:CUSTOM_GOLD': '1' },
    },
    addresses: {
      'network-n1': [
        { addr: '10.0.0.5', version: 4, 'OS-EXT-IPS:type': 'fixed', 'OS-EXT-IPS-MAC:mac_addr': 'fa:16:3e:00:00:01' },
      ],
    },
    metadata: { serverID: 's-1', 'region:server_id': 's-1' },
    key_name: null,
    created: '2025-01-01T00:00:00Z',
    updated: '2025-01-01T00:01:00Z',
    tags: ['t1'],
    fault: { code: 500, message: 'No valid host was found.', created: '2025-01-01T00:00:30Z' },
    locked: false,
    locked_reason: null,
    host_status: 'UP',
    description: null,
    security_groups: [{ name: 'default' }],
    'os-extended-volumes:volumes_attached': [{ id: 'vol-1', delete_on_termination: false }],
    ...extra,
  };
}

describe('compute', () => {
  let h: Harness;
  let nova: ComputeClient;
  before(async () => ({ h, client: nova } = await clientHarness('compute')));
  after(() => h.close());

  describe('servers', () => {
    it('creates a server with its networks, user data, metadata and scheduler hints at microversion 2.90', async () => {
      h.cloud.on('POST', `${base}/servers`, {
        status: 202,
        body: { server: { id: 's-new', links: [], adminPass: 'x', 'OS-DCF:diskConfig': 'MANUAL' } },
      });
      const sent: ServerCreate = {
        name: 'web-1',
        flavorRef: 'f-1',
        imageRef: 'img-1',
        networks: [{ port: 'port-1' }],
        key_name: 'unikorn-openstack-provider',
        user_data: new TextEncoder().encode('#cloud-config\n'),
        metadata: { serverID: 's-1' },
        security_groups: [{ name: 'sg-1' }],
        availability_zone: 'nova',
        block_device_mapping_v2: [{ source_type: 'volume', destination_type: 'volume', uuid: 'vol-9', boot_index: 1 }],
        hostname: 'web-1',
        hypervisor_hostname: 'node-7',
      };
      const created = await createServer(nova, sent, { group: 'sg-group-1' });
      assert.equal(created.id, 's-new');
      assert.equal(created['OS-DCF:diskConfig'], 'MANUAL');
      const req = h.cloud.last('POST', `${base}/servers`);
      assert.equal(req.headers['openstack-api-version'], 'compute 2.90');
      assert.equal(req.headers['x-openstack-nova-api-version'], '2.90');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.deepEqual(req.json(), {
        server: { ...sent, user_data: Buffer.from('#cloud-config\n').toString('base64') },
        'os:scheduler_hints': { group: 'sg-group-1' },
      });
    });

    it('omits key_name, user_data and scheduler hints when not given', async () => {
      h.cloud.on('POST', `${base}/servers`, { status: 202, body: { server: { id: 's-2', links: [] } } });
      await createServer(nova, { name: 'bare', flavorRef: 'f-1', networks: 'none' });
      assert.deepEqual(h.cloud.last('POST', `${base}/servers`).json(), {
        server: { name: 'bare', flavorRef: 'f-1', networks: 'none' },
      });
    });

    it('reads a server with its typed fault, embedded flavor and addresses', async () => {
      h.cloud.on('GET', `${base}/servers/:id`, (_req, p) => ({ body: { server: novaServer(p.id ?? '', 'web-1') } }));
      const server = await getServer(nova, 's-1');
      const req = h.cloud.last();
      assert.equal(req.method, 'GET');
      assert.equal(req.path, `${base}/servers/s-1`);
      assert.equal(server.id, 's-1');
      assert.equal(server.status, 'ERROR');
      assert.equal(server['OS-EXT-STS:task_state'], null);
      assert.equal(server['OS-EXT-STS:power_state'], PowerState.NoState);
      assert.equal(server['OS-EXT-SRV-ATTR:hypervisor_hostname'], 'node-7');
      assert.deepEqual(server.fault, {
        code: 500,
        message: 'No valid host was found.',
        created: '2025-01-01T00:00:30Z',
      });
      assert.equal(server.flavor.original_name, 'g.small');
      assert.equal(server.flavor.extra_specs?.['resources:CUSTOM_GOLD'], '1');
      assert.equal(server.addresses['network-n1']?.[0]?.['OS-EXT-IPS-MAC:mac_addr'], 'fa:16:3e:00:00:01');
      assert.deepEqual(server['os-extended-volumes:volumes_attached'], [{ id: 'vol-1', delete_on_termination: false }]);
      assert.notEqual(server.image, '');
      assert.equal(server.image === '' ? undefined : server.image.id, 'img-1');
    });

    it('encodes a server id into its path', async () => {
      h.cloud.on('GET', `${base}/servers/:id`, (_req, p) => ({ body: { server: novaServer(p.id ?? '', 'x') } }));
      const server = await getServer(nova, 'a/b');
      assert.equal(h.cloud.last().path, `${base}/servers/a%2Fb`);
      assert.equal(server.id, 'a/b');
    });

    it('reads a boot-from-volume server whose image is ""', async () => {
      h.cloud.on('GET', `${base}/servers/:id`, {
        body: { server: novaServer('s-bfv', 'bfv', { image: '', status: 'ACTIVE', fault: undefined }) },
      });
      const server = await getServer(nova, 's-bfv');
      assert.equal(server.image, '');
      assert.equal(server.fault, undefined);
    });

    it('surfaces a missing server as NotFoundError naming the path template', async () => {
      h.cloud.on('GET', `${base}/servers/:id`, {
        status: 404,
        body: { itemNotFound: { code: 404, message: 'Instance s-x could not be found.' } },
      });
      await assert.rejects(getServer(nova, 's-x'), (e: unknown) => {
        assert.ok(e instanceof NotFoundError);
        assert.equal(e.urlTemplate, '/servers/{server_id}');
        return true;
      });
    });

    it('lists servers in detail with filters, following servers_links across pages', async () => {
      h.cloud.on('GET', `${base}/servers/detail`, (req) => {
        if (req.query.get('marker') === null) {
          return {
            body: {
              servers: [novaServer('s-1', 'a'), novaServer('s-2', 'b')],
              // Nova builds links from its own idea of its URL: another host, no proxy prefix.
              servers_links: [
                { rel: 'next', href: 'http://nova.internal:8774/v2.1/servers/detail?limit=2&marker=s-2' },
              ],
            },
          };
        }
        return { body: { servers: [novaServer('s-3', 'c')] } };
      });
      const before = h.cloud.requests.length;
      const servers = await listServers(
        nova,
        { name: '^a', status: 'ACTIVE', tags: ['x', 'y'], changesSince: '2025-01-01T00:00:00Z' },
        { pageSize: 2 },
      );
      assert.deepEqual(
        servers.map((s) => s.id),
        ['s-1', 's-2', 's-3'],
      );
      const pages = h.cloud.requests.slice(before);
      assert.equal(pages.length, 2);
      const first = pages[0];
      const second = pages[1];
      assert.ok(first && second);
      assert.equal(first.path, `${base}/servers/detail`);
      assert.equal(first.query.get('name'), '^a');
      assert.equal(first.query.get('status'), 'ACTIVE');
      assert.equal(first.query.get('tags'), 'x,y');
      assert.equal(first.query.get('changes-since'), '2025-01-01T00:00:00Z');
      assert.equal(first.query.get('limit'), '2');
      assert.equal(first.query.has('all_tenants'), false);
      assert.equal(second.path, `${base}/servers/detail`);
      assert.equal(second.query.get('marker'), 's-2');
      assert.equal(second.headers['openstack-api-version'], 'compute 2.90');
    });

    it('sends all_tenants only when asked for', async () => {
      h.cloud.on('GET', `${base}/servers/detail`, { body: { servers: [] } });
      await listServers(nova, { allTenants: true, projectID: 'p-9' });
      const req = h.cloud.last('GET', `${base}/servers/detail`);
      assert.equal(req.query.get('all_tenants'), 'True');
      assert.equal(req.query.get('project_id'), 'p-9');
      await listServers(nova, { allTenants: false });
      assert.equal(h.cloud.last('GET', `${base}/servers/detail`).query.has('all_tenants'), false);
    });

    it('finds a server by exact name with an escaped, anchored regular expression', async () => {
      h.cloud.on('GET', `${base}/servers/detail`, {
        // What a regular expression (and MySQL's case-insensitive match) lets through besides the exact name.
        body: {
          servers: [novaServer('s-1', 'web.1(a)'), novaServer('s-2', 'WEB.1(A)'), novaServer('s-3', 'web.1(a)x')],
        },
      });
      const found = await findServerByName(nova, 'web.1(a)');
      assert.equal(found?.id, 's-1');
      const req = h.cloud.last('GET', `${base}/servers/detail`);
      assert.equal(req.query.get('name'), '^web\\.1\\(a\\)$');
      assert.equal(req.query.has('all_tenants'), false);
    });

    it('finds no server when none is named exactly', async () => {
      h.cloud.on('GET', `${base}/servers/detail`, { body: { servers: [novaServer('s-3', 'web-10')] } });
      assert.equal(await findServerByName(nova, 'web-1'), undefined);
    });

    it('throws ConsistencyError when two servers share the name', async () => {
      h.cloud.on('GET', `${base}/servers/detail`, {
        body: { servers: [novaServer('s-1', 'web-1'), novaServer('s-2', 'web-1')] },
      });
      await assert.rejects(findServerByName(nova, 'web-1'), (e: unknown) => {
        assert.ok(e instanceof ConsistencyError);
        assert.deepEqual(e.ids, ['s-1', 's-2']);
        return true;
      });
    });

    it('deletes a server', async () => {
      h.cloud.on('DELETE', `${base}/servers/:id`, { status: 204 });
      await deleteServer(nova, 's-1');
      const req = h.cloud.last();
      assert.equal(req.method, 'DELETE');
      assert.equal(req.path, `${base}/servers/s-1`);
      assert.equal(req.body, '');
    });
  });

  describe('server actions', () => {
    const actionPath = `${base}/servers/s-1/action`;

    it('rebuilds with the image (and optional name and metadata) only, never key_name or user_data', async () => {
      h.cloud.on('POST', `${base}/servers/:id/action`, { status: 202, body: { server: novaServer('s-1', 'x') } });
      await rebuildServer(nova, 's-1', { imageRef: 'img-2' });
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), { rebuild: { imageRef: 'img-2' } });

      const sneaky = { imageRef: 'img-3', name: 'n', metadata: { a: 'b' }, key_name: 'k', user_data: 'dQ==' };
      await rebuildServer(nova, 's-1', sneaky);
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), {
        rebuild: { imageRef: 'img-3', name: 'n', metadata: { a: 'b' } },
      });
    });

    it('surfaces a rebuild refused while a task holds the server as ConflictError', async () => {
      h.cloud.on('POST', `${base}/servers/:id/action`, {
        status: 409,
        body: {
          conflictingRequest: { code: 409, message: "Cannot 'rebuild' instance while it is in task_state rebuilding" },
        },
      });
      await assert.rejects(rebuildServer(nova, 's-1', { imageRef: 'img-2' }), ConflictError);
    });

    it('reboots soft and hard, starts and stops', async () => {
      h.cloud.on('POST', `${base}/servers/:id/action`, { status: 202 });
      await rebootServer(nova, 's-1', 'SOFT');
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), { reboot: { type: 'SOFT' } });
      await rebootServer(nova, 's-1', 'HARD');
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), { reboot: { type: 'HARD' } });
      await startServer(nova, 's-1');
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), { 'os-start': null });
      await stopServer(nova, 's-1');
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), { 'os-stop': null });
    });

    it('creates an image and returns its id from the body', async () => {
      h.cloud.on('POST', `${base}/servers/:id/action`, { status: 202, body: { image_id: 'img-snap' } });
      const id = await createServerImage(nova, 's-1', { name: 'snap', metadata: { k: 'v' } });
      assert.equal(id, 'img-snap');
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), {
        createImage: { name: 'snap', metadata: { k: 'v' } },
      });
    });

    it('reads console output, whole or its last lines', async () => {
      h.cloud.on('POST', `${base}/servers/:id/action`, { body: { output: 'login: ' } });
      assert.equal(await getConsoleOutput(nova, 's-1'), 'login: ');
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), { 'os-getConsoleOutput': {} });
      await getConsoleOutput(nova, 's-1', 50);
      assert.deepEqual(h.cloud.last('POST', actionPath).json(), { 'os-getConsoleOutput': { length: 50 } });
    });

    it('creates a noVNC remote console and returns its url', async () => {
      h.cloud.on('POST', `${base}/servers/:id/remote-consoles`, {
        body: { remote_console: { protocol: 'vnc', type: 'novnc', url: 'https://vnc/?token=t' } },
      });
      const console = await createRemoteConsole(nova, 's-1');
      assert.equal(console.url, 'https://vnc/?token=t');
      const req = h.cloud.last();
      assert.equal(req.method, 'POST');
      assert.equal(req.path, `${base}/servers/s-1/remote-consoles`);
      assert.deepEqual(req.json(), { remote_console: { protocol: 'vnc', type: 'novnc' } });
    });
  });

  describe('flavors', () => {
    const flavor = (id: string) => ({
      id,
      name: `f-${id}`,
      vcpus: 2,
      ram: 4096,
      disk: 20,
      swap: 0,
      'OS-FLV-EXT-DATA:ephemeral': 0,
      'os-flavor-access:is_public': true,
      description: null,
      extra_specs: { 'trait:CUSTOM_X': 'required' },
    });

    it('lists flavors in detail filtered by is_public, following flavors_links', async () => {
      h.cloud.on('GET', `${base}/flavors/detail`, (req) =>
        req.query.get('marker') === 'f1'
          ? { body: { flavors: [flavor('f2')] } }
          : {
              body: {
                flavors: [flavor('f1')],
                flavors_links: [{ rel: 'next', href: `${h.cloud.url}${base}/flavors/detail?is_public=true&marker=f1` }],
              },
            },
      );
      const flavors = await listFlavors(nova, { isPublic: true });
      assert.deepEqual(
        flavors.map((f) => f.id),
        ['f1', 'f2'],
      );
      assert.equal(flavors[0]?.extra_specs?.['trait:CUSTOM_X'], 'required');
      assert.equal(h.cloud.last('GET', `${base}/flavors/detail`).query.get('marker'), 'f1');
    });

    it('maps the is_public filter values', async () => {
      h.cloud.on('GET', `${base}/flavors/detail`, { body: { flavors: [] } });
      await listFlavors(nova, { isPublic: 'all' });
      assert.equal(h.cloud.last('GET', `${base}/flavors/detail`).query.get('is_public'), 'None');
      await listFlavors(nova, { isPublic: false });
      assert.equal(h.cloud.last('GET', `${base}/flavors/detail`).query.get('is_public'), 'false');
      await listFlavors(nova);
      assert.equal(h.cloud.last('GET', `${base}/flavors/detail`).query.has('is_public'), false);
    });

    it('gets a flavor and its extra specs', async () => {
      h.cloud.on('GET', `${base}/flavors/:id`, (_req, p) => ({ body: { flavor: flavor(p.id ?? '') } }));
      h.cloud.on('GET', `${base}/flavors/:id/os-extra_specs`, {
        body: { extra_specs: { 'resources:CUSTOM_GOLD': '1', 'trait:CUSTOM_X': 'forbidden' } },
      });
      const f = await getFlavor(nova, 'f9');
      assert.equal(f.id, 'f9');
      assert.equal(f['os-flavor-access:is_public'], true);
      assert.equal(h.cloud.last().path, `${base}/flavors/f9`);
      const specs = await getFlavorExtraSpecs(nova, 'f9');
      assert.deepEqual(specs, { 'resources:CUSTOM_GOLD': '1', 'trait:CUSTOM_X': 'forbidden' });
      assert.equal(h.cloud.last().method, 'GET');
      assert.equal(h.cloud.last().path, `${base}/flavors/f9/os-extra_specs`);
    });
  });

  describe('keypairs', () => {
    const kp = (name: string) => ({ name, public_key: `ssh-ed25519 AAAA ${name}`, fingerprint: 'fp', type: 'ssh' });

    it('lists keypairs across keypairs_links pages, unwrapping each item', async () => {
      h.cloud.on('GET', `${base}/os-keypairs`, (req) =>
        req.query.get('marker') === 'k1'
          ? { body: { keypairs: [{ keypair: kp('k2') }] } }
          : {
              body: {
                keypairs: [{ keypair: kp('k1') }],
                keypairs_links: [{ rel: 'next', href: '/v2.1/os-keypairs?limit=1&marker=k1' }],
              },
            },
      );
      const keypairs = await listKeypairs(nova, { pageSize: 1 });
      assert.deepEqual(
        keypairs.map((k) => k.name),
        ['k1', 'k2'],
      );
      assert.equal(keypairs[1]?.public_key, 'ssh-ed25519 AAAA k2');
      const req = h.cloud.last('GET', `${base}/os-keypairs`);
      assert.equal(req.query.get('marker'), 'k1');
      assert.equal(req.query.get('limit'), '1');
    });

    it('gets, creates and deletes a keypair by name', async () => {
      h.cloud.on('GET', `${base}/os-keypairs/:name`, (_req, p) => ({
        body: { keypair: { ...kp(p.name ?? ''), user_id: 'u-1', created_at: '2025-01-01T00:00:00Z' } },
      }));
      h.cloud.on('POST', `${base}/os-keypairs`, (req) => ({
        status: 201,
        body: { keypair: { ...kp((req.json() as { keypair: { name: string } }).keypair.name), user_id: 'u-1' } },
      }));
      h.cloud.on('DELETE', `${base}/os-keypairs/:name`, { status: 202 });

      const got = await getKeypair(nova, 'unikorn-openstack-provider');
      assert.equal(got.user_id, 'u-1');
      assert.equal(h.cloud.last().path, `${base}/os-keypairs/unikorn-openstack-provider`);

      const created = await createKeypair(nova, { name: 'k-new', public_key: 'ssh-ed25519 AAAA k-new' });
      assert.equal(created.name, 'k-new');
      assert.deepEqual(h.cloud.last('POST', `${base}/os-keypairs`).json(), {
        keypair: { name: 'k-new', public_key: 'ssh-ed25519 AAAA k-new' },
      });

      await deleteKeypair(nova, 'k-new');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, `${base}/os-keypairs/k-new`);
    });
  });

  describe('server groups', () => {
    const group = (id: string, name: string) => ({
      id,
      name,
      policy: 'soft-anti-affinity',
      rules: {},
      members: ['s-1'],
      project_id: 'p-1',
      user_id: 'u-1',
    });
    const groupsPath = `${base}/os-server-groups`;

    it('lists server groups by offset pages of 1000, all_projects off by default', async () => {
      h.cloud.on('GET', groupsPath, { body: { server_groups: [group('g1', 'a'), group('g2', 'b')] } });
      const before = h.cloud.requests.length;
      const groups = await listServerGroups(nova);
      assert.deepEqual(
        groups.map((g) => g.id),
        ['g1', 'g2'],
      );
      // A page shorter than the page size is the last: one request.
      assert.equal(h.cloud.requests.length - before, 1);
      const req = h.cloud.last('GET', groupsPath);
      assert.equal(req.query.get('limit'), '1000');
      assert.equal(req.query.get('offset'), '0');
      assert.equal(req.query.has('all_projects'), false);
      await listServerGroups(nova, { allProjects: true });
      assert.equal(h.cloud.last('GET', groupsPath).query.get('all_projects'), 'True');
    });

    it('lists every server group when they span two offset pages', async () => {
      const all = Array.from({ length: 1003 }, (_, i) => group(`g${String(i)}`, `n${String(i)}`));
      h.cloud.on('GET', groupsPath, (req) => {
        const offset = Number(req.query.get('offset') ?? '0');
        const limit = Number(req.query.get('limit') ?? '1000');
        return { body: { server_groups: all.slice(offset, offset + limit) } };
      });
      const before = h.cloud.requests.length;
      const groups = await listServerGroups(nova, { allProjects: true });
      assert.equal(groups.length, 1003);
      assert.deepEqual(
        groups.map((g) => g.id),
        all.map((g) => g.id),
      );
      const pages = h.cloud.requests.slice(before);
      assert.deepEqual(
        pages.map((r) => [r.query.get('limit'), r.query.get('offset'), r.query.get('all_projects')]),
        [
          ['1000', '0', 'True'],
          ['1000', '1000', 'True'],
        ],
      );
    });

    it('creates a group with the 2.64 policy and rules', async () => {
      h.cloud.on('POST', groupsPath, (req) => ({
        body: {
          server_group: {
            ...group('g-new', 'unikorn-identity-1'),
            policy: 'anti-affinity',
            rules: (req.json() as { server_group: { rules: unknown } }).server_group.rules,
            members: [],
          },
        },
      }));
      const created = await createServerGroup(nova, {
        name: 'unikorn-identity-1',
        policy: 'anti-affinity',
        rules: { max_server_per_host: 2 },
      });
      assert.equal(created.id, 'g-new');
      assert.equal(created.rules.max_server_per_host, 2);
      assert.deepEqual(h.cloud.last('POST', groupsPath).json(), {
        server_group: { name: 'unikorn-identity-1', policy: 'anti-affinity', rules: { max_server_per_host: 2 } },
      });
    });

    it('gets and deletes a group', async () => {
      h.cloud.on('GET', `${groupsPath}/:id`, (_req, p) => ({ body: { server_group: group(p.id ?? '', 'a') } }));
      h.cloud.on('DELETE', `${groupsPath}/:id`, { status: 204 });
      const g = await getServerGroup(nova, 'g1');
      assert.equal(g.policy, 'soft-anti-affinity');
      assert.equal(h.cloud.last().path, `${groupsPath}/g1`);
      await deleteServerGroup(nova, 'g1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, `${groupsPath}/g1`);
    });

    it('finds a group by exact name: none, one, duplicate', async () => {
      h.cloud.on('GET', groupsPath, { body: { server_groups: [group('g1', 'unikorn-identity-10')] } });
      assert.equal(await findServerGroupByName(nova, 'unikorn-identity-1'), undefined);

      h.cloud.on('GET', groupsPath, {
        body: { server_groups: [group('g1', 'unikorn-identity-10'), group('g2', 'unikorn-identity-1')] },
      });
      assert.equal((await findServerGroupByName(nova, 'unikorn-identity-1'))?.id, 'g2');

      h.cloud.on('GET', groupsPath, {
        body: { server_groups: [group('g1', 'unikorn-identity-1'), group('g2', 'unikorn-identity-1')] },
      });
      await assert.rejects(findServerGroupByName(nova, 'unikorn-identity-1'), ConsistencyError);
    });
  });

  describe('volume attachments', () => {
    const attachment = (volumeID: string) => ({
      volumeId: volumeID,
      serverId: 's-1',
      device: '/dev/vdb',
      tag: null,
      delete_on_termination: false,
      attachment_id: `att-${volumeID}`,
      bdm_uuid: `bdm-${volumeID}`,
    });
    const attachPath = `${base}/servers/s-1/os-volume_attachments`;

    it('lists, gets, attaches and detaches', async () => {
      h.cloud.on('GET', `${base}/servers/:sid/os-volume_attachments`, {
        body: { volumeAttachments: [attachment('v1'), attachment('v2')] },
      });
      h.cloud.on('GET', `${base}/servers/:sid/os-volume_attachments/:vid`, (_req, p) => ({
        body: { volumeAttachment: attachment(p.vid ?? '') },
      }));
      h.cloud.on('POST', `${base}/servers/:sid/os-volume_attachments`, (req) => ({
        body: {
          volumeAttachment: attachment(
            (req.json() as { volumeAttachment: { volumeId: string } }).volumeAttachment.volumeId,
          ),
        },
      }));
      h.cloud.on('DELETE', `${base}/servers/:sid/os-volume_attachments/:vid`, { status: 202 });

      const all = await listVolumeAttachments(nova, 's-1');
      assert.deepEqual(
        all.map((a) => a.volumeId),
        ['v1', 'v2'],
      );
      assert.equal(h.cloud.last().path, attachPath);
      assert.equal(h.cloud.last().query.get('limit'), '1000');
      assert.equal(h.cloud.last().query.get('offset'), '0');

      const one = await getVolumeAttachment(nova, 's-1', 'v1');
      assert.equal(one.device, '/dev/vdb');
      assert.equal(one.attachment_id, 'att-v1');
      assert.equal(h.cloud.last().path, `${attachPath}/v1`);

      const made = await attachVolume(nova, 's-1', { volumeId: 'v3' });
      assert.equal(made.volumeId, 'v3');
      const post = h.cloud.last('POST', attachPath);
      assert.deepEqual(post.json(), { volumeAttachment: { volumeId: 'v3' } });

      await detachVolume(nova, 's-1', 'v3');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, `${attachPath}/v3`);
    });

    it('surfaces an attach conflict as ConflictError', async () => {
      h.cloud.on('POST', `${base}/servers/:sid/os-volume_attachments`, {
        status: 409,
        body: { conflictingRequest: { code: 409, message: 'volume is in use' } },
      });
      await assert.rejects(attachVolume(nova, 's-1', { volumeId: 'v1' }), ConflictError);
    });
  });

  describe('quota sets', () => {
    it('gets a project’s quotas and sets them unlimited', async () => {
      const quotas = {
        instances: 10,
        cores: 20,
        ram: 51200,
        key_pairs: 100,
        metadata_items: 128,
        server_groups: 10,
        server_group_members: 10,
      };
      h.cloud.on('GET', `${base}/os-quota-sets/:pid`, (_req, p) => ({ body: { quota_set: { id: p.pid, ...quotas } } }));
      h.cloud.on('PUT', `${base}/os-quota-sets/:pid`, (req) => ({
        body: { quota_set: { ...quotas, ...(req.json() as { quota_set: object }).quota_set } },
      }));
      const got = await getQuotaSet(nova, 'p-7');
      assert.equal(got.id, 'p-7');
      assert.equal(got.cores, 20);
      assert.equal(h.cloud.last().path, `${base}/os-quota-sets/p-7`);

      const unlimited = unlimitedComputeQuota;
      assert.deepEqual(Object.keys(unlimited), Object.keys(quotas), 'every limit Nova has at 2.57+');
      assert.ok(Object.values(unlimited).every((limit) => limit === UNLIMITED));
      const updated = await updateQuotaSet(nova, 'p-7', unlimited);
      assert.deepEqual(updated, unlimited);
      const req = h.cloud.last('PUT', `${base}/os-quota-sets/p-7`);
      assert.deepEqual(req.json(), { quota_set: unlimited });
    });
  });

  it('escapes every regular-expression metacharacter', () => {
    const nasty = 'a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o';
    const pattern = new RegExp(`^${escapeRegExp(nasty)}$`);
    assert.ok(pattern.test(nasty));
    assert.equal(pattern.test('aXb*c+d?e^f$g{h}i(j)k|l[m]n\\o'), false);
    assert.equal(escapeRegExp('unikorn-identity-1'), 'unikorn-identity-1');
  });

  it('types the server result (compile-time check of the shape the server decisions read)', () => {
    const read = (s: Server): [string | null | undefined, string | null | undefined, string] => [
      s['OS-EXT-STS:task_state'],
      s['OS-SRV-USG:launched_at'],
      s.status,
    ];
    assert.deepEqual(read(novaServer('s', 'n') as unknown as Server), [null, null, 'ERROR']);
  });
});
