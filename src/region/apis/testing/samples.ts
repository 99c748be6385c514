/**
 * Sample manifests for the region kinds: one valid object per kind, and invalid variants, each breaking one
 * validation rule. Shared by the embedded-store tests beside the schemas and the real kube-apiserver suite.
 */
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import { regionKinds } from '../index.ts';
import { API_VERSION } from '../shared.ts';

const SAMPLE_NAMESPACE = 'default';

type Json = Record<string, unknown>;

const object = (kind: string, name: string, spec: Json): KubeObject => ({
  apiVersion: API_VERSION,
  kind,
  metadata: { name, namespace: SAMPLE_NAMESPACE, labels: { 'unikorn-cloud.org/name': `sample-${kind.toLowerCase()}` } },
  spec,
});

const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ca@example';

export const validSamples: Readonly<Record<string, KubeObject>> = {
  Region: object('Region', 'c0a8f0e2-5b4e-4c5b-9c43-5d1a2b3c4d5e', {
    provider: 'openstack',
    security: { organizations: [{ id: 'org-1' }] },
    openstack: {
      endpoint: 'https://keystone.example.com:5000/v3',
      serviceAccountSecret: { namespace: 'unikorn-region', name: 'region-credentials' },
      identity: { clusterRoles: ['member', 'load-balancer_member'] },
      compute: {
        serverGroupPolicy: 'soft-anti-affinity',
        placementPreflight: { enabled: true, requiredTraits: ['CUSTOM_GPU'] },
        flavors: {
          selector: { ids: ['f1'] },
          metadata: [
            {
              id: 'f1',
              baremetal: true,
              cpu: { architecture: 'aarch64', count: 64 },
              memory: '512Gi',
              gpu: { vendor: 'NVIDIA', model: 'H100', memory: '80Gi', physicalCount: 8, logicalCount: 8 },
            },
          ],
        },
      },
      image: { selector: { signingKey: 'LS0tLS1CRUdJTg==' } },
      network: {
        externalNetworks: { selector: { tags: ['external'] } },
        providerNetworks: { physicalNetwork: 'physnet1', vlan: { segments: [{ startId: 100, endId: 199 }] } },
      },
      blockStorage: {
        volumeClasses: {
          metadata: [{ id: 'vt1', media: 'nvme', performance: { maxIOPS: 10000 }, encrypted: true }],
        },
      },
    },
  }),
  Identity: object('Identity', 'a1b2c3d4-0000-4000-8000-000000000001', {
    provider: 'openstack',
    tags: [{ name: 'team', value: 'platform' }],
  }),
  OpenstackIdentity: object('OpenstackIdentity', 'a1b2c3d4-0000-4000-8000-000000000001', {
    cloud: 'cloud',
    cloudConfig: 'Y2xvdWRzOiB7fQ==',
    userID: 'u1',
    projectID: 'p1',
  }),
  Network: object('Network', 'a1b2c3d4-0000-4000-8000-000000000002', {
    prefix: '192.168.0.0/24',
    reservations: {},
    dnsNameservers: ['8.8.8.8'],
    routes: [{ prefix: '10.0.0.0/8', nextHop: '192.168.0.254' }],
  }),
  SecurityGroup: object('SecurityGroup', 'a1b2c3d4-0000-4000-8000-000000000003', {
    rules: [
      { direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' },
      { direction: 'ingress', protocol: 'udp', port: { range: { start: 1000, end: 2000 } } },
      { direction: 'egress', protocol: 'any' },
    ],
  }),
  Server: object('Server', 'a1b2c3d4-0000-4000-8000-000000000004', {
    flavorID: 'f1',
    image: { id: 'i1' },
    securityGroups: [{ id: 'a1b2c3d4-0000-4000-8000-000000000003' }],
    publicIPAllocation: { enabled: true },
    networks: [{ id: 'n1', allowedAddressPairs: [{ cidr: '10.1.0.0/16', macAddress: 'fa:16:3e:00:00:01' }] }],
    volumes: [{ id: 'v1' }],
    sshCertificateAuthorityID: 'ca1',
    sshInjection: 'ca',
    userData: 'I2Nsb3VkLWNvbmZpZw==',
  }),
  Volume: object('Volume', 'a1b2c3d4-0000-4000-8000-000000000005', {
    networkID: 'n1',
    volumeClassID: 'vt1',
    size: '10Gi',
    claimRef: { kind: 'Server', id: 's1' },
  }),
  LoadBalancer: object('LoadBalancer', 'a1b2c3d4-0000-4000-8000-000000000006', {
    requestedVIPAddress: '192.168.0.10',
    publicIP: true,
    listeners: [
      {
        name: 'http',
        protocol: 'tcp',
        port: 80,
        allowedCIDRs: ['0.0.0.0/0'],
        idleTimeoutSeconds: 60,
        pool: {
          proxyProtocolV2: false,
          members: [
            { address: '192.168.0.20', port: 8080 },
            { address: '192.168.0.21', port: 8080 },
          ],
          healthCheck: { intervalSeconds: 10, timeoutSeconds: 5, healthyThreshold: 2, unhealthyThreshold: 3 },
        },
      },
      { name: 'dns', protocol: 'udp', port: 53, pool: { members: [{ address: '192.168.0.30', port: 53 }] } },
    ],
  }),
  VLANAllocation: object('VLANAllocation', 'openstack.c0a8f0e2-5b4e-4c5b-9c43-5d1a2b3c4d5e', {
    allocations: [{ id: 100, physicalNetworkID: 'a1b2c3d4-0000-4000-8000-000000000002' }],
  }),
  SSHCertificateAuthority: object('SSHCertificateAuthority', 'a1b2c3d4-0000-4000-8000-000000000007', {
    publicKey: SSH_KEY,
  }),
};

/** Fields the server fills in for the valid samples: their defaults. */
export const expectedDefaults: Readonly<Record<string, Json>> = {
  Region: { 'openstack.defaultArchitecture': 'x86_64' },
  Network: { 'reservations.prefixLength': 25, 'reservations.providerReservedPrefixLength': 28 },
  VLANAllocation: {},
};

interface InvalidSample {
  readonly title: string;
  readonly kind: string;
  /** The spec to write: on create, or (with `update`) on an update of the valid sample. */
  readonly spec: Json;
  readonly update?: boolean;
  /** The field the error names, as the embedded store reports it. */
  readonly field: string;
  /** Needs CEL (x-kubernetes-validations): kube-apiserver 1.20 does not enforce it. */
  readonly cel: boolean;
}

/** The valid sample's spec with `path` (dot-separated, numeric segments index arrays) set; undefined deletes. */
function withField(kind: string, path: string, value: unknown): Json {
  const spec = structuredClone(validSamples[kind]?.spec) as Json;
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let at: Json = spec;
  for (const k of keys) {
    at[k] ??= {};
    at = at[k] as Json;
  }
  if (value === undefined) Reflect.deleteProperty(at, last);
  else at[last] = value;
  return spec;
}

const rule = (
  title: string,
  kind: string,
  path: string,
  value: unknown,
  field: string,
  cel = false,
): InvalidSample => ({
  title,
  kind,
  spec: withField(kind, path, value),
  field,
  cel,
});
const transition = (title: string, kind: string, path: string, value: unknown, field: string): InvalidSample => ({
  ...rule(title, kind, path, value, field, true),
  update: true,
});

function pinnedWithIdentityKeypair(): Json {
  const spec = withField('Server', 'infrastructureRef', 'host-1');
  delete spec.sshCertificateAuthorityID;
  return { ...spec, sshInjection: 'identityKeypair' };
}

/** Pinned, no mode and no CA: the mode resolves to identityKeypair. */
function pinnedWithDefaultMode(): Json {
  const spec = withField('Server', 'infrastructureRef', 'host-1');
  delete spec.sshCertificateAuthorityID;
  delete spec.sshInjection;
  return spec;
}

const member = (address: string, port: number) => ({ address, port });

export const invalidSamples: readonly InvalidSample[] = [
  rule('VLAN ID 0 is reserved', 'VLANAllocation', 'allocations.0.id', 0, 'spec.allocations[0].id'),
  rule('VLAN ID 4095 is reserved', 'VLANAllocation', 'allocations.0.id', 4095, 'spec.allocations[0].id'),
  rule(
    'allocation needs a network',
    'VLANAllocation',
    'allocations.0.physicalNetworkID',
    undefined,
    'spec.allocations[0].physicalNetworkID',
  ),
  rule(
    'VLAN IDs are unique',
    'VLANAllocation',
    'allocations',
    [
      { id: 7, physicalNetworkID: 'a' },
      { id: 7, physicalNetworkID: 'b' },
    ],
    'spec.allocations[1]',
  ),

  rule('provider is an enum', 'Region', 'provider', 'aws', 'spec.provider'),
  rule('openstack provider needs openstack', 'Region', 'openstack', undefined, 'spec', true),
  rule('kubernetes provider needs kubernetes', 'Region', 'provider', 'kubernetes', 'spec', true),
  rule('endpoint is required', 'Region', 'openstack.endpoint', undefined, 'spec.openstack.endpoint'),
  rule(
    'architecture is an enum',
    'Region',
    'openstack.defaultArchitecture',
    'arm',
    'spec.openstack.defaultArchitecture',
  ),
  rule(
    'server group policy is an enum',
    'Region',
    'openstack.compute.serverGroupPolicy',
    'spread',
    'spec.openstack.compute.serverGroupPolicy',
  ),
  rule(
    'GPU vendor is an enum',
    'Region',
    'openstack.compute.flavors.metadata.0.gpu.vendor',
    'Intel',
    'spec.openstack.compute.flavors.metadata[0].gpu.vendor',
  ),
  rule(
    'media is an enum',
    'Region',
    'openstack.blockStorage.volumeClasses.metadata.0.media',
    'tape',
    'spec.openstack.blockStorage.volumeClasses.metadata[0].media',
  ),
  rule(
    'VLAN segment within 1-4094',
    'Region',
    'openstack.network.providerNetworks.vlan.segments',
    [{ startId: 1, endId: 5000 }],
    'spec.openstack.network.providerNetworks.vlan.segments[0].endId',
  ),
  rule(
    'VLAN segment start <= end',
    'Region',
    'openstack.network.providerNetworks.vlan.segments',
    [{ startId: 200, endId: 100 }],
    'spec.openstack.network.providerNetworks.vlan.segments[0]',
    true,
  ),

  rule('identity provider is required', 'Identity', 'provider', undefined, 'spec.provider'),
  rule('identity provider is an enum', 'Identity', 'provider', 'gcp', 'spec.provider'),
  rule('tag needs a name', 'Identity', 'tags', [{ name: '', value: 'x' }], 'spec.tags[0].name'),

  rule('cloudConfig is base64', 'OpenstackIdentity', 'cloudConfig', 'not base64!', 'spec.cloudConfig'),

  rule('prefix is an IPv4 CIDR', 'Network', 'prefix', '192.168.0.0', 'spec.prefix'),
  rule('prefix octets have no leading zeros', 'Network', 'prefix', '010.050.000.000/24', 'spec.prefix'),
  rule('prefix has no host bits set', 'Network', 'prefix', '192.168.0.5/24', 'spec.prefix', true),
  rule('prefix is no larger than a /8', 'Network', 'prefix', '0.0.0.0/0', 'spec.prefix', true),
  rule('prefix is no smaller than a /24', 'Network', 'prefix', '192.168.0.0/29', 'spec.prefix', true),
  rule('route prefixes have no leading zeros', 'Network', 'routes.0.prefix', '10.0.0.00/8', 'spec.routes[0].prefix'),
  rule(
    'reservation prefix length at most 30',
    'Network',
    'reservations.prefixLength',
    31,
    'spec.reservations.prefixLength',
  ),
  rule('nameservers are IPv4', 'Network', 'dnsNameservers', ['dns.example.com'], 'spec.dnsNameservers[0]'),
  rule('route next hop is IPv4', 'Network', 'routes.0.nextHop', '192.168.0', 'spec.routes[0].nextHop'),
  rule(
    'reservation longer than the prefix',
    'Network',
    'reservations.prefixLength',
    24,
    'spec.reservations.prefixLength',
    true,
  ),
  rule(
    'provider reservation within the reservation',
    'Network',
    'reservations',
    { prefixLength: 26, providerReservedPrefixLength: 25 },
    'spec.reservations',
    true,
  ),
  transition('prefix is immutable', 'Network', 'prefix', '10.0.0.0/24', 'spec.prefix'),
  transition('reservations are immutable', 'Network', 'reservations', { prefixLength: 26 }, 'spec.reservations'),

  rule('direction is an enum', 'SecurityGroup', 'rules.0.direction', 'inbound', 'spec.rules[0].direction'),
  rule('protocol is an enum', 'SecurityGroup', 'rules.0.protocol', 'sctp', 'spec.rules[0].protocol'),
  rule('port within 1-65535', 'SecurityGroup', 'rules.0.port.number', 0, 'spec.rules[0].port.number'),
  rule('cidr is an IPv4 CIDR', 'SecurityGroup', 'rules.0.cidr', '0.0.0.0/33', 'spec.rules[0].cidr'),
  rule(
    'port range start <= end',
    'SecurityGroup',
    'rules.1.port.range',
    { start: 2000, end: 1000 },
    'spec.rules[1].port.range',
    true,
  ),
  rule(
    'number or range, not both',
    'SecurityGroup',
    'rules.0.port',
    { number: 22, range: { start: 1, end: 2 } },
    'spec.rules[0].port',
    true,
  ),
  rule('ports need tcp or udp', 'SecurityGroup', 'rules.0.protocol', 'icmp', 'spec.rules[0].port', true),

  rule('flavor is required', 'Server', 'flavorID', undefined, 'spec.flavorID'),
  rule('a server needs a network', 'Server', 'networks', [], 'spec.networks'),
  rule('sshInjection is an enum', 'Server', 'sshInjection', 'password', 'spec.sshInjection'),
  rule(
    'MAC address format',
    'Server',
    'networks.0.allowedAddressPairs.0.macAddress',
    'fa:16:3e',
    'spec.networks[0].allowedAddressPairs[0].macAddress',
  ),
  rule('userData is base64', 'Server', 'userData', '#cloud-config', 'spec.userData'),
  rule('identityKeypair excludes a CA', 'Server', 'sshInjection', 'identityKeypair', 'spec.sshInjection', true),
  {
    ...rule('pinned servers exclude identityKeypair', 'Server', 'infrastructureRef', 'h', 'spec.sshInjection', true),
    spec: pinnedWithIdentityKeypair(),
  },
  rule('ca needs a CA', 'Server', 'sshCertificateAuthorityID', undefined, 'spec.sshInjection', true),
  rule('none excludes a CA', 'Server', 'sshInjection', 'none', 'spec.sshInjection', true),
  {
    ...rule(
      'pinned servers exclude the keypair default',
      'Server',
      'infrastructureRef',
      'h',
      'spec.sshInjection',
      true,
    ),
    spec: pinnedWithDefaultMode(),
  },
  transition('flavor is immutable', 'Server', 'flavorID', 'f2', 'spec.flavorID'),
  transition('infrastructureRef is immutable', 'Server', 'infrastructureRef', 'host-2', 'spec.infrastructureRef'),

  rule('size is required', 'Volume', 'size', undefined, 'spec.size'),
  rule('size is a quantity', 'Volume', 'size', '10 GB', 'spec.size'),
  rule('volume class is required', 'Volume', 'volumeClassID', undefined, 'spec.volumeClassID'),
  rule('claims are by servers', 'Volume', 'claimRef.kind', 'LoadBalancer', 'spec.claimRef.kind'),

  rule('at least one listener', 'LoadBalancer', 'listeners', [], 'spec.listeners'),
  rule('listener name is a DNS label', 'LoadBalancer', 'listeners.0.name', 'HTTP', 'spec.listeners[0].name'),
  rule('listener protocol is an enum', 'LoadBalancer', 'listeners.0.protocol', 'http', 'spec.listeners[0].protocol'),
  rule('listener port within 1-65535', 'LoadBalancer', 'listeners.0.port', 70000, 'spec.listeners[0].port'),
  rule(
    'idle timeout within 1-86400',
    'LoadBalancer',
    'listeners.0.idleTimeoutSeconds',
    0,
    'spec.listeners[0].idleTimeoutSeconds',
  ),
  rule(
    'allowed CIDRs are IPv4 CIDRs',
    'LoadBalancer',
    'listeners.0.allowedCIDRs',
    ['any'],
    'spec.listeners[0].allowedCIDRs[0]',
  ),
  rule('VIP is IPv4', 'LoadBalancer', 'requestedVIPAddress', '::1', 'spec.requestedVIPAddress'),
  rule(
    'health check interval within 1-300',
    'LoadBalancer',
    'listeners.0.pool.healthCheck.intervalSeconds',
    301,
    'spec.listeners[0].pool.healthCheck.intervalSeconds',
  ),
  rule(
    'idle timeout is TCP only',
    'LoadBalancer',
    'listeners.1.idleTimeoutSeconds',
    30,
    'spec.listeners[1].idleTimeoutSeconds',
    true,
  ),
  rule(
    'health check timeout < interval',
    'LoadBalancer',
    'listeners.0.pool.healthCheck.timeoutSeconds',
    10,
    'spec.listeners[0].pool.healthCheck.timeoutSeconds',
    true,
  ),
  rule(
    'members unique',
    'LoadBalancer',
    'listeners.0.pool.members',
    [member('192.168.0.20', 80), member('192.168.0.20', 80)],
    'spec.listeners[0].pool.members[1]',
  ),
  rule('listener names unique', 'LoadBalancer', 'listeners.1.name', 'http', 'spec.listeners', true),
  rule(
    'at most 32 listeners',
    'LoadBalancer',
    'listeners',
    Array.from({ length: 33 }, (_, i) => ({
      name: `l${String(i)}`,
      protocol: 'tcp',
      port: 1000 + i,
      pool: { members: [] },
    })),
    'spec.listeners',
  ),
  rule(
    'listener protocol and port unique',
    'LoadBalancer',
    'listeners.1',
    { name: 'b', protocol: 'tcp', port: 80, pool: { members: [] } },
    'spec.listeners',
    true,
  ),

  rule('public key is OpenSSH', 'SSHCertificateAuthority', 'publicKey', '-----BEGIN PUBLIC KEY-----', 'spec.publicKey'),
  rule('public key is required', 'SSHCertificateAuthority', 'publicKey', undefined, 'spec.publicKey'),
];

export function sampleType(kind: string): ResourceType {
  const found = regionKinds.find((k) => k.type.kind === kind);
  if (found === undefined) throw new Error(`no region kind ${kind}`);
  return found.type;
}

/** The valid sample of `kind` with another spec. */
export function withSpec(kind: string, spec: Json): KubeObject {
  const base = validSamples[kind];
  if (base === undefined) throw new Error(`no sample for ${kind}`);
  return { ...base, spec };
}
