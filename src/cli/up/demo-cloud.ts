/**
 * The demo region's cloud, made in the built-in emulator through the ordinary OpenStack APIs as a cloud admin would
 * on a real cloud: the roles the region's grants name, public flavors, images carrying the properties the region
 * service validates, an external network for routers and floating IPs, and public volume types. Octavia is one of
 * the emulator's services already. Every step looks before it makes, so seeding a resumed (persistent) cloud, or
 * one a crash left half-seeded, changes nothing that is there and adds only what is missing.
 */
import { createVolumeType, listVolumeTypes, type BlockStorageClient } from '../../openstack/blockstorage.ts';
import { createFlavor, listFlavors, type ComputeClient } from '../../openstack/compute.ts';
import { createImage, findImageByName, uploadImageData, type ImageClient } from '../../openstack/image.ts';
import { ensureRole, grantRole, type IdentityClient } from '../../openstack/identity.ts';
import {
  createNetwork,
  createSubnet,
  findNetworkByName,
  findSubnetByName,
  type NetworkClient,
} from '../../openstack/network.ts';
import type { Session } from '../../openstack/session.ts';

const LINUX = { 'unikorn:os:kernel': 'linux', 'unikorn:virtualization': 'virtualized', architecture: 'x86_64' };

const DEMO_IMAGES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'ubuntu-24.04': {
    ...LINUX,
    'unikorn:os:family': 'debian',
    'unikorn:os:distro': 'ubuntu',
    'unikorn:os:version': '24.04',
    'unikorn:os:codename': 'noble',
  },
  'debian-12': {
    ...LINUX,
    'unikorn:os:family': 'debian',
    'unikorn:os:distro': 'debian',
    'unikorn:os:version': '12',
    'unikorn:os:codename': 'bookworm',
  },
};

/** name, vCPUs, RAM MiB, disk GB. */
const DEMO_FLAVORS: readonly (readonly [string, number, number, number])[] = [
  ['demo.small', 1, 2048, 20],
  ['demo.medium', 2, 4096, 40],
];

const DEMO_VOLUME_TYPES = ['demo-standard', 'demo-fast'] as const;

interface DemoCloud {
  readonly volumeTypeIDs: readonly string[];
}

/** Seeds an emulator through an admin session, converging: what is there already stays as it is. */
export async function seedDemoCloud(admin: Session<'project'>): Promise<DemoCloud> {
  const token = await admin.token();
  await seedRoles(admin.client('identity'), token.user.id, token.project?.id ?? '');
  await seedFlavors(admin.client('compute'));
  await seedImages(admin.client('image'));
  await seedExternalNetwork(admin.client('network'));
  return { volumeTypeIDs: await seedVolumeTypes(admin.client('block-storage')) };
}

async function seedRoles(identity: IdentityClient, adminUserID: string, adminProjectID: string): Promise<void> {
  const role = (name: string) => ensureRole(identity, name);
  for (const name of ['member', 'reader', 'manager', 'load-balancer_member', 'load-balancer_admin']) await role(name);
  await grantRole(identity, {
    userID: adminUserID,
    projectID: adminProjectID,
    roleID: await role('load-balancer_admin'),
  });
}

async function seedFlavors(compute: ComputeClient): Promise<void> {
  const present = new Set((await listFlavors(compute, { isPublic: 'all' })).map((f) => f.name));
  for (const [name, vcpus, ram, disk] of DEMO_FLAVORS) {
    if (present.has(name)) continue;
    await createFlavor(compute, { name, vcpus, ram, disk, 'os-flavor-access:is_public': true });
  }
}

async function seedImages(glance: ImageClient): Promise<void> {
  for (const [name, properties] of Object.entries(DEMO_IMAGES)) {
    const image =
      (await findImageByName(glance, name)) ??
      (await createImage(glance, {
        name,
        disk_format: 'raw',
        container_format: 'bare',
        visibility: 'public',
        properties,
      }));
    if (image.status === 'queued')
      await uploadImageData(glance, image.id, `openregion demo image ${name}\n`.repeat(64));
  }
}

async function seedExternalNetwork(neutron: NetworkClient): Promise<void> {
  const network =
    (await findNetworkByName(neutron, 'public')) ??
    (await createNetwork(neutron, {
      name: 'public',
      'provider:network_type': 'flat',
      'provider:physical_network': 'public',
      'router:external': true,
      shared: false,
    }));
  if ((await findSubnetByName(neutron, 'public-subnet')) !== undefined) return;
  await createSubnet(neutron, {
    name: 'public-subnet',
    network_id: network.id,
    ip_version: 4,
    cidr: '203.0.113.0/24',
    gateway_ip: '203.0.113.1',
    enable_dhcp: false,
  });
}

async function seedVolumeTypes(cinder: BlockStorageClient): Promise<string[]> {
  const present = new Map((await listVolumeTypes(cinder)).map((t) => [t.name, t.id]));
  const ids: string[] = [];
  for (const name of DEMO_VOLUME_TYPES) {
    const id = present.get(name);
    if (id !== undefined) {
      ids.push(id);
      continue;
    }
    ids.push((await createVolumeType(cinder, { name, 'os-volume-type-access:is_public': true })).id);
  }
  return ids;
}
