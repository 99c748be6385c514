/**
 * The world the compatibility test sends upstream's requests into: the API over the embedded store with a region
 * whose flavors and images have UUID ids (as upstream's schema types them), fake server actions, and one of each
 * resource made through the API itself, v1's and v2's apart, so every path parameter names something real.
 */
import { API_VERSION, openstackIdentityType, serverType } from '../../apis/index.ts';
import type { Image } from '../../provider/types.ts';
import { tenancyOf } from '../resources/meta.ts';
import type { Capabilities, ServerActions } from '../context.ts';
import {
  allCapabilities,
  apiFixture,
  call,
  IMAGES,
  inventoryOver,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  type ApiFixture,
} from './api.ts';

export const UPSTREAM_FLAVOR = '9a8c6370-4065-4d4a-9da0-7678df40cd9d';
export const UPSTREAM_IMAGE = 'a64f9269-36e0-4312-b8d1-52d93d569b7b';
const SSH_CA = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ca@example';

export interface UpstreamWorld {
  readonly f: ApiFixture;
  /** The ids path parameters take: v2's objects, and v1's (made under `identity`). */
  readonly v2: {
    readonly network: string;
    readonly securityGroup: string;
    /** A group no server names, for the delete (a group in use is refused, ADR 0050). */
    readonly unusedSecurityGroup: string;
    readonly server: string;
  };
  readonly v1: {
    readonly identity: string;
    readonly network: string;
    readonly securityGroup: string;
    readonly server: string;
  };
  readonly loadBalancer: string;
  readonly sshCertificateAuthority: string;
  /** An image the organization uploaded (its own, so it may delete it). */
  readonly ownImage: string;
}

const images: Image[] = [
  { ...(IMAGES[0] as Image), id: UPSTREAM_IMAGE, name: 'ubuntu-24-04' },
  {
    ...(IMAGES[0] as Image),
    id: '0d1c4a3e-6f5b-4e2a-8c9d-000000000002',
    name: 'rocky-9',
    packages: { kubernetes: 'v1.31.2' },
  },
];

const actions: ServerActions = {
  start: () => Promise.resolve(),
  stop: () => Promise.resolve(),
  reboot: () => Promise.resolve(),
  consoleSession: () => Promise.resolve('https://console.example.com/vnc_lite.html?path=%3Ftoken%3Dt'),
  consoleOutput: () => Promise.resolve('Linux version 6.8.0\n'),
  snapshot: (name) =>
    Promise.resolve({
      ...(images[0] as Image),
      id: '5e1d0c9b-8a7f-4e6d-9c5b-000000000003',
      name,
      organizationID: ORG_A,
      status: 'pending',
    }),
};

export async function upstreamWorld(overrides: Parameters<typeof apiFixture>[1] = {}): Promise<UpstreamWorld> {
  let next = 0;
  const inventory = inventoryOver(
    images,
    [
      {
        id: UPSTREAM_FLAVOR,
        name: 'g.4.standard',
        architecture: 'x86_64',
        cpus: 4,
        memoryBytes: 2 ** 34,
        diskBytes: 20 * 2 ** 30,
        baremetal: false,
        pinnedOnly: false,
      },
    ],
    () => `7f3e2d1c-0b9a-4c8d-8e7f-${String(++next).padStart(12, '0')}`,
  );
  const capabilities: Capabilities = {
    ...allCapabilities,
    inventory: (regionID) =>
      regionID === REGION_ID ? Promise.resolve(inventory) : Promise.reject(new Error('no region')),
    serverActions: () => Promise.resolve(actions),
  };
  const f = await apiFixture(capabilities, overrides);
  const made = async (path: string, payload: unknown): Promise<string> => {
    const { status, body } = await call<{ metadata: { id: string } }>(f, f.tokens.a, 'POST', path, payload);
    if (status !== 201 && status !== 200)
      throw new Error(`world: POST ${path} answered ${String(status)} ${JSON.stringify(body)}`);
    return body.metadata.id;
  };
  const network = await made('/api/v2/networks', {
    metadata: { name: 'world' },
    spec: {
      organizationId: ORG_A,
      projectId: PROJECT_A,
      regionId: REGION_ID,
      prefix: '192.168.10.0/24',
      dnsNameservers: [],
    },
  });
  const securityGroup = await made('/api/v2/securitygroups', {
    metadata: { name: 'world' },
    spec: { networkId: network, rules: [] },
  });
  const unusedSecurityGroup = await made('/api/v2/securitygroups', {
    metadata: { name: 'unused' },
    spec: { networkId: network, rules: [] },
  });
  const server = await made('/api/v2/servers', {
    metadata: { name: 'world' },
    spec: {
      networkId: network,
      flavorId: UPSTREAM_FLAVOR,
      imageId: UPSTREAM_IMAGE,
      networking: { securityGroups: [securityGroup] },
    },
  });
  // The server's identity keypair, as the identity controller records it (the sshkey route reads it).
  const stored = await f.store.get(serverType, NAMESPACE, server);
  await f.store.create(openstackIdentityType, {
    apiVersion: API_VERSION,
    kind: 'OpenstackIdentity',
    metadata: { name: tenancyOf(stored).identityID, namespace: NAMESPACE },
    spec: {
      sshKeyName: 'unikorn-openstack-provider',
      sshPrivateKey: Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\n').toString('base64'),
    },
  });
  const loadBalancer = await made('/api/v2/loadbalancers', {
    metadata: { name: 'web-lb' },
    spec: { networkId: network, listeners: [{ name: 'http', protocol: 'tcp', port: 80, pool: { members: [] } }] },
  });
  const sshCertificateAuthority = await made('/api/v2/sshcertificateauthorities', {
    metadata: { name: 'world' },
    spec: { organizationId: ORG_A, projectId: PROJECT_A, publicKey: SSH_CA },
  });
  const project = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}`;
  const identity = await made(`${project}/identities`, { metadata: { name: 'world' }, spec: { regionId: REGION_ID } });
  const base = `${project}/identities/${identity}`;
  const v1Network = await made(`${base}/networks`, {
    metadata: { name: 'world' },
    spec: { prefix: '10.20.0.0/24', dnsNameservers: [] },
  });
  const v1SecurityGroup = await made(`${base}/securitygroups`, { metadata: { name: 'world' }, spec: { rules: [] } });
  const v1Server = await made(`${base}/servers`, {
    metadata: { name: 'world' },
    spec: {
      flavorId: UPSTREAM_FLAVOR,
      imageId: UPSTREAM_IMAGE,
      networks: [{ id: v1Network }],
      securityGroups: [{ id: v1SecurityGroup }],
    },
  });
  const ownImage = await made(`/api/v1/organizations/${ORG_A}/regions/${REGION_ID}/images`, {
    metadata: { name: 'own' },
    spec: {
      uri: 'https://images.example.com/own.raw',
      architecture: 'x86_64',
      virtualization: 'virtualized',
      os: { kernel: 'linux', family: 'debian', distro: 'ubuntu', version: '24.04' },
    },
  });
  return {
    f,
    v2: { network, securityGroup, unusedSecurityGroup, server },
    v1: { identity, network: v1Network, securityGroup: v1SecurityGroup, server: v1Server },
    loadBalancer,
    sshCertificateAuthority,
    ownImage,
  };
}

/** A cluster reference, for the paths that name one. */
const REFERENCE = 'clusters.kubernetes.unikorn-cloud.org/2b7c8d3e-1f6a-4c55-9d3e-000000000001';

/** The world's id for each path parameter, on v1's paths (`/api/v1/…`) or v2's. */
export function pathValuesOf(w: UpstreamWorld, path: string): Record<string, string> {
  const v1 = path.startsWith('/api/v1/');
  const own = v1 ? w.v1 : w.v2;
  return {
    organizationID: ORG_A,
    projectID: PROJECT_A,
    regionID: REGION_ID,
    identityID: w.v1.identity,
    networkID: own.network,
    securityGroupID: own.securityGroup,
    serverID: own.server,
    loadBalancerID: w.loadBalancer,
    sshCertificateAuthorityID: w.sshCertificateAuthority,
    imageID: w.ownImage,
    reference: REFERENCE,
  };
}
