import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LiveKinds } from './live.ts';
import { topologyOf } from './topology.ts';

const meta = (id: string, name: string, provisioningStatus = 'provisioned') => ({
  id,
  name,
  provisioningStatus,
  healthStatus: 'healthy',
  creationTime: '2026-01-01T00:00:00Z',
  organizationId: 'o',
  projectId: 'p',
  regionId: 'r',
});

const network = { metadata: meta('n1', 'web-net'), status: { networkId: 'n1' } } as unknown as LiveKinds['networks'];
const group = { metadata: meta('g1', 'ssh'), status: { networkId: 'n1' } } as unknown as LiveKinds['securitygroups'];
const server = (id: string, name: string, privateIP: string, extra: object = {}) =>
  ({
    metadata: meta(id, name, 'provisioning'),
    spec: { networking: { securityGroups: ['g1'] }, volumes: [{ volumeId: 'v1' }], ...extra },
    status: { networkId: 'n1', privateIP, publicIP: id === 's1' ? '203.0.113.5' : undefined },
  }) as unknown as LiveKinds['servers'];
const balancer = {
  metadata: meta('b1', 'lb-1'),
  spec: { listeners: [{ pool: { members: [{ address: '10.0.0.11', port: 80 }] } }] },
  status: { networkId: 'n1', publicIP: '203.0.113.9' },
} as unknown as LiveKinds['loadbalancers'];
const volume = { metadata: meta('v1', 'data'), status: { networkId: 'n1' } } as unknown as LiveKinds['volumes'];

describe('the topology of a project', () => {
  const graph = topologyOf({
    networks: [network],
    securitygroups: [group],
    servers: [server('s1', 'web-1', '10.0.0.11'), server('s2', 'web-2', '10.0.0.12')],
    loadbalancers: [balancer],
    volumes: [volume],
  });
  const said = (e: { from: string; to: string; label: string }) => {
    const name = (key: string) => graph.nodes.find((n) => n.key === key)?.name;
    return `${name(e.to) ?? ''} ${e.label} ${name(e.from) ?? ''}`;
  };

  it('draws each relation the API reads: network, security groups, members by address, volumes, public IPs', () => {
    assert.deepEqual(graph.edges.map(said).sort(), [
      '203.0.113.5 reaches web-1',
      '203.0.113.9 reaches lb-1',
      'data is attached to web-1',
      'data is attached to web-2',
      'lb-1 balances web-1',
      'lb-1 belongs to web-net',
      'ssh belongs to web-net',
      'web-1 is guarded by ssh',
      'web-1 runs on web-net',
      'web-2 is guarded by ssh',
      'web-2 runs on web-net',
    ]);
  });

  it('puts each kind in its column, one row after another, and links servers to their pages', () => {
    const at = (name: string) => graph.nodes.find((n) => n.name === name);
    assert.deepEqual([at('web-net')?.column, at('ssh')?.column, at('web-1')?.column, at('lb-1')?.column], [0, 1, 2, 3]);
    assert.deepEqual([at('web-1')?.row, at('web-2')?.row], [0, 1]);
    assert.equal(at('web-1')?.href, '/servers/s1');
    assert.equal(at('web-1')?.status, 'provisioning');
    assert.deepEqual(
      graph.nodes.filter((n) => n.column === 4).map((n) => n.name),
      ['data', '203.0.113.5', '203.0.113.9'],
    );
  });

  it('draws no edge to what the lists do not hold (a security group of another project)', () => {
    const alone = topologyOf({
      networks: [network],
      securitygroups: [],
      servers: [server('s2', 'web-2', '10.0.0.12', { volumes: [] })],
      loadbalancers: [],
      volumes: [],
    });
    assert.deepEqual(
      alone.edges.map((e) => e.label),
      ['runs on'],
    );
  });
});
