/**
 * The dev cloud's fixtures (scripts/devcloud.py), made in an emulator through the ordinary OpenStack APIs with
 * openregion's own client, as an admin would on a real cloud. The names are the contract the suite relies on.
 */
import { systemClock } from '../../src/util/clock.ts';
import { Emulator } from '../../src/emulator/emulator.ts';
import { createImage, uploadImageData, type ImageClient } from '../../src/openstack/image.ts';
import { ensureRole, grantRole, type IdentityClient } from '../../src/openstack/identity.ts';
import { stringify } from 'yaml';
import { cloudsEntries } from '../../src/region/registration/clouds-entry.ts';
import { configureRegion, planFor } from '../../src/region/registration/configure.ts';
import type { RegionCredentials } from '../../src/region/registration/credentials.ts';
import { passwordWorks } from '../../src/region/registration/sessions.ts';
import type { BlockStorageClient } from '../../src/openstack/blockstorage.ts';
import type { ComputeClient } from '../../src/openstack/compute.ts';
import { createNetwork, createSubnet, type NetworkClient } from '../../src/openstack/network.ts';
import { Session } from '../../src/openstack/session.ts';
import { Transport } from '../../src/openstack/transport.ts';

const PASSWORD = 'secret';

/** Custom properties the region service validates on its images (devcloud.py IMAGES). */
const IMAGES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'or-image-a': {
    'unikorn:os:kernel': 'linux',
    'unikorn:os:family': 'debian',
    'unikorn:os:distro': 'ubuntu',
    'unikorn:os:version': '24.04',
    'unikorn:os:codename': 'noble',
    'unikorn:os:variant': 'server',
    'unikorn:virtualization': 'virtualized',
    'unikorn:package:kubernetes': 'v1.30.2',
    architecture: 'x86_64',
  },
  'or-image-b': {
    'unikorn:os:kernel': 'linux',
    'unikorn:os:family': 'redhat',
    'unikorn:os:distro': 'rocky',
    'unikorn:os:version': '9.4',
    'unikorn:virtualization': 'any',
    architecture: 'x86_64',
  },
  'or-image-deactivated': {
    'unikorn:os:kernel': 'linux',
    'unikorn:os:family': 'debian',
    'unikorn:os:distro': 'debian',
    'unikorn:os:version': '12',
    'unikorn:os:codename': 'bookworm',
    'unikorn:virtualization': 'virtualized',
    architecture: 'x86_64',
  },
};

const FLAVORS: readonly [string, number, number, number, Readonly<Record<string, string>>][] = [
  ['or.small', 1, 512, 1, {}],
  [
    'or.pinned',
    2,
    1024,
    1,
    {
      'resources:CUSTOM_BAREMETAL_GOLD': '1',
      'trait:CUSTOM_GOLD': 'required',
      'trait:CUSTOM_MAINTENANCE': 'forbidden',
    },
  ],
  [
    'or.baremetal',
    1,
    1024,
    10,
    {
      'resources:CUSTOM_BAREMETAL': '1',
      'resources:VCPU': '0',
      'resources:MEMORY_MB': '0',
      'resources:DISK_GB': '0',
    },
  ],
];

/** Seeds a running emulator; returns the region's credentials once every fixture exists. */
export async function seedEmulator(emulator: Emulator): Promise<RegionCredentials> {
  const transport = new Transport({ clock: systemClock, random: Math.random });
  const admin = new Session<'project'>({
    authUrl: emulator.authUrl,
    auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: PASSWORD },
    scope: { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
    transport,
    clock: systemClock,
    region: 'RegionOne',
  });
  try {
    const identity = admin.client('identity');
    await seedRoles(identity, (await admin.token()).user.id, (await admin.token()).project?.id ?? '');
    // The region's scaffolding the way the dev cloud makes it: `openregion region configure`'s core.
    const { credentials } = await configureRegion(planFor('openregion'), PASSWORD, {
      identity,
      authUrl: emulator.authUrl,
      regionName: 'RegionOne',
      authenticates: (userID, password) =>
        passwordWorks(emulator.authUrl, userID, password, { transport, clock: systemClock }),
      newPassword: () => {
        throw new Error('the seed supplies the password');
      },
    });
    await seedFlavors(admin.client('compute'));
    await seedImages(admin.client('image'));
    await seedNetwork(admin.client('network'));
    await seedVolumeTypes(admin.client('block-storage'));
    return credentials;
  } finally {
    await transport.close();
  }
}

/** The roles the region's grants name (devcloud.py seed_identity). */
async function seedRoles(identity: IdentityClient, adminUserID: string, adminProjectID: string): Promise<void> {
  const role = (name: string) => ensureRole(identity, name);
  for (const name of ['manager', 'load-balancer_member', 'load-balancer_admin', 'creator', 'service']) await role(name);
  await grantRole(identity, {
    userID: adminUserID,
    projectID: adminProjectID,
    roleID: await role('load-balancer_admin'),
  });
}

async function seedFlavors(compute: ComputeClient): Promise<void> {
  for (const [name, vcpus, ram, disk, specs] of FLAVORS) {
    const { body } = await compute.request<{ flavor: { id: string } }>({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name, vcpus, ram, disk, 'os-flavor-access:is_public': true } },
    });
    if (Object.keys(specs).length > 0) {
      await compute.request({
        method: 'POST',
        path: '/flavors/{flavor_id}/os-extra_specs',
        params: { flavor_id: body.flavor.id },
        body: { extra_specs: specs },
      });
    }
  }
}

async function seedImages(glance: ImageClient): Promise<void> {
  for (const [name, properties] of Object.entries(IMAGES)) {
    const image = await createImage(glance, {
      name,
      disk_format: 'raw',
      container_format: 'bare',
      visibility: 'public',
      properties,
    });
    await uploadImageData(glance, image.id, `openregion devcloud ${name}\n`.repeat(128));
    if (name === 'or-image-deactivated') {
      await glance.request({
        method: 'POST',
        path: '/images/{image_id}/actions/deactivate',
        params: { image_id: image.id },
      });
    }
  }
}

/** The external network floating IPs and router gateways use (devcloud.py seed_network). */
async function seedNetwork(neutron: NetworkClient): Promise<void> {
  const network = await createNetwork(neutron, {
    name: 'or-external',
    'provider:network_type': 'flat',
    'provider:physical_network': 'public',
    'router:external': true,
    shared: false,
  });
  await createSubnet(neutron, {
    name: 'or-external-subnet',
    network_id: network.id,
    ip_version: 4,
    cidr: '203.0.113.0/24',
    gateway_ip: '203.0.113.1',
    enable_dhcp: false,
  });
}

/** The public volume types VolumeClass inventory selects from (devcloud.py VOLUME_TYPES). */
async function seedVolumeTypes(cinder: BlockStorageClient): Promise<void> {
  for (const name of ['or-standard', 'or-fast']) {
    await cinder.request({
      method: 'POST',
      path: '/types',
      body: { volume_type: { name, 'os-volume-type-access:is_public': true } },
    });
  }
}

/**
 * The clouds the suite reads, as `openregion devcloud up` writes them, pointing at the emulator: the admin entry,
 * and the region's entries as `region configure --clouds-yaml` writes them.
 */
export function contractCloudsYaml(emulator: Emulator, region: RegionCredentials): string {
  const admin = {
    auth: {
      auth_url: emulator.authUrl,
      username: 'admin',
      password: PASSWORD,
      user_domain_name: 'Default',
      project_name: 'admin',
      project_domain_name: 'Default',
    },
    region_name: 'RegionOne',
    identity_api_version: '3',
  };
  return stringify({ clouds: { 'devcloud-admin': admin, ...cloudsEntries('devcloud-region', region) } });
}
