/**
 * Neutron contract: what the region's network, security group and floating IP reconcilers rely on, checked
 * against the real Neutron (Zed, ML2 with vlan physnet1:100:200 and vxlan tenant networks, no L3 agent).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../src/openstack/errors.ts';
import {
  createProject,
  createUser,
  deleteProject,
  deleteUser,
  findRoleByName,
  grantRole,
} from '../../src/openstack/identity.ts';
import { LEFT_BEHIND_TAG, leftBehindIdentityTag } from '../../src/region/openstack/names.ts';
import {
  addRouterInterface,
  addTag,
  createFloatingIP,
  createNetwork,
  createPort,
  createRouter,
  createSecurityGroup,
  createSecurityGroupRule,
  createSubnet,
  deleteFloatingIP,
  deleteNetwork,
  deletePort,
  deleteRouter,
  deleteSecurityGroup,
  deleteSecurityGroupRule,
  deleteSubnet,
  deleteTag,
  findNetworkByName,
  findRouterByName,
  findSecurityGroupByName,
  findSubnetByName,
  getFloatingIP,
  getNetwork,
  getNetworkQuota,
  getPort,
  getRouter,
  getSecurityGroup,
  getSubnet,
  listFloatingIPs,
  listNetworks,
  listPorts,
  listRouters,
  listSecurityGroupRules,
  listSecurityGroups,
  listSubnets,
  removeRouterInterface,
  replaceTags,
  unlimitedNetworkQuota,
  updateFloatingIP,
  updateNetworkQuota,
  updatePort,
  updateSubnet,
  type Network,
  type Subnet,
} from '../../src/openstack/network.ts';
import { contractCloud } from './cloud.ts';
import { Cleanup } from './cleanup.ts';

const cloud = await contractCloud();

/** Undo steps for everything this file makes, run newest first after the suite. */
const cleanup = new Cleanup();
const defer = (what: string, run: () => Promise<unknown>): void => {
  cleanup.add(what, run);
};

/** Third octets handed out to this file's subnets, so no two tenant subnets in a run overlap. */
let nextOctet = Math.floor(Math.random() * 150) + 50;
function cidr(): { cidr: string; prefix: string } {
  const octet = nextOctet++;
  return { cidr: `10.${String(octet)}.0.0/24`, prefix: `10.${String(octet)}.0` };
}

describe('Neutron contract (network.ts against the real Neutron)', { skip: cloud === undefined }, () => {
  if (cloud === undefined) return;
  const admin = cloud.admin.client('network');
  const tenant = cloud.regionProject.client('network');

  after(async () => {
    await cleanup.run();
    await cloud.close();
  });

  const tenantNetwork = async (what: string): Promise<{ network: Network; subnet: Subnet; prefix: string }> => {
    const network = await createNetwork(tenant, { name: cloud.name(what) });
    defer(`network ${network.name}`, () => deleteNetwork(tenant, network.id));
    const range = cidr();
    const subnet = await createSubnet(tenant, {
      network_id: network.id,
      name: cloud.name(`${what}-subnet`),
      cidr: range.cidr,
      ip_version: 4,
    });
    defer(`subnet ${subnet.name}`, () => deleteSubnet(tenant, subnet.id));
    return { network, subnet, prefix: range.prefix };
  };

  const external = async (): Promise<Network> => {
    const found = await findNetworkByName(tenant, 'or-external');
    assert.ok(found, 'the seeded external network or-external is visible to the region project');
    assert.equal(found['router:external'], true);
    return found;
  };

  it('admin creates a VLAN provider network on physnet1 with a segmentation id in 100–200', async () => {
    let created: Network | undefined;
    let segment = 0;
    const name = cloud.name('vlan');
    // Another run (or another suite) may hold an id: Neutron answers 409 VlanIdInUse, and we pick again.
    for (let attempt = 0; attempt < 20 && created === undefined; attempt++) {
      segment = 100 + Math.floor(Math.random() * 101);
      try {
        created = await createNetwork(admin, {
          name,
          'provider:network_type': 'vlan',
          'provider:physical_network': 'physnet1',
          'provider:segmentation_id': segment,
        });
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        assert.equal(error.fault.type, 'VlanIdInUse');
      }
    }
    assert.ok(created, 'a free VLAN id in physnet1:100:200');
    const id = created.id;
    defer(`network ${name}`, () => deleteNetwork(admin, id));
    assert.equal(created['provider:network_type'], 'vlan');
    assert.equal(created['provider:physical_network'], 'physnet1');
    assert.equal(created['provider:segmentation_id'], segment);

    const read = await getNetwork(admin, id);
    assert.equal(read['provider:segmentation_id'], segment);
    assert.equal(read.status, 'ACTIVE');

    // The same id again is Neutron's 409, which the VLAN allocator must treat as "taken".
    await assert.rejects(
      createNetwork(admin, {
        name: cloud.name('vlan-dup'),
        'provider:network_type': 'vlan',
        'provider:physical_network': 'physnet1',
        'provider:segmentation_id': segment,
      }),
      (error: unknown) => error instanceof ConflictError && error.fault.type === 'VlanIdInUse',
    );
    // Outside physnet1's configured 100–200 but a valid VLAN: Neutron lets an admin have it (ranges bound only
    // tenant allocation), so the region's VLAN allocator is what keeps ids inside the operator's range.
    const outside = await createNetwork(admin, {
      name: cloud.name('vlan-out'),
      'provider:network_type': 'vlan',
      'provider:physical_network': 'physnet1',
      'provider:segmentation_id': 3000 + Math.floor(Math.random() * 1000),
    });
    defer(`network ${outside.name}`, () => deleteNetwork(admin, outside.id));
    assert.ok((outside['provider:segmentation_id'] ?? 0) >= 3000);
    // Not a VLAN id at all: 400.
    await assert.rejects(
      createNetwork(admin, {
        name: cloud.name('vlan-invalid'),
        'provider:network_type': 'vlan',
        'provider:physical_network': 'physnet1',
        'provider:segmentation_id': 4095,
      }),
      BadRequestError,
    );
  });

  it('the region project credential, manager of its project, creates a provider network there', async () => {
    // deploy/policies/neutron.yaml: a project manager may set provider attributes in its own project (stock Zed
    // allows only admins); the refusals (a plain member, another project) are in domain-manager.test.ts.
    let created: Network | undefined;
    for (let attempt = 0; attempt < 20 && created === undefined; attempt++) {
      try {
        created = await createNetwork(tenant, {
          name: cloud.name('vlan-manager'),
          'provider:network_type': 'vlan',
          'provider:physical_network': 'physnet1',
          'provider:segmentation_id': 100 + Math.floor(Math.random() * 101),
        });
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    assert.ok(created, 'a free VLAN id in physnet1:100:200');
    const id = created.id;
    defer(`network ${created.name}`, () => deleteNetwork(tenant, id));
    assert.equal(created['provider:network_type'], 'vlan');
    // It reads the provider attributes of its own tenant networks too, as admin does.
    const { network } = await tenantNetwork('tenant-attrs');
    const mine = await getNetwork(tenant, network.id);
    assert.equal(mine['provider:network_type'], 'vxlan');
    const asAdmin = await getNetwork(admin, network.id);
    assert.equal(asAdmin['provider:network_type'], 'vxlan');
    assert.equal(typeof asAdmin['provider:segmentation_id'], 'number');
    assert.equal(asAdmin.mtu, 1450);
  });

  it('tenant networks and subnets: create, get, list, update, find by exact name', async () => {
    const { network, subnet, prefix } = await tenantNetwork('net');
    assert.equal(network.status, 'ACTIVE');
    assert.equal(network.name, cloud.name('net'));
    assert.deepEqual([...(await getNetwork(tenant, network.id)).subnets], [subnet.id]);

    const readSubnet = await getSubnet(tenant, subnet.id);
    assert.equal(readSubnet.cidr, `${prefix}.0/24`);
    assert.equal(readSubnet.gateway_ip, `${prefix}.1`);
    assert.equal(readSubnet.enable_dhcp, true);

    const updated = await updateSubnet(tenant, subnet.id, {
      dns_nameservers: ['192.0.2.53', '192.0.2.54'],
      host_routes: [{ destination: '192.168.0.0/16', nexthop: `${prefix}.254` }],
      description: 'contract',
    });
    assert.deepEqual([...updated.dns_nameservers], ['192.0.2.53', '192.0.2.54']);
    assert.deepEqual([...updated.host_routes], [{ destination: '192.168.0.0/16', nexthop: `${prefix}.254` }]);
    // Neutron replaces lists wholesale: an empty list clears them.
    const cleared = await updateSubnet(tenant, subnet.id, { dns_nameservers: [], host_routes: [] });
    assert.deepEqual([...cleared.dns_nameservers], []);
    assert.deepEqual([...cleared.host_routes], []);

    const subnets = await listSubnets(tenant, { networkID: network.id });
    assert.deepEqual(
      subnets.map((s) => s.id),
      [subnet.id],
    );
    assert.equal((await findSubnetByName(tenant, subnet.name, { networkID: network.id }))?.id, subnet.id);
    assert.equal((await findNetworkByName(tenant, network.name))?.id, network.id);
    assert.equal(await findNetworkByName(tenant, cloud.name('net-absent')), undefined);
  });

  it("Neutron's name filter is exact (not a prefix), and case-insensitive on MariaDB; find*ByName returns exactly one", async () => {
    const base = cloud.name('exact');
    const { network } = await tenantNetwork('exact');
    const sibling = await createNetwork(tenant, { name: `${base}-sibling` });
    defer(`network ${sibling.name}`, () => deleteNetwork(tenant, sibling.id));
    const cousin = await createNetwork(tenant, { name: `${base}x` });
    defer(`network ${cousin.name}`, () => deleteNetwork(tenant, cousin.id));

    // The filter is equality on the real service: neither the `-sibling` nor the `x` name comes back.
    const byName = await listNetworks(tenant, { name: base });
    assert.deepEqual(
      byName.map((n) => n.id),
      [network.id],
    );
    // A prefix matches nothing.
    assert.deepEqual(await listNetworks(tenant, { name: base.slice(0, -2) }), []);
    // The helper returns the one exact match.
    assert.equal((await findNetworkByName(tenant, base))?.id, network.id);
    assert.equal((await findNetworkByName(tenant, `${base}-sibling`))?.id, sibling.id);

    // The database's collation decides case: MariaDB's default is case-insensitive, so the wire filter returns the
    // differently-cased row; the helper's exact post-filter must (and does) drop it.
    const upper = base.toUpperCase();
    const byUpper = await listNetworks(tenant, { name: upper });
    assert.deepEqual(
      byUpper.map((n) => n.id),
      [network.id],
      'MariaDB compares names case-insensitively',
    );
    assert.equal(await findNetworkByName(tenant, upper), undefined);
  });

  it('pagination follows Neutron next links across pages with a small pageSize and a tag filter', async () => {
    const tag = cloud.name('page');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const n = await createNetwork(tenant, { name: cloud.name(`page-${String(i)}`) });
      defer(`network ${n.name}`, () => deleteNetwork(tenant, n.id));
      await replaceTags(tenant, 'networks', n.id, [tag]);
      ids.push(n.id);
    }
    const pages = () => cloud.accounting.total({ serviceType: 'network', method: 'GET', urlTemplate: '/networks' });

    let before = pages();
    const all = await listNetworks(tenant, { tags: [tag] }, { pageSize: 2 });
    assert.deepEqual(all.map((n) => n.id).sort(), [...ids].sort());
    assert.equal(new Set(all.map((n) => n.id)).size, 5, 'no item is repeated across pages');
    // 2 + 2 + 1: Neutron sends a next link after each full page and none after the short last page.
    assert.equal(pages() - before, 3);

    before = pages();
    const firstThree = await listNetworks(tenant, { tags: [tag] }, { pageSize: 2, limit: 3 });
    assert.equal(firstThree.length, 3);
    assert.equal(pages() - before, 2, 'a limit stops paging once it is reached');

    // An exact multiple of the page size: Neutron still links a next page, which comes back empty.
    before = pages();
    const five = await listNetworks(tenant, { tags: [tag] }, { pageSize: 5 });
    assert.equal(five.length, 5);
    const used = pages() - before;
    process.stderr.write(`neutron: 5 networks at pageSize 5 took ${String(used)} page request(s)\n`);
    assert.ok(used === 1 || used === 2, `one full page, perhaps followed by an empty one (saw ${String(used)})`);
  });

  it('tags: replace, add, delete, and the tags / tags-any list filters', async () => {
    const { network, subnet } = await tenantNetwork('tags');
    const a = cloud.name('tag-a');
    const b = cloud.name('tag-b');
    const c = cloud.name('tag-c');

    assert.deepEqual([...(await replaceTags(tenant, 'networks', network.id, [a, b]))].sort(), [a, b].sort());
    await addTag(tenant, 'networks', network.id, c);
    await addTag(tenant, 'networks', network.id, c); // adding a tag already held succeeds
    assert.deepEqual([...(await getNetwork(tenant, network.id)).tags].sort(), [a, b, c].sort());
    await deleteTag(tenant, 'networks', network.id, b);
    assert.deepEqual([...(await getNetwork(tenant, network.id)).tags].sort(), [a, c].sort());
    await assert.rejects(deleteTag(tenant, 'networks', network.id, b), NotFoundError);

    await replaceTags(tenant, 'subnets', subnet.id, [a]);
    // `tags` needs every tag; `tags-any` at least one.
    assert.deepEqual(
      (await listNetworks(tenant, { tags: [a, c] })).map((n) => n.id),
      [network.id],
    );
    assert.deepEqual(await listNetworks(tenant, { tags: [a, b] }), []);
    assert.deepEqual(
      (await listNetworks(tenant, { tagsAny: [b, c] })).map((n) => n.id),
      [network.id],
    );
    assert.deepEqual(
      (await listSubnets(tenant, { tags: [a] })).map((s) => s.id),
      [subnet.id],
    );

    // An empty list clears every tag.
    assert.deepEqual([...(await replaceTags(tenant, 'networks', network.id, []))], []);
    assert.deepEqual([...(await getNetwork(tenant, network.id)).tags], []);
  });

  it('routers: external gateway on or-external, add and remove a subnet interface, 409 while in use', async () => {
    const ext = await external();
    const { network, subnet, prefix } = await tenantNetwork('rtr');
    const router = await createRouter(tenant, {
      name: cloud.name('router'),
      external_gateway_info: { network_id: ext.id },
    });
    defer(`router ${router.name}`, () => deleteRouter(tenant, router.id));
    assert.equal(router.external_gateway_info?.network_id, ext.id);
    const gatewayIPs = router.external_gateway_info.external_fixed_ips ?? [];
    assert.equal(gatewayIPs.length, 1);
    assert.match(gatewayIPs[0]?.ip_address ?? '', /^203\.0\.113\./);

    const added = await addRouterInterface(tenant, router.id, { subnet_id: subnet.id });
    assert.equal(added.id, router.id);
    assert.equal(added.subnet_id, subnet.id);
    assert.equal(added.network_id, network.id);
    const routerPort = await getPort(tenant, added.port_id);
    assert.equal(routerPort.device_owner, 'network:router_interface');
    assert.equal(routerPort.fixed_ips[0]?.ip_address, `${prefix}.1`);

    // While the interface exists Neutron refuses to delete the subnet or the router: 409s with their fault types.
    await assert.rejects(deleteSubnet(tenant, subnet.id), (error: unknown) => {
      assert.ok(error instanceof ConflictError, String(error));
      assert.equal(error.fault.type, 'SubnetInUse');
      return true;
    });
    await assert.rejects(deleteRouter(tenant, router.id), (error: unknown) => {
      assert.ok(error instanceof ConflictError, String(error));
      assert.equal(error.fault.type, 'RouterInUse');
      return true;
    });

    assert.equal((await getRouter(tenant, router.id)).name, router.name);
    assert.deepEqual(
      (await listRouters(tenant, { name: router.name })).map((r) => r.id),
      [router.id],
    );
    assert.equal((await findRouterByName(tenant, router.name))?.id, router.id);
    await replaceTags(tenant, 'routers', router.id, [cloud.name('rtr-tag')]);
    assert.deepEqual(
      (await listRouters(tenant, { tags: [cloud.name('rtr-tag')] })).map((r) => r.id),
      [router.id],
    );

    const removed = await removeRouterInterface(tenant, router.id, { subnet_id: subnet.id });
    assert.equal(removed.port_id, added.port_id);
    await assert.rejects(getPort(tenant, added.port_id), NotFoundError);
    await deleteRouter(tenant, router.id);
    await assert.rejects(getRouter(tenant, router.id), NotFoundError);
  });

  it('security groups and rules: default egress rules, a tcp/22 rule, duplicate rule 409, delete', async () => {
    const group = await createSecurityGroup(tenant, { name: cloud.name('sg'), description: 'contract' });
    defer(`security group ${group.name}`, () => deleteSecurityGroup(tenant, group.id));
    // Neutron adds egress-any for IPv4 and IPv6 to every new group.
    assert.deepEqual(group.security_group_rules.map((r) => `${r.direction}/${r.ethertype}`).sort(), [
      'egress/IPv4',
      'egress/IPv6',
    ]);

    const rule = await createSecurityGroupRule(tenant, {
      security_group_id: group.id,
      direction: 'ingress',
      ethertype: 'IPv4',
      protocol: 'tcp',
      port_range_min: 22,
      port_range_max: 22,
      remote_ip_prefix: '0.0.0.0/0',
      description: 'ssh',
    });
    assert.equal(rule.protocol, 'tcp');
    assert.equal(rule.port_range_min, 22);
    await assert.rejects(
      createSecurityGroupRule(tenant, {
        security_group_id: group.id,
        direction: 'ingress',
        ethertype: 'IPv4',
        protocol: 'tcp',
        port_range_min: 22,
        port_range_max: 22,
        remote_ip_prefix: '0.0.0.0/0',
      }),
      (error: unknown) => error instanceof ConflictError && error.fault.type === 'SecurityGroupRuleExists',
    );
    const ingress = await listSecurityGroupRules(tenant, { securityGroupID: group.id, direction: 'ingress' });
    assert.deepEqual(
      ingress.map((r) => r.id),
      [rule.id],
    );
    assert.equal((await listSecurityGroupRules(tenant, { securityGroupID: group.id })).length, 3);

    assert.equal((await getSecurityGroup(tenant, group.id)).security_group_rules.length, 3);
    assert.equal((await findSecurityGroupByName(tenant, group.name))?.id, group.id);
    assert.deepEqual(
      (await listSecurityGroups(tenant, { name: group.name })).map((g) => g.id),
      [group.id],
    );
    // Every project has exactly one `default` group.
    assert.ok(await findSecurityGroupByName(tenant, 'default'));
    await replaceTags(tenant, 'security-groups', group.id, [cloud.name('sg-tag')]);
    assert.deepEqual(
      (await listSecurityGroups(tenant, { tags: [cloud.name('sg-tag')] })).map((g) => g.id),
      [group.id],
    );

    await deleteSecurityGroupRule(tenant, rule.id);
    assert.deepEqual(await listSecurityGroupRules(tenant, { securityGroupID: group.id, direction: 'ingress' }), []);
    await deleteSecurityGroup(tenant, group.id);
    await assert.rejects(getSecurityGroup(tenant, group.id), NotFoundError);
  });

  it('ports: allowed address pairs and security groups, updated wholesale; a network with ports is 409 NetworkInUse', async () => {
    const { network, subnet, prefix } = await tenantNetwork('port');
    const sg1 = await createSecurityGroup(tenant, { name: cloud.name('port-sg1') });
    defer(`security group ${sg1.name}`, () => deleteSecurityGroup(tenant, sg1.id));
    const sg2 = await createSecurityGroup(tenant, { name: cloud.name('port-sg2') });
    defer(`security group ${sg2.name}`, () => deleteSecurityGroup(tenant, sg2.id));

    const port = await createPort(tenant, {
      network_id: network.id,
      name: cloud.name('port'),
      fixed_ips: [{ subnet_id: subnet.id, ip_address: `${prefix}.10` }],
      security_groups: [sg1.id],
      allowed_address_pairs: [{ ip_address: `${prefix}.200` }, { ip_address: '192.168.50.0/24' }],
    });
    defer(`port ${port.name}`, () => deletePort(tenant, port.id));
    assert.equal(port.fixed_ips[0]?.ip_address, `${prefix}.10`);
    assert.deepEqual([...port.security_groups], [sg1.id]);
    assert.deepEqual(port.allowed_address_pairs.map((p) => p.ip_address).sort(), [`${prefix}.200`, '192.168.50.0/24']);
    // A pair without a MAC gets the port's own.
    assert.ok(port.allowed_address_pairs.every((p) => p.mac_address === port.mac_address));
    // No L2 data plane: the port never goes ACTIVE.
    assert.equal(port.status, 'DOWN');

    const updated = await updatePort(tenant, port.id, {
      security_groups: [sg1.id, sg2.id],
      allowed_address_pairs: [{ ip_address: `${prefix}.201`, mac_address: 'fa:16:3e:00:00:01' }],
    });
    assert.deepEqual([...updated.security_groups].sort(), [sg1.id, sg2.id].sort());
    assert.deepEqual(
      [...updated.allowed_address_pairs],
      [{ ip_address: `${prefix}.201`, mac_address: 'fa:16:3e:00:00:01' }],
    );
    const read = await getPort(tenant, port.id);
    assert.deepEqual([...read.security_groups].sort(), [sg1.id, sg2.id].sort());

    assert.deepEqual(
      (await listPorts(tenant, { networkID: network.id, name: port.name })).map((p) => p.id),
      [port.id],
    );
    assert.deepEqual(
      (await listPorts(tenant, { macAddress: port.mac_address })).map((p) => p.id),
      [port.id],
    );
    await replaceTags(tenant, 'ports', port.id, [cloud.name('port-tag')]);
    assert.deepEqual(
      (await listPorts(tenant, { tags: [cloud.name('port-tag')] })).map((p) => p.id),
      [port.id],
    );

    // A security group in use by a port is 409 SecurityGroupInUse.
    await assert.rejects(
      deleteSecurityGroup(tenant, sg2.id),
      (error: unknown) => error instanceof ConflictError && error.fault.type === 'SecurityGroupInUse',
    );
    // A network with a user port is 409 NetworkInUse, surfaced with Neutron's fault type and request id.
    await assert.rejects(deleteNetwork(tenant, network.id), (error: unknown) => {
      assert.ok(error instanceof ConflictError, String(error));
      assert.equal(error.status, 409);
      assert.equal(error.fault.type, 'NetworkInUse');
      assert.equal(error.urlTemplate, '/networks/{network_id}');
      assert.match(error.requestID ?? '', /^req-[0-9a-f-]{36}$/);
      return true;
    });

    await deletePort(tenant, port.id);
    await assert.rejects(getPort(tenant, port.id), NotFoundError);
  });

  it('an overlapping CIDR on the same network is refused with InvalidInput (400, not 409)', async () => {
    const { network, prefix } = await tenantNetwork('overlap');
    await assert.rejects(
      createSubnet(tenant, {
        network_id: network.id,
        name: cloud.name('overlap-2'),
        cidr: `${prefix}.128/25`,
        ip_version: 4,
      }),
      (error: unknown) => {
        assert.ok(error instanceof BadRequestError, `expected BadRequestError, got ${String(error)}`);
        assert.equal(error.fault.type, 'InvalidInput');
        assert.match(error.fault.message ?? '', /overlaps/);
        return true;
      },
    );
  });

  it('floating IPs: create on or-external, associate to a port, disassociate with null, delete', async () => {
    const ext = await external();
    const { network, subnet } = await tenantNetwork('fip');
    const router = await createRouter(tenant, {
      name: cloud.name('fip-router'),
      external_gateway_info: { network_id: ext.id },
    });
    defer(`router ${router.name}`, () => deleteRouter(tenant, router.id));
    await addRouterInterface(tenant, router.id, { subnet_id: subnet.id });
    defer(`interface on ${router.name}`, async () => {
      await removeRouterInterface(tenant, router.id, { subnet_id: subnet.id });
    });
    const port = await createPort(tenant, { network_id: network.id, name: cloud.name('fip-port') });
    defer(`port ${port.name}`, () => deletePort(tenant, port.id));

    const fip = await createFloatingIP(tenant, { floating_network_id: ext.id, description: cloud.name('fip') });
    defer(`floating IP ${fip.floating_ip_address}`, () => deleteFloatingIP(tenant, fip.id));
    assert.match(fip.floating_ip_address, /^203\.0\.113\./);
    assert.equal(fip.port_id, null);
    assert.equal(fip.floating_network_id, ext.id);

    const associated = await updateFloatingIP(tenant, fip.id, { port_id: port.id });
    assert.equal(associated.port_id, port.id);
    assert.equal(associated.fixed_ip_address, port.fixed_ips[0]?.ip_address);
    assert.equal(associated.router_id, router.id);
    // Re-found by the port it is attached to.
    assert.deepEqual(
      (await listFloatingIPs(tenant, { portID: port.id })).map((f) => f.id),
      [fip.id],
    );
    assert.deepEqual(
      (await listFloatingIPs(tenant, { floatingIPAddress: fip.floating_ip_address })).map((f) => f.id),
      [fip.id],
    );
    // No L3 agent: the floating IP stays DOWN.
    assert.equal((await getFloatingIP(tenant, fip.id)).status, 'DOWN');
    await replaceTags(tenant, 'floatingips', fip.id, [cloud.name('fip-tag')]);
    assert.deepEqual(
      (await listFloatingIPs(tenant, { tags: [cloud.name('fip-tag')] })).map((f) => f.id),
      [fip.id],
    );

    const released = await updateFloatingIP(tenant, fip.id, { port_id: null });
    assert.equal(released.port_id, null);
    assert.equal(released.fixed_ip_address, null);
    assert.deepEqual(await listFloatingIPs(tenant, { portID: port.id }), []);

    await deleteFloatingIP(tenant, fip.id);
    await assert.rejects(getFloatingIP(tenant, fip.id), NotFoundError);
  });

  it('a floating IP cannot associate to a port whose subnet has no router to the external network', async () => {
    const ext = await external();
    const { network } = await tenantNetwork('fip-norouter');
    const port = await createPort(tenant, { network_id: network.id, name: cloud.name('fip-norouter-port') });
    defer(`port ${port.name}`, () => deletePort(tenant, port.id));
    const fip = await createFloatingIP(tenant, { floating_network_id: ext.id });
    defer(`floating IP ${fip.floating_ip_address}`, () => deleteFloatingIP(tenant, fip.id));
    await assert.rejects(
      updateFloatingIP(tenant, fip.id, { port_id: port.id }),
      (error: unknown) => error instanceof NotFoundError && error.fault.type === 'ExternalGatewayForFloatingIPNotFound',
    );
  });

  it('quotas: admin reads and sets every region quota to -1; the region project reads but cannot set its own', async () => {
    const identity = cloud.admin.client('identity');
    const adminToken = await cloud.admin.token();
    const project = await createProject(identity, {
      name: cloud.name('quota'),
      domain_id: adminToken.project?.domain.id ?? 'default',
    });
    defer(`project ${project.name}`, () => deleteProject(identity, project.id));

    const defaults = await getNetworkQuota(admin, project.id);
    assert.ok(defaults.network > 0, 'a fresh project has finite defaults');
    const updated = await updateNetworkQuota(admin, project.id, unlimitedNetworkQuota);
    for (const [key, value] of Object.entries(unlimitedNetworkQuota)) {
      assert.equal(updated[key as keyof typeof updated], value, key);
    }
    const read = await getNetworkQuota(admin, project.id);
    assert.deepEqual(
      Object.fromEntries(Object.keys(unlimitedNetworkQuota).map((k) => [k, read[k as keyof typeof read]])),
      unlimitedNetworkQuota,
    );
    // A partial update leaves the rest alone.
    const partial = await updateNetworkQuota(admin, project.id, { port: 500 });
    assert.equal(partial.port, 500);
    assert.equal(partial.network, -1);

    const own = (await cloud.regionProject.token()).project?.id;
    assert.ok(own);
    const ownQuota = await getNetworkQuota(tenant, own);
    assert.equal(typeof ownQuota.network, 'number');
    await assert.rejects(updateNetworkQuota(tenant, own, { network: -1 }), ForbiddenError);
  });
  it("a project's default security group: made on first use, removable by an admin only", async () => {
    // A fresh project of the region's domain, so no port anyone else makes holds its default group.
    const region = cloud.region.client('identity');
    const domainID = (await cloud.region.token()).domain?.id ?? assert.fail('a domain-scoped region token');
    const project = await createProject(region, { name: cloud.name('default-sg'), domain_id: domainID });
    defer(`project ${project.name}`, () => deleteProject(region, project.id));
    const manager = cloud
      .sessionFor(cloud.regionAuth, { kind: 'project', project: { id: project.id } })
      .client('network');

    // The project's first network call makes its default group.
    const [made, ...others] = await listSecurityGroups(manager, { name: 'default' });
    assert.ok(made, 'the project has its default group');
    assert.equal(made.project_id, project.id);
    assert.deepEqual(others, []);
    await assert.rejects(
      deleteSecurityGroup(manager, made.id),
      (e: unknown) => e instanceof ConflictError && e.fault.type === 'SecurityGroupCannotRemoveDefault',
      'a manager of the project may not remove its default group',
    );

    await deleteSecurityGroup(admin, made.id);
    await assert.rejects(getSecurityGroup(admin, made.id), NotFoundError, 'an admin may');
  });

  it("a project's member tags its default group; an admin lists default groups by tag, across projects", async () => {
    // What an identity's teardown and `region gc` rely on (docs/adr/0038-leaks-snapshot-images-and-default-groups.md).
    const region = cloud.region.client('identity');
    const domainID = (await cloud.region.token()).domain?.id ?? assert.fail('a domain-scoped region token');
    const project = await createProject(region, { name: cloud.name('left-behind'), domain_id: domainID });
    defer(`project ${project.name}`, () => deleteProject(region, project.id));
    const password = `pw-${cloud.name('member')}`;
    const user = await createUser(region, { name: cloud.name('member'), domain_id: domainID, password });
    defer(`user ${user.name}`, () => deleteUser(region, user.id));
    const member = (await findRoleByName(region, 'member')) ?? assert.fail('role member');
    await grantRole(region, { userID: user.id, projectID: project.id, roleID: member.id });
    const own = cloud
      .sessionFor(
        { type: 'password', user: { id: user.id }, password },
        { kind: 'project', project: { id: project.id } },
      )
      .client('network');

    const [group] = await listSecurityGroups(own, { name: 'default' });
    assert.ok(group, 'the project has its default group');
    defer(`default group of ${project.name}`, () => deleteSecurityGroup(admin, group.id));
    const identityTag = leftBehindIdentityTag(cloud.name('identity'));
    for (const tag of [LEFT_BEHIND_TAG, identityTag]) await addTag(own, 'security-groups', group.id, tag);
    await addTag(own, 'security-groups', group.id, LEFT_BEHIND_TAG); // again: idempotent
    await assert.rejects(
      deleteSecurityGroup(own, group.id),
      (e: unknown) => e instanceof ConflictError && e.fault.type === 'SecurityGroupCannotRemoveDefault',
      'a member may tag it, not delete it',
    );

    const tagged = await listSecurityGroups(admin, { name: 'default', tags: [LEFT_BEHIND_TAG] });
    const found = tagged.find((g) => g.id === group.id) ?? assert.fail('the admin finds it by tag');
    assert.deepEqual([...found.tags].sort(), [LEFT_BEHIND_TAG, identityTag].sort());
    assert.ok(tagged.every((g) => g.name === 'default' && g.tags.includes(LEFT_BEHIND_TAG)));
    await deleteSecurityGroup(admin, group.id);
    await assert.rejects(getSecurityGroup(admin, group.id), NotFoundError);
  });
});
