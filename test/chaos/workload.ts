/**
 * The chaos suite's tenant and saboteur: each step draws one operation from a seeded PRNG — a create, update or
 * delete of a region resource through the REST API, or an asynchronous ERROR or out-of-band delete done to the
 * cloud behind the service's back — and applies it to whatever exists at that moment.
 */
import assert from 'node:assert/strict';
import type { Rest } from '../up/child.ts';
import { recordsOf, type BuiltInCloud, type CloudRecord } from './cloud.ts';

export interface Read {
  readonly metadata: {
    readonly id: string;
    readonly name: string;
    readonly provisioningStatus: string;
    readonly healthStatus?: string;
    readonly deletionTime?: string;
  };
  readonly spec: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
}

export interface Tenancy {
  readonly organizationID: string;
  readonly projectID: string;
  readonly regionID: string;
  readonly imageIDs: readonly string[];
  readonly flavorID: string;
  readonly volumeClassID: string;
}

/** The v2 collections the workload touches, by the kind name the report uses. */
export const COLLECTIONS = {
  network: '/api/v2/networks',
  server: '/api/v2/servers',
  securityGroup: '/api/v2/securitygroups',
  loadBalancer: '/api/v2/loadbalancers',
  volume: '/api/v2/volumes',
} as const;
export type Kind = keyof typeof COLLECTIONS;

export type Inventory = Record<Kind, Read[]> & { identity: Read[] };

/** Everything the region service holds for the tenancy, read through its API. */
export async function inventory(rest: Rest, tenancy: Tenancy): Promise<Inventory> {
  const list = async (path: string) => {
    const { status, json } = await rest('GET', path);
    assert.equal(status, 200, `GET ${path}: ${JSON.stringify(json)}`);
    return json as Read[];
  };
  const [network, server, securityGroup, loadBalancer, volume, identity] = await Promise.all([
    list(COLLECTIONS.network),
    list(COLLECTIONS.server),
    list(COLLECTIONS.securityGroup),
    list(COLLECTIONS.loadBalancer),
    list(COLLECTIONS.volume),
    list(`/api/v1/organizations/${tenancy.organizationID}/identities`),
  ]);
  return { network, server, securityGroup, loadBalancer, volume, identity };
}

/** A resource's network, as its read says. */
const networkOf = (read: Read): string | undefined =>
  typeof read.spec.networkId === 'string'
    ? read.spec.networkId
    : typeof read.status?.networkId === 'string'
      ? read.status.networkId
      : undefined;

/** How many operations a step draws before giving up on finding one with something to act on. */
const DRAWS_PER_STEP = 10;

type Operation = (random: () => number, now: Inventory) => Promise<string | undefined>;

/**
 * One step's outcome: the operation's name when it did something, and the region API's answer status when it
 * called one (a 5xx is a failure of the suite; a 4xx is a refusal, e.g. a resource a cascade already took).
 */
export interface StepResult {
  readonly operation: string;
  readonly status?: number;
  /** The problem document's type, when the answer was one. */
  readonly problem?: string;
  readonly detail?: string;
}

export class Workload {
  readonly #rest: Rest;
  readonly #cloud: () => BuiltInCloud;
  readonly #tenancy: Tenancy;
  #serial = 0;

  constructor(rest: Rest, cloud: () => BuiltInCloud, tenancy: Tenancy) {
    this.#rest = rest;
    this.#cloud = cloud;
    this.#tenancy = tenancy;
  }

  /** Draws operations until one finds something to act on (a few tries), and applies it. */
  async step(random: () => number): Promise<StepResult | undefined> {
    const now = await inventory(this.#rest, this.#tenancy);
    const total = OPERATIONS.reduce((sum, [, weight]) => sum + weight, 0);
    for (let attempt = 0; attempt < DRAWS_PER_STEP; attempt++) {
      let roll = random() * total;
      const [name, , operation] =
        OPERATIONS.find(([, weight]) => (roll -= weight) < 0) ?? OPERATIONS[OPERATIONS.length - 1] ?? assert.fail();
      this.#last = undefined;
      const detail = await operation.call(this, random, now);
      if (detail !== undefined) return { operation: name, ...this.#lastAnswer(), detail };
    }
    return undefined;
  }

  #last: { status: number; problem?: string } | undefined;

  /** The answer of the region API call the last operation made, if it made one. */
  #lastAnswer(): { status?: number; problem?: string } {
    return this.#last ?? {};
  }

  async #call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const answer = await this.#rest(method, path, body);
    const problem = (answer.json as { type?: unknown } | undefined)?.type;
    this.#last = { status: answer.status, ...(typeof problem === 'string' ? { problem } : {}) };
    return answer;
  }

  #name(prefix: string): string {
    this.#serial += 1;
    return `${prefix}-${String(this.#serial)}`;
  }

  #live = (items: readonly Read[]) => items.filter((r) => r.metadata.deletionTime === undefined);

  async createIdentity(): Promise<string> {
    const { organizationID, projectID, regionID } = this.#tenancy;
    const { status } = await this.#call(
      'POST',
      `/api/v1/organizations/${organizationID}/projects/${projectID}/identities`,
      { metadata: { name: this.#name('id') }, spec: { regionId: regionID } },
    );
    return `create identity: ${String(status)}`;
  }

  async deleteIdentity(random: () => number, now: Inventory): Promise<string | undefined> {
    const identity = pick(random, this.#live(now.identity));
    if (identity === undefined) return undefined;
    const { organizationID, projectID } = this.#tenancy;
    const path = `/api/v1/organizations/${organizationID}/projects/${projectID}/identities/${identity.metadata.id}`;
    const { status } = await this.#call('DELETE', path);
    return `delete identity ${identity.metadata.id}: ${String(status)}`;
  }

  async createNetwork(random: () => number): Promise<string> {
    const { organizationID, projectID, regionID } = this.#tenancy;
    const octet = () => String(Math.floor(random() * 256));
    const { status, json } = await this.#call('POST', COLLECTIONS.network, {
      metadata: { name: this.#name('net') },
      spec: {
        organizationId: organizationID,
        projectId: projectID,
        regionId: regionID,
        prefix: `10.${octet()}.${octet()}.0/24`,
        dnsNameservers: random() < 0.5 ? [] : ['192.0.2.53'],
      },
    });
    return `create network: ${String(status)} ${idOf(json)}`;
  }

  async createServer(random: () => number, now: Inventory): Promise<string | undefined> {
    const network = pick(random, this.#live(now.network));
    if (network === undefined) return undefined;
    const groups = this.#live(now.securityGroup).filter((g) => networkOf(g) === network.metadata.id);
    const taken = new Set(
      now.server.flatMap((s) => ((s.spec.volumes ?? []) as { volumeId: string }[]).map((v) => v.volumeId)),
    );
    const free = this.#live(now.volume).filter(
      (v) => networkOf(v) === network.metadata.id && !taken.has(v.metadata.id),
    );
    const group = random() < 0.5 ? pick(random, groups) : undefined;
    const volume = random() < 0.3 ? pick(random, free) : undefined;
    const { status, json } = await this.#call('POST', COLLECTIONS.server, {
      metadata: { name: this.#name('srv') },
      spec: {
        networkId: network.metadata.id,
        flavorId: this.#tenancy.flavorID,
        imageId: pick(random, this.#tenancy.imageIDs),
        networking: {
          publicIP: random() < 0.3,
          ...(group === undefined ? {} : { securityGroups: [group.metadata.id] }),
        },
        ...(volume === undefined ? {} : { volumes: [{ volumeId: volume.metadata.id }] }),
      },
    });
    return `create server on ${network.metadata.id}: ${String(status)} ${idOf(json)}`;
  }

  async updateServer(random: () => number, now: Inventory): Promise<string | undefined> {
    const server = pick(random, this.#live(now.server));
    if (server === undefined) return undefined;
    const spec = server.spec as {
      flavorId: string;
      imageId: string;
      networking?: { publicIP?: boolean; securityGroups?: string[] };
      volumes?: { volumeId: string }[];
    };
    const rebuild = random() < 0.4;
    const { status } = await this.#call('PUT', `${COLLECTIONS.server}/${server.metadata.id}`, {
      metadata: { name: server.metadata.name },
      spec: {
        flavorId: spec.flavorId,
        imageId: rebuild ? (pick(random, this.#tenancy.imageIDs) ?? spec.imageId) : spec.imageId,
        networking: { ...spec.networking, publicIP: !(spec.networking?.publicIP ?? false) },
        ...(spec.volumes === undefined || random() < 0.3 ? {} : { volumes: spec.volumes }),
      },
    });
    return `update server ${server.metadata.id}${rebuild ? ' (image)' : ''}: ${String(status)}`;
  }

  /** A snapshot publishes a Glance image its identity's teardown must delete (the leak report counts them). */
  async snapshotServer(random: () => number, now: Inventory): Promise<string | undefined> {
    // Any live server: one not running yet is refused (409), which is an answer the suite accepts.
    const server = pick(random, this.#live(now.server));
    if (server === undefined) return undefined;
    const { status, json } = await this.#call('POST', `${COLLECTIONS.server}/${server.metadata.id}/snapshot`, {
      metadata: { name: this.#name('snap') },
      spec: {},
    });
    return `snapshot server ${server.metadata.id}: ${String(status)} ${idOf(json)}`;
  }

  async createVolume(random: () => number, now: Inventory): Promise<string | undefined> {
    const network = pick(random, this.#live(now.network));
    if (network === undefined) return undefined;
    const { status, json } = await this.#call('POST', COLLECTIONS.volume, {
      metadata: { name: this.#name('vol') },
      spec: {
        networkId: network.metadata.id,
        volumeClassId: this.#tenancy.volumeClassID,
        sizeGiB: 1 + Math.floor(random() * 20),
      },
    });
    return `create volume on ${network.metadata.id}: ${String(status)} ${idOf(json)}`;
  }

  async updateVolume(random: () => number, now: Inventory): Promise<string | undefined> {
    const volume = pick(random, this.#live(now.volume));
    if (volume === undefined) return undefined;
    const size = Number(volume.spec.sizeGiB) + 1 + Math.floor(random() * 5);
    const { status } = await this.#call('PUT', `${COLLECTIONS.volume}/${volume.metadata.id}`, {
      metadata: { name: volume.metadata.name },
      spec: { volumeClassId: this.#tenancy.volumeClassID, sizeGiB: size },
    });
    return `grow volume ${volume.metadata.id} to ${String(size)} GiB: ${String(status)}`;
  }

  async createSecurityGroup(random: () => number, now: Inventory): Promise<string | undefined> {
    const network = pick(random, this.#live(now.network));
    if (network === undefined) return undefined;
    const { status, json } = await this.#call('POST', COLLECTIONS.securityGroup, {
      metadata: { name: this.#name('sg') },
      spec: { networkId: network.metadata.id, rules: rules(random) },
    });
    return `create security group on ${network.metadata.id}: ${String(status)} ${idOf(json)}`;
  }

  async updateSecurityGroup(random: () => number, now: Inventory): Promise<string | undefined> {
    const group = pick(random, this.#live(now.securityGroup));
    if (group === undefined) return undefined;
    const { status } = await this.#call('PUT', `${COLLECTIONS.securityGroup}/${group.metadata.id}`, {
      metadata: { name: group.metadata.name },
      spec: { rules: rules(random) },
    });
    return `update security group ${group.metadata.id}: ${String(status)}`;
  }

  async createLoadBalancer(random: () => number, now: Inventory): Promise<string | undefined> {
    const network = pick(random, this.#live(now.network));
    if (network === undefined) return undefined;
    const { status, json } = await this.#call('POST', COLLECTIONS.loadBalancer, {
      metadata: { name: this.#name('lb') },
      spec: { networkId: network.metadata.id, publicIP: random() < 0.4, listeners: listeners(random) },
    });
    return `create load balancer on ${network.metadata.id}: ${String(status)} ${idOf(json)}`;
  }

  async updateLoadBalancer(random: () => number, now: Inventory): Promise<string | undefined> {
    const lb = pick(random, this.#live(now.loadBalancer));
    if (lb === undefined) return undefined;
    const { status } = await this.#call('PUT', `${COLLECTIONS.loadBalancer}/${lb.metadata.id}`, {
      metadata: { name: lb.metadata.name },
      spec: { publicIP: lb.spec.publicIP !== true, listeners: listeners(random) },
    });
    return `update load balancer ${lb.metadata.id}: ${String(status)}`;
  }

  async updateNetwork(random: () => number, now: Inventory): Promise<string | undefined> {
    const network = pick(random, this.#live(now.network));
    if (network === undefined) return undefined;
    const { status } = await this.#call('PUT', `${COLLECTIONS.network}/${network.metadata.id}`, {
      metadata: { name: network.metadata.name },
      spec: { dnsNameservers: random() < 0.5 ? [] : ['192.0.2.53', '192.0.2.54'] },
    });
    return `update network ${network.metadata.id}: ${String(status)}`;
  }

  async delete(kind: Kind, random: () => number, now: Inventory): Promise<string | undefined> {
    const target = pick(random, this.#live(now[kind]));
    if (target === undefined) return undefined;
    const { status } = await this.#call('DELETE', `${COLLECTIONS[kind]}/${target.metadata.id}`);
    return `delete ${kind} ${target.metadata.id}: ${String(status)}`;
  }

  /** Puts a cloud resource of a region resource into ERROR, as a failed host or backend would. */
  async asyncError(kind: 'server' | 'volume' | 'loadBalancer', random: () => number): Promise<string | undefined> {
    const cloud = this.#cloud();
    const state = await cloud.state();
    const [collection, path] = CLOUD_OF[kind];
    const target = pick(random, ours(recordsOf(state, collection[0], collection[1]), kind));
    if (target === undefined) return undefined;
    const { status } = await cloud.control('POST', path(target.id), { message: 'chaos: the host failed' });
    return `ERROR ${kind} ${target.name}: ${String(status)}`;
  }

  /** Deletes a cloud resource behind the service's back, as an operator cleaning up by hand would. */
  async outOfBand(
    kind: 'server' | 'volume' | 'loadBalancer' | 'securityGroup' | 'floatingIp' | 'port',
    random: () => number,
  ): Promise<string | undefined> {
    const cloud = this.#cloud();
    const state = await cloud.state();
    const [collection, path] = OUT_OF_BAND[kind];
    const target = pick(random, ours(recordsOf(state, collection[0], collection[1]), kind));
    if (target === undefined) return undefined;
    const status =
      kind === 'server'
        ? (await cloud.control('POST', path(target.id))).status
        : await cloud.admin('DELETE', path(target.id));
    return `out-of-band delete ${kind} ${target.name || target.id}: ${String(status)}`;
  }
}

/** The cloud records of region resources of `kind`, told apart by the deterministic names the provider writes. */
function ours(records: CloudRecord[], kind: string): CloudRecord[] {
  const prefix: Record<string, string> = {
    server: 'srv-',
    volume: 'volume-',
    loadBalancer: 'lb-',
    securityGroup: 'securitygroup-',
    port: 'server-',
  };
  if (kind === 'floatingIp') return records.filter((r) => r.floatingNetworkId !== undefined);
  const wanted = prefix[kind] ?? '';
  return records.filter((r) => typeof r.name === 'string' && r.name.startsWith(wanted));
}

const CLOUD_OF = {
  server: [['nova', 'servers'], (id: string) => `/nova/servers/${id}/error`],
  volume: [['cinder', 'volumes'], (id: string) => `/cinder/volumes/${id}/error`],
  loadBalancer: [['octavia', 'loadbalancers'], (id: string) => `/octavia/loadbalancers/${id}/error`],
} as const;

const OUT_OF_BAND = {
  server: [['nova', 'servers'], (id: string) => `/nova/servers/${id}/delete`],
  volume: [['cinder', 'volumes'], (id: string) => `/volume/v3/{project}/volumes/${id}`],
  loadBalancer: [
    ['octavia', 'loadbalancers'],
    (id: string) => `/load-balancer/v2/lbaas/loadbalancers/${id}?cascade=true`,
  ],
  securityGroup: [['neutron', 'securityGroups'], (id: string) => `/network/v2.0/security-groups/${id}`],
  floatingIp: [['neutron', 'floatingIps'], (id: string) => `/network/v2.0/floatingips/${id}`],
  port: [['neutron', 'ports'], (id: string) => `/network/v2.0/ports/${id}`],
} as const;

/** The operations and their weights: mostly creates and deletes, with updates and sabotage mixed in. */
const OPERATIONS: readonly (readonly [string, number, Operation])[] = [
  [
    'snapshot server',
    2,
    function (this: Workload, r, n) {
      return this.snapshotServer(r, n);
    },
  ],
  [
    'create identity',
    2,
    function (this: Workload) {
      return this.createIdentity();
    },
  ],
  [
    'delete identity',
    2,
    function (this: Workload, r, n) {
      return this.deleteIdentity(r, n);
    },
  ],
  [
    'create network',
    10,
    function (this: Workload, r) {
      return this.createNetwork(r);
    },
  ],
  [
    'update network',
    2,
    function (this: Workload, r, n) {
      return this.updateNetwork(r, n);
    },
  ],
  [
    'delete network',
    4,
    function (this: Workload, r, n) {
      return this.delete('network', r, n);
    },
  ],
  [
    'create server',
    12,
    function (this: Workload, r, n) {
      return this.createServer(r, n);
    },
  ],
  [
    'update server',
    4,
    function (this: Workload, r, n) {
      return this.updateServer(r, n);
    },
  ],
  [
    'delete server',
    5,
    function (this: Workload, r, n) {
      return this.delete('server', r, n);
    },
  ],
  [
    'create volume',
    6,
    function (this: Workload, r, n) {
      return this.createVolume(r, n);
    },
  ],
  [
    'update volume',
    2,
    function (this: Workload, r, n) {
      return this.updateVolume(r, n);
    },
  ],
  [
    'delete volume',
    3,
    function (this: Workload, r, n) {
      return this.delete('volume', r, n);
    },
  ],
  [
    'create security group',
    6,
    function (this: Workload, r, n) {
      return this.createSecurityGroup(r, n);
    },
  ],
  [
    'update security group',
    3,
    function (this: Workload, r, n) {
      return this.updateSecurityGroup(r, n);
    },
  ],
  [
    'delete security group',
    3,
    function (this: Workload, r, n) {
      return this.delete('securityGroup', r, n);
    },
  ],
  [
    'create load balancer',
    5,
    function (this: Workload, r, n) {
      return this.createLoadBalancer(r, n);
    },
  ],
  [
    'update load balancer',
    2,
    function (this: Workload, r, n) {
      return this.updateLoadBalancer(r, n);
    },
  ],
  [
    'delete load balancer',
    3,
    function (this: Workload, r, n) {
      return this.delete('loadBalancer', r, n);
    },
  ],
  [
    'ERROR server',
    2,
    function (this: Workload, r) {
      return this.asyncError('server', r);
    },
  ],
  [
    'ERROR volume',
    1,
    function (this: Workload, r) {
      return this.asyncError('volume', r);
    },
  ],
  [
    'ERROR load balancer',
    1,
    function (this: Workload, r) {
      return this.asyncError('loadBalancer', r);
    },
  ],
  [
    'out-of-band delete server',
    1,
    function (this: Workload, r) {
      return this.outOfBand('server', r);
    },
  ],
  [
    'out-of-band delete volume',
    1,
    function (this: Workload, r) {
      return this.outOfBand('volume', r);
    },
  ],
  [
    'out-of-band delete load balancer',
    1,
    function (this: Workload, r) {
      return this.outOfBand('loadBalancer', r);
    },
  ],
  [
    'out-of-band delete security group',
    1,
    function (this: Workload, r) {
      return this.outOfBand('securityGroup', r);
    },
  ],
  [
    'out-of-band delete floating IP',
    1,
    function (this: Workload, r) {
      return this.outOfBand('floatingIp', r);
    },
  ],
  [
    'out-of-band delete port',
    1,
    function (this: Workload, r) {
      return this.outOfBand('port', r);
    },
  ],
];

function pick<T>(random: () => number, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
}

function rules(random: () => number): unknown[] {
  const count = Math.floor(random() * 3);
  return Array.from({ length: count }, (_, i) => ({
    direction: random() < 0.8 ? 'ingress' : 'egress',
    protocol: 'tcp',
    port: 1000 + i * 100 + Math.floor(random() * 50),
    ...(random() < 0.5 ? { prefix: '198.51.100.0/24' } : {}),
  }));
}

function listeners(random: () => number): unknown[] {
  const members = Array.from({ length: Math.floor(random() * 3) }, (_, i) => ({
    address: `10.0.0.${String(10 + i)}`,
    port: 8080,
  }));
  const http = { name: 'http', protocol: 'tcp', port: 80, pool: { members } };
  return random() < 0.5 ? [http] : [http, { name: 'dns', protocol: 'udp', port: 53, pool: { members: [] } }];
}

const idOf = (json: unknown): string =>
  typeof json === 'object' && json !== null && 'metadata' in json
    ? JSON.stringify((json as { metadata: { id?: unknown } }).metadata.id ?? '')
    : JSON.stringify(json);
