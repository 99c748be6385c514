import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labels } from '../apis/shared.ts';
import { identityInputOf } from './identity.ts';
import { networkInputOf, networkStatusOf } from './network.ts';
import { workloadIdentityOf } from './ownership.ts';
import { securityGroupInputOf } from './security-group.ts';
import {
  ORGANIZATION,
  PROJECT,
  REGION,
  identityObject,
  networkObject,
  ownerLabels,
  securityGroupObject,
} from './testing/fakes.ts';

const owner = { organizationID: ORGANIZATION, projectID: PROJECT, regionID: REGION };

describe('ownership and the provider inputs built from the CRDs', () => {
  it('an identity: its name and the ownership labels', () => {
    assert.deepEqual(identityInputOf(identityObject('id-1')), { ...owner, id: 'id-1' });
  });

  it('a missing or empty ownership label gives no input', () => {
    const { [labels.regionID]: _dropped, ...noRegion } = ownerLabels();
    assert.equal(identityInputOf(identityObject('id-1', noRegion)), undefined);
    assert.equal(identityInputOf(identityObject('id-1', ownerLabels({ [labels.project]: '' }))), undefined);
  });

  it('a workload names its identity by label and shares its ownership', () => {
    assert.deepEqual(workloadIdentityOf(networkObject('net-1', 'id-1')), { ...owner, id: 'id-1' });
    assert.equal(workloadIdentityOf(networkObject('net-1', 'id-1', undefined, ownerLabels())), undefined);
  });

  it('a network: reservations default to /25 and /28, lists to empty', () => {
    assert.deepEqual(networkInputOf(networkObject('net-1', 'id-1')), {
      ...owner,
      id: 'net-1',
      prefix: '192.168.0.0/24',
      reservations: { prefixLength: 25, providerReservedPrefixLength: 28 },
      dnsNameservers: [],
      routes: [],
    });
  });

  it('a network: given reservations, nameservers and routes pass through', () => {
    const network = networkObject('net-1', 'id-1', {
      prefix: '10.0.0.0/16',
      reservations: { prefixLength: 24, providerReservedPrefixLength: 26 },
      dnsNameservers: ['8.8.8.8'],
      routes: [{ prefix: '172.16.0.0/12', nextHop: '10.0.0.254' }],
    });
    const input = networkInputOf(network);
    assert.ok(input !== undefined);
    assert.deepEqual(input.reservations, { prefixLength: 24, providerReservedPrefixLength: 26 });
    assert.deepEqual(input.dnsNameservers, ['8.8.8.8']);
    assert.deepEqual(input.routes, [{ prefix: '172.16.0.0/12', nextHop: '10.0.0.254' }]);
  });

  it('security group rules: a port number or range, anywhere when the CIDR is omitted', () => {
    const sg = securityGroupObject('sg-1', 'id-1', [
      { direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '10.0.0.0/8' },
      { direction: 'ingress', protocol: 'udp', port: { range: { start: 1000, end: 2000 } } },
      { direction: 'egress', protocol: 'any' },
    ]);
    assert.deepEqual(securityGroupInputOf(sg), {
      ...owner,
      id: 'sg-1',
      rules: [
        { direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '10.0.0.0/8' },
        { direction: 'ingress', protocol: 'udp', port: { start: 1000, end: 2000 }, cidr: '0.0.0.0/0' },
        { direction: 'egress', protocol: 'any', cidr: '0.0.0.0/0' },
      ],
    });
  });

  it('status.openstack carries what the provider realised, nothing absent', () => {
    assert.deepEqual(networkStatusOf({ networkID: 'n', subnetID: 's' }), { networkID: 'n', subnetID: 's' });
    assert.deepEqual(
      networkStatusOf({ networkID: 'n', subnetID: 's', vlanID: 101, storageRange: { startIP: 'a', endIP: 'b' } }),
      { networkID: 'n', subnetID: 's', vlanID: 101, storageRange: { startIP: 'a', endIP: 'b' } },
    );
  });
});
