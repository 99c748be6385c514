/** Networks as upstream's v1 API writes and reads them (`networkWrite`, `networkRead`): one identity's network. */
import Type from 'typebox';
import { Ipv4Address, Ipv4Prefix, ProjectScopedResourceReadMetadata, ResourceWriteMetadata } from './common.ts';

const DnsNameservers = Type.Array(Ipv4Address('A nameserver.'), { maxItems: 16, description: 'DNS nameservers.' });

export const NetworkWrite = Type.Object({
  metadata: ResourceWriteMetadata,
  // Upstream's schema leaves spec optional, but no network exists without a prefix: its handler fails too.
  spec: Type.Object(
    {
      prefix: Ipv4Prefix('The network prefix, at least a /24 (the platform reservation takes its first /25).'),
      dnsNameservers: DnsNameservers,
    },
    { additionalProperties: false },
  ),
});
export type NetworkWrite = Type.Static<typeof NetworkWrite>;

export const NetworkRead = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: Type.Object({
    regionId: Type.String({ description: 'The region the network is provisioned in.' }),
    prefix: Type.String({ description: 'The network prefix.' }),
    dnsNameservers: DnsNameservers,
    openstack: Type.Optional(
      Type.Object(
        {
          networkId: Type.Optional(Type.String({ description: 'The Neutron network.' })),
          subnetId: Type.Optional(Type.String({ description: 'The Neutron subnet.' })),
          vlanId: Type.Optional(Type.Integer({ description: 'The VLAN of a provider network.' })),
        },
        { description: 'Where the network is in OpenStack, as upstream shows it to cluster provisioners.' },
      ),
    ),
  }),
});
export type NetworkRead = Type.Static<typeof NetworkRead>;
