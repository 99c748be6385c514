/**
 * The server provider's create-or-converge on the emulator with the non-admin region account: the port, floating
 * IP, metadata, SSH injection and server group; convergence in place; which principal made each request; a create
 * interrupted after each request in turn; and pinned creation with its Placement preflight.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deleteServer as deleteNovaServer } from '../../../openstack/compute.ts';
import { ensureRole, grantRole } from '../../../openstack/identity.ts';
import { listNetworks, listSubnets } from '../../../openstack/network.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { IDENTITY_KEYPAIR_NAME, networkName } from '../names.ts';
import { PLACEMENT_MISS } from './create.ts';
import { serverProviderFor, type OpenstackServerProvider } from './provider.ts';
import { serverFixtureWithProvider, type ServerFixture } from '../testing/server.ts';

const ctx = { signal: new AbortController().signal };

let w: ServerFixture;
let provider: OpenstackServerProvider;

before(async () => ({ w, provider } = await serverFixtureWithProvider()));
after(() => w.close());

const CA = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ca@example';

function value<T>(outcome: Outcome<T>): T {
  assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
  return (outcome as { value: T }).value;
}

describe('createServer', () => {
  it('makes the port, floating IP and server in the identity project as the identity user, then converges', async () => {
    const input = w.input({
      publicIP: true,
      allowedAddressPairs: [{ cidr: '10.1.0.0/24' }],
      tags: [{ name: 'billing.example.com/cost-centre', value: 'cc-1' }],
    });
    const from = w.transport.requests.length;
    const addresses = await w.converge(provider, input);
    const [port, ...extra] = await w.ports(input);
    assert.ok(port && extra.length === 0);
    assert.equal(port.project_id, w.projectID);
    assert.deepEqual(
      port.allowed_address_pairs.map((p) => p.ip_address),
      ['10.1.0.0/24'],
    );
    assert.equal(port.security_groups.length, 1);
    const [fip] = await w.floatingIPs(port.id);
    assert.deepEqual(addresses, { privateIP: port.fixed_ips[0]?.ip_address, publicIP: fip?.floating_ip_address });
    const [server, ...more] = await w.novaServers(input.name);
    assert.ok(server && more.length === 0);
    assert.equal(server.key_name, IDENTITY_KEYPAIR_NAME);
    assert.equal(server.metadata['region:server_id'], input.id);
    assert.equal(server.metadata.serverID, input.id);
    assert.equal(server.metadata['billing:cost_centre'], 'cc-1');
    const scopes = new Set(w.requestsSince(from).map((line) => line.split(' ').slice(0, 2).join(' ')));
    assert.deepEqual(scopes, new Set([`identity project:${w.projectID}`, `region project:${w.credentials.projectID}`]));
    const regionCalls = w.requestsSince(from).filter((l) => l.startsWith('region '));
    assert.deepEqual(
      regionCalls.map((l) => l.split(' ').slice(2).join(' ')),
      ['GET network /networks'],
    );
  });

  it('ca mode: no key_name, and the user data carries the SSH-CA part after the user’s own', async () => {
    const userData = new TextEncoder().encode('#!/bin/sh\necho hello\n');
    const input = w.input({ sshInjection: 'ca', sshCertificateAuthorityPublicKey: CA, userData });
    await w.converge(provider, input);
    const [server] = await w.novaServers(input.name);
    assert.equal(server?.key_name, null);
    const sent = Buffer.from(
      String((server as unknown as Record<string, unknown>)['OS-EXT-SRV-ATTR:user_data']),
      'base64',
    );
    const text = sent.toString('latin1');
    assert.match(text, /multipart\/mixed/);
    assert.match(text, /echo hello/);
    assert.ok(text.includes(CA), 'the CA key is written for sshd');
    assert.ok(text.indexOf('echo hello') < text.indexOf(CA));
  });

  it('none mode omits key_name; the server joins the identity’s server group', async () => {
    const input = w.input({ sshInjection: 'none' });
    await w.converge(provider, input);
    const [server] = await w.novaServers(input.name);
    assert.equal(server?.key_name, null);
    const groups = w.emulator.nova.state.groups;
    assert.ok([...groups.values()].some((g) => g.members.includes(server.id)));
  });

  it('converges the port and floating IP in place: pairs and groups follow the spec, the floating IP goes', async () => {
    const input = w.input({ publicIP: true });
    await w.converge(provider, input);
    const [port] = await w.ports(input);
    assert.equal((await w.floatingIPs(port?.id ?? '')).length, 1);
    const changed = { ...input, publicIP: false, securityGroupIDs: [], allowedAddressPairs: [{ cidr: '10.9.0.1/32' }] };
    assert.deepEqual(value(await provider.createServer(ctx, w.identity, changed)).publicIP, undefined);
    const [updated] = await w.ports(input);
    assert.ok(updated);
    assert.deepEqual(updated.security_groups, []);
    assert.deepEqual(
      updated.allowed_address_pairs.map((p) => p.ip_address),
      ['10.9.0.1/32'],
    );
    assert.equal((await w.floatingIPs(port?.id ?? '')).length, 0);
  });

  it('made on the network and subnet its Network recorded: no network or subnet lookup, no floating-IP list', async () => {
    const [network] = await listNetworks(w.admin.client('network'), { name: networkName(w.networkID) });
    const [subnet] = await listSubnets(w.admin.client('network'), { networkID: network?.id ?? '' });
    assert.ok(network && subnet);
    const input = w.input({ neutronNetwork: { networkID: network.id, subnetID: subnet.id } });
    const from = w.transport.requests.length;
    assert.equal((await provider.createServer(ctx, w.identity, input)).kind, 'yield');
    const calls = w.requestsSince(from).map((l) => l.split(' ').slice(2).join(' '));
    assert.deepEqual(calls, [
      'GET network /security-groups',
      'GET network /ports',
      'POST network /ports',
      'GET compute /servers/detail',
      'POST compute /servers',
    ]);
    const [port] = await w.ports(input);
    assert.equal(port?.fixed_ips[0]?.subnet_id, subnet.id);
  });

  it('never provisioned: the port and the server are made without re-finding them by name', async () => {
    const [network] = await listNetworks(w.admin.client('network'), { name: networkName(w.networkID) });
    const [subnet] = await listSubnets(w.admin.client('network'), { networkID: network?.id ?? '' });
    assert.ok(network && subnet);
    const input = w.input({ neutronNetwork: { networkID: network.id, subnetID: subnet.id } });
    const from = w.transport.requests.length;
    const outcome = await provider.createServer(ctx, w.identity, { ...input, neverProvisioned: true });
    assert.equal(outcome.kind, 'yield');
    assert.deepEqual(
      w.requestsSince(from).map((l) => l.split(' ').slice(2).join(' ')),
      ['GET network /security-groups', 'POST network /ports', 'POST compute /servers'],
    );
    await w.converge(provider, input);
    assert.equal((await w.ports(input)).length, 1);
    assert.equal((await w.novaServers(input.name)).length, 1);
  });

  it('a later pass with the same spec reads only the server; a server gone out of band is re-found by name', async () => {
    const input = w.input();
    await w.converge(provider, input);
    let from = w.transport.requests.length;
    assert.equal((await provider.createServer(ctx, w.identity, input)).kind, 'done');
    assert.deepEqual(
      w.requestsSince(from).map((l) => l.split(' ').slice(2).join(' ')),
      ['GET compute /servers/detail'],
      'the remembered port, checked against the server read',
    );
    const [server] = await w.novaServers(input.name);
    await deleteNovaServer(w.admin.client('compute'), server?.id ?? '');
    w.advance(1_000);
    from = w.transport.requests.length;
    assert.equal((await provider.createServer(ctx, w.identity, input)).kind, 'yield');
    const calls = w.requestsSince(from).map((l) => l.split(' ').slice(2).join(' '));
    assert.ok(calls.includes('GET network /ports'), `the port re-found: ${calls.join(', ')}`);
    await w.converge(provider, input);
    assert.equal((await w.ports(input)).length, 1, 'the same port');
    assert.equal((await w.novaServers(input.name)).length, 1, 'one server again');
  });

  it('without an image there is nothing to create: R1 parks', async () => {
    const { imageID: _, ...input } = w.input();
    const outcome = await provider.createServer(ctx, w.identity, input);
    assert.equal(outcome.kind, 'park');
    assert.deepEqual(await w.novaServers(input.name), []);
  });

  it('converges after a create interrupted after each request in turn: one port, one floating IP, one server', async () => {
    for (let n = 1; ; n++) {
      const input = w.input({ publicIP: true });
      w.transport.interruptAfter(n);
      // The first pass of a new Server never re-finds (nothing was made yet); every later one does.
      const first = await provider
        .createServer(ctx, w.identity, { ...input, neverProvisioned: true })
        .catch((e: unknown) => e);
      const interrupted = w.transport.requests.length > 0 && first instanceof Error;
      w.transport.interruptAfter(undefined);
      await w.converge(await w.provider(), input);
      const [port, ...extraPorts] = await w.ports(input);
      assert.ok(port && extraPorts.length === 0, `n=${String(n)}: one port`);
      assert.equal((await w.floatingIPs(port.id)).length, 1, `n=${String(n)}: one floating IP`);
      assert.equal((await w.novaServers(input.name)).length, 1, `n=${String(n)}: one server`);
      if (!interrupted) break;
      assert.ok(n < 40, 'the create pass ends');
    }
  });
});

describe('pinned creation', () => {
  it('asks Placement first with the privileged client; a miss yields, a fit creates with the region’s credentials', async () => {
    const specs = { 'resources:CUSTOM_GOLD': '1', 'trait:CUSTOM_FAST': 'required' };
    const admin = w.admin;
    const { body } = await admin.client('compute').request<{ flavor: { id: string } }>({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: 'pinned', vcpus: 1, ram: 512, disk: 1 } },
    });
    await admin.client('compute').request({
      method: 'POST',
      path: '/flavors/{id}/os-extra_specs',
      params: { id: body.flavor.id },
      body: { extra_specs: specs },
    });
    // Placement's default policy is admin-only: a deployment grants the region account a role it accepts there.
    const keystone = admin.client('identity');
    const roleID = await ensureRole(keystone, 'service');
    await grantRole(keystone, { userID: w.credentials.userID, projectID: w.projectID, roleID: roleID });
    // A fresh registry: the privileged session made before the grant holds a token without the role.
    const region = await (await w.registry()).lookup(w.region.metadata.name);
    const pinnedProvider = serverProviderFor(
      { ...region, config: { ...region.config, compute: { placementPreflight: { enabled: true } } } },
      { kube: w.store, clock: w.clock },
    );
    const input = w.input({ flavorID: body.flavor.id, infrastructureRef: 'node-gold-1', sshInjection: 'none' });
    const placement = admin.client('placement');
    await placement.request({ method: 'PUT', path: '/resource_classes/CUSTOM_GOLD' });
    await placement.request({ method: 'PUT', path: '/traits/CUSTOM_FAST' });
    const from = w.transport.requests.length;
    const miss = await pinnedProvider.createServer(ctx, w.identity, input);
    assert.deepEqual(miss, { kind: 'yield', reason: PLACEMENT_MISS });
    const privileged = w.requestsSince(from).filter((l) => l.startsWith(`region project:${w.projectID}`));
    assert.deepEqual(
      privileged.map((l) => l.split(' ').slice(2).join(' ')),
      ['GET compute /flavors/{flavor_id}/os-extra_specs', 'GET placement /resource_providers'],
    );
    assert.deepEqual(await w.novaServers(input.name), []);

    const made = await placement.request<{ uuid: string; generation: number }>({
      method: 'POST',
      path: '/resource_providers',
      body: { name: 'node-gold-1' },
    });
    const rp = made.body.uuid;
    await placement.request({
      method: 'PUT',
      path: '/resource_providers/{uuid}/inventories',
      params: { uuid: rp },
      body: { resource_provider_generation: 0, inventories: { CUSTOM_GOLD: { total: 1 } } },
    });
    await placement.request({
      method: 'PUT',
      path: '/resource_providers/{uuid}/traits',
      params: { uuid: rp },
      body: { resource_provider_generation: 1, traits: ['CUSTOM_FAST'] },
    });
    const at = w.transport.requests.length;
    assert.deepEqual(await pinnedProvider.createServer(ctx, w.identity, input), { kind: 'yield', reason: 'created' });
    const create = w.requestsSince(at).find((l) => l.endsWith('POST compute /servers'));
    assert.equal(create, `region project:${w.projectID} POST compute /servers`);
  });
});
