/**
 * A project's resources as a graph (the topology view draws it): one column per kind — networks, security groups,
 * servers, load balancers, then volumes and public IPs — and an edge for each relation the API reads: a server's
 * network and security groups, a security group's and a load balancer's and a volume's network, a load balancer's
 * members (by the server's private address), a server's attached volumes, and the public IPs of servers and load
 * balancers. Pure: the view only draws what this answers.
 */
import type { LiveKinds } from './live.ts';

export type NodeKind = 'network' | 'securitygroup' | 'server' | 'loadbalancer' | 'volume' | 'publicip';

export interface TopologyNode {
  readonly key: string;
  readonly kind: NodeKind;
  readonly name: string;
  /** The provisioning status, or the phase-like word a public IP has ("allocated"). */
  readonly status: string;
  readonly column: number;
  readonly row: number;
  /** The node's page in the console, where it has one. */
  readonly href?: string;
}

export interface TopologyEdge {
  readonly from: string;
  readonly to: string;
  /** The relation in words, read from `to` to `from`: "server web-1 runs on network net-1". */
  readonly label: string;
}

export interface Topology {
  readonly nodes: readonly TopologyNode[];
  readonly edges: readonly TopologyEdge[];
}

type Lists = { readonly [C in keyof LiveKinds]: readonly LiveKinds[C][] };

const COLUMNS: Readonly<Record<NodeKind, number>> = {
  network: 0,
  securitygroup: 1,
  server: 2,
  loadbalancer: 3,
  volume: 4,
  publicip: 4,
};

export function topologyOf(lists: Lists): Topology {
  const nodes: TopologyNode[] = [];
  const edges: TopologyEdge[] = [];
  const rows = new Map<number, number>();
  const known = new Set<string>();
  const add = (node: Omit<TopologyNode, 'column' | 'row'>) => {
    const column = COLUMNS[node.kind];
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    nodes.push({ ...node, column, row });
    known.add(node.key);
  };
  const link = (from: string, to: string, label: string) => {
    if (known.has(from) && known.has(to)) edges.push({ from, to, label });
  };
  const key = (kind: NodeKind, id: string) => `${kind}:${id}`;
  // Grouped by network, so a network's resources sit level with it as far as the columns allow.
  const byNetwork = <T extends { status: { networkId: string } }>(items: readonly T[]) =>
    [...items].sort((a, b) => networkOrder(a.status.networkId) - networkOrder(b.status.networkId));
  const networkOrder = (id: string) => {
    const at = lists.networks.findIndex((n) => n.metadata.id === id);
    return at < 0 ? lists.networks.length : at;
  };

  for (const n of lists.networks) {
    add({ key: key('network', n.metadata.id), kind: 'network', name: n.metadata.name, status: status(n) });
  }
  for (const g of byNetwork(lists.securitygroups)) {
    add({ key: key('securitygroup', g.metadata.id), kind: 'securitygroup', name: g.metadata.name, status: status(g) });
    link(key('network', g.status.networkId), key('securitygroup', g.metadata.id), 'belongs to');
  }
  for (const s of byNetwork(lists.servers)) {
    const at = key('server', s.metadata.id);
    add({ key: at, kind: 'server', name: s.metadata.name, status: status(s), href: `/servers/${s.metadata.id}` });
    link(key('network', s.status.networkId), at, 'runs on');
    for (const g of s.spec.networking?.securityGroups ?? []) link(key('securitygroup', g), at, 'is guarded by');
  }
  for (const b of byNetwork(lists.loadbalancers)) {
    const at = key('loadbalancer', b.metadata.id);
    add({ key: at, kind: 'loadbalancer', name: b.metadata.name, status: status(b) });
    link(key('network', b.status.networkId), at, 'belongs to');
    const members = new Set(b.spec.listeners.flatMap((l) => l.pool.members.map((m) => m.address)));
    for (const s of lists.servers) {
      if (s.status.privateIP !== undefined && members.has(s.status.privateIP)) {
        link(key('server', s.metadata.id), at, 'balances');
      }
    }
  }
  for (const v of byNetwork(lists.volumes)) {
    add({ key: key('volume', v.metadata.id), kind: 'volume', name: v.metadata.name, status: status(v) });
  }
  for (const s of lists.servers) {
    for (const v of s.spec.volumes ?? [])
      link(key('server', s.metadata.id), key('volume', v.volumeId), 'is attached to');
  }
  const publicIPs: [string, string][] = [
    ...lists.servers.map((s) => [key('server', s.metadata.id), s.status.publicIP] as const),
    ...lists.loadbalancers.map((b) => [key('loadbalancer', b.metadata.id), b.status.publicIP] as const),
  ].filter((p): p is [string, string] => p[1] !== undefined);
  for (const [owner, address] of publicIPs) {
    add({ key: key('publicip', address), kind: 'publicip', name: address, status: 'allocated' });
    link(owner, key('publicip', address), 'reaches');
  }
  return { nodes, edges };
}

const status = (o: { metadata: { provisioningStatus: string; deletionTime?: string } }) =>
  o.metadata.deletionTime === undefined ? o.metadata.provisioningStatus : 'deprovisioning';
