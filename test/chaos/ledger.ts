/**
 * What the chaos suite compares at the end of a seed: the cloud against what the region service's store says
 * (every cloud record of a tenant project belongs to a live region resource, one each, and every provisioned
 * resource has its record), and the cloud after everything was deleted against the cloud before the workload.
 */
import {
  identityName,
  loadBalancerName,
  networkName,
  securityGroupName,
  serverPortName,
  volumeName,
} from '../../src/region/openstack/names.ts';
import { LEAK_COLLECTIONS, recordKey, recordsOf, type CloudRecord, type CloudState } from './cloud.ts';
import type { Inventory } from './workload.ts';

/**
 * Neutron's own per-project group: left behind by a domain-manager credential (ADR 0019) until `region gc` deletes
 * it (docs/adr/0038-leaks-snapshot-images-and-default-groups.md).
 */
const DEFAULT_GROUP = 'default';

export type Baseline = ReadonlySet<string>;

export function baselineOf(state: CloudState): Baseline {
  return new Set(LEAK_COLLECTIONS.flatMap(([s, c]) => recordsOf(state, s, c).map((r) => `${s}.${c}:${recordKey(r)}`)));
}

/** A record the cloud holds that the baseline did not, with the kind the report groups it under. */
export interface Leak {
  readonly kind: string;
  readonly detail: string;
}

/**
 * Records the cloud holds that the baseline did not: every one, the `default` security groups (and their rules) of
 * gone projects, published images and quota records included, which only the documented cleanup (the identity's
 * teardown, then `openregion region gc` with admin credentials) removes.
 */
export function leaksAfterTeardown(state: CloudState, baseline: Baseline): Leak[] {
  const defaults = new Set(
    recordsOf(state, 'neutron', 'securityGroups')
      .filter((g) => g.name === DEFAULT_GROUP)
      .map((g) => g.id),
  );
  const leaks: Leak[] = [];
  for (const [service, collection] of LEAK_COLLECTIONS) {
    for (const record of recordsOf(state, service, collection)) {
      if (baseline.has(`${service}.${collection}:${recordKey(record)}`)) continue;
      leaks.push({
        kind: kindOf(service, collection, record, defaults),
        detail: describe(service, collection, record),
      });
    }
  }
  return leaks;
}

/** How many leaks of each kind, every kind the report names listed (0 included), for the seed's summary line. */
export function leaksByKind(leaks: readonly Leak[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(REPORTED_KINDS.map((kind) => [kind, 0]));
  for (const leak of leaks) counts[leak.kind] = (counts[leak.kind] ?? 0) + 1;
  return counts;
}

/** The kinds a leak report always names, so a 0 is a count and not an absence. */
const REPORTED_KINDS = ['default security groups', 'published images', 'quota records'] as const;

function kindOf(service: string, collection: string, record: CloudRecord, defaults: ReadonlySet<string>): string {
  if (collection === 'securityGroups' && defaults.has(record.id)) return 'default security groups';
  if (collection === 'securityGroupRules' && defaults.has(String(record.groupId)))
    return 'default security group rules';
  if (service === 'glance' && collection === 'images') return 'published images';
  if (collection === 'quotas') return 'quota records';
  return `${service}.${collection}`;
}

/**
 * Disagreements between a settled store and the cloud: records of tenant projects no live resource explains,
 * duplicates, and provisioned resources with no record.
 */
export function disagreements(state: CloudState, store: Inventory, baseline: Baseline): string[] {
  const found: string[] = [];
  const orphanDefaults = orphanDefaultGroups(state);
  const fresh = (service: string, collection: string) =>
    recordsOf(state, service, collection).filter(
      (r) => !baseline.has(`${service}.${collection}:${recordKey(r)}`) && !orphanDefaults.has(r.id),
    );
  const identityNames = new Set(store.identity.map((i) => identityName(i.metadata.id)));
  const tenantProjects = new Set(
    fresh('keystone', 'projects')
      .filter((p) => identityNames.has(p.name))
      .map((p) => p.id),
  );
  for (const project of fresh('keystone', 'projects')) {
    if (!tenantProjects.has(project.id)) found.push(`no identity for ${describe('keystone', 'projects', project)}`);
  }
  for (const user of fresh('keystone', 'users')) {
    if (!identityNames.has(user.name)) found.push(`no identity for ${describe('keystone', 'users', user)}`);
  }
  /** The names a region resource's cloud record may carry, each at most once. */
  const expected: [string, string, Set<string>][] = [
    ['neutron', 'networks', new Set(store.network.map((n) => networkName(n.metadata.id)))],
    ['neutron', 'subnets', new Set(store.network.map((n) => networkName(n.metadata.id)))],
    ['neutron', 'routers', new Set(store.network.map((n) => networkName(n.metadata.id)))],
    ['nova', 'servers', new Set(store.server.map((s) => s.metadata.name))],
    ['cinder', 'volumes', new Set(store.volume.map((v) => volumeName(v.metadata.id)))],
    ['octavia', 'loadbalancers', new Set(store.loadBalancer.map((l) => loadBalancerName(l.metadata.id)))],
    [
      'neutron',
      'securityGroups',
      new Set([...store.securityGroup.map((g) => securityGroupName(g.metadata.id)), DEFAULT_GROUP]),
    ],
  ];
  for (const [service, collection, names] of expected) {
    const seen = new Map<string, number>();
    for (const record of fresh(service, collection)) {
      if (!tenantProjects.has(record.projectId ?? '')) {
        found.push(`outside every identity's project: ${describe(service, collection, record)}`);
        continue;
      }
      if (!names.has(record.name)) found.push(`no region resource for ${describe(service, collection, record)}`);
      const key = `${record.projectId ?? ''}/${record.name}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    for (const [key, count] of seen) if (count > 1) found.push(`${String(count)} × ${service}.${collection} ${key}`);
  }
  const ports = fresh('neutron', 'ports').filter((p) => tenantProjects.has(p.projectId ?? ''));
  const serverPorts = new Set(store.server.map((s) => serverPortName(s.metadata.id)));
  const portCount = new Map<string, number>();
  for (const port of ports.filter((p) => typeof p.name === 'string' && p.name.startsWith('server-'))) {
    if (!serverPorts.has(port.name)) found.push(`no server for ${describe('neutron', 'ports', port)}`);
    portCount.set(port.name, (portCount.get(port.name) ?? 0) + 1);
  }
  for (const [name, count] of portCount) if (count > 1) found.push(`${String(count)} ports named ${name}`);
  const portIDs = new Set(recordsOf(state, 'neutron', 'ports').map((p) => p.id));
  for (const ip of fresh('neutron', 'floatingIps')) {
    const port = ip.portId;
    if (typeof port !== 'string' || !portIDs.has(port))
      found.push(`unattached ${describe('neutron', 'floatingIps', ip)}`);
  }
  // Every resource the store calls provisioned has its record.
  const names = (service: string, collection: string) => new Set(fresh(service, collection).map((r) => r.name));
  const provisioned = (items: Inventory[keyof Inventory]) =>
    items.filter((i) => i.metadata.provisioningStatus === 'provisioned');
  const holds: [string, Inventory[keyof Inventory], (id: string, name: string) => string, string, string][] = [
    ['network', store.network, (id) => networkName(id), 'neutron', 'networks'],
    ['server', store.server, (_id, name) => name, 'nova', 'servers'],
    ['volume', store.volume, (id) => volumeName(id), 'cinder', 'volumes'],
    ['load balancer', store.loadBalancer, (id) => loadBalancerName(id), 'octavia', 'loadbalancers'],
    ['security group', store.securityGroup, (id) => securityGroupName(id), 'neutron', 'securityGroups'],
  ];
  for (const [kind, items, nameOf, service, collection] of holds) {
    const have = names(service, collection);
    for (const item of provisioned(items)) {
      if (!have.has(nameOf(item.metadata.id, item.metadata.name)))
        found.push(
          `provisioned ${kind} ${item.metadata.id} (${item.metadata.name}) has no ${service}.${collection} record`,
        );
    }
  }
  return found;
}

/** The `default` security groups of projects that are gone. */
function orphanDefaultGroups(state: CloudState): Set<string> {
  const projects = new Set(recordsOf(state, 'keystone', 'projects').map((p) => p.id));
  return new Set(
    recordsOf(state, 'neutron', 'securityGroups')
      .filter((g) => g.name === DEFAULT_GROUP && !projects.has(g.projectId ?? ''))
      .map((g) => g.id),
  );
}

function describe(service: string, collection: string, record: CloudRecord): string {
  const status = record.status ?? record.vmState ?? record.provisioning;
  return `${service}.${collection} ${record.id} "${record.name}" project ${String(record.projectId)}${status === undefined ? '' : ` (${JSON.stringify(status)})`}`;
}
