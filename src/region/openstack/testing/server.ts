/**
 * The region fixture (emulator on a ManualClock, embedded store, the non-admin region account `region configure`
 * makes) for the server provider, monitor and controller, with what a server needs made the way production makes
 * it: an identity (createIdentity), its network and security group (network.ts,
 * security-group.ts), and as the cloud's admin an external network, a flavor and four images (a, b, one
 * deactivated and one needing more memory than the flavor has).
 */
import { randomUUID } from 'node:crypto';
import { createImage, uploadImageData, type ImageClient } from '../../../openstack/image.ts';
import * as neutron from '../../../openstack/network.ts';
import { listServers, type Server as NovaServer } from '../../../openstack/compute.ts';
import { silentLogger } from '../../../runtime/logger.ts';
import { API_VERSION, labels } from '../../apis/shared.ts';
import { identityType } from '../../apis/identity.ts';
import { serverType, type Server, type ServerSpec } from '../../apis/server.ts';
import { openstackIdentityType } from '../../apis/openstack-identity.ts';
import type { IdentityInput, ServerAddresses, ServerInput } from '../../provider/inputs.ts';
import { serverPortName } from '../names.ts';
import { identityProviderFor } from '../identity/provider.ts';
import { IdentityRecords } from '../identity/record.ts';
import { createNetwork } from '../network/lifecycle.ts';
import type { RegionContext } from '../registry.ts';
import { createSecurityGroup } from '../security-group/lifecycle.ts';
import { regionFixture, type RegionFixture, type RegionStore } from './region.ts';
import { serverProviderFor, type OpenstackServerProvider } from '../server/provider.ts';

export interface ServerFixture extends RegionFixture {
  readonly identity: IdentityInput;
  readonly projectID: string;
  readonly networkID: string;
  readonly securityGroupID: string;
  readonly flavorID: string;
  /** `hungry` needs more memory than the flavor has: Nova refuses to boot or rebuild onto it (a 400). */
  readonly images: { readonly a: string; readonly b: string; readonly deactivated: string; readonly hungry: string };
  /** The region as a fresh registry lookup sees it. */
  context(): Promise<RegionContext>;
  /** A provider over a fresh lookup of the region. */
  provider(): Promise<OpenstackServerProvider>;
  input(overrides?: Partial<ServerInput>): ServerInput;
  /** The Server resource for `input`, labelled as the REST API labels it. */
  serverObject(input: ServerInput, spec?: Partial<ServerSpec>): Server;
  /** The Nova servers named `name`, listed as the cloud's admin across projects. */
  novaServers(name: string): Promise<NovaServer[]>;
  /** Runs the emulator's scheduled work due within `ms` (builds, rebuilds, deletes). */
  advance(ms: number): void;
  /** createServer passes until done, letting the emulator's builds finish between them; the addresses. */
  converge(provider: OpenstackServerProvider, input: ServerInput): Promise<ServerAddresses>;
  /** The ports named `server-{id}`, and the floating IPs on a port, listed as admin. */
  ports(input: ServerInput): Promise<neutron.Port[]>;
  floatingIPs(portID: string): Promise<neutron.FloatingIP[]>;
  /** `who scope METHOD service path` of each request since `from`; who is `identity`, `region` or `other`. */
  requestsSince(from: number): string[];
}

const CTX = { signal: new AbortController().signal };

/** A server fixture and its provider, opened together: what each server provider suite starts from. */
export async function serverFixtureWithProvider(): Promise<{ w: ServerFixture; provider: OpenstackServerProvider }> {
  const w = await serverFixture();
  return { w, provider: await w.provider() };
}

export async function serverFixture(where: RegionStore = {}): Promise<ServerFixture> {
  const fx = await regionFixture('configured', where);
  const admin = fx.admin;
  const external = await neutron.createNetwork(admin.client('network'), {
    name: 'public',
    'router:external': true,
    shared: false,
  });
  await neutron.createSubnet(admin.client('network'), {
    network_id: external.id,
    name: 'public',
    cidr: '203.0.113.0/24',
    ip_version: 4,
  });
  const flavorID = await flavor(fx);
  const glance = admin.client('image');
  const images = {
    a: await image(glance, 'server-image-a'),
    b: await image(glance, 'server-image-b'),
    deactivated: await image(glance, 'server-image-deactivated', true),
    hungry: await image(glance, 'server-image-hungry', false, { min_ram: 4096 }),
  };

  const regionID = fx.region.metadata.name;
  const identity: IdentityInput = { id: randomUUID(), organizationID: 'org-1', projectID: 'project-1', regionID };
  const registry = await fx.registry();
  const region = () => registry.lookup(regionID);
  const created = await identityProviderFor(await region(), { kube: fx.store }).createIdentity(CTX, identity);
  if (created.kind !== 'done') throw new Error(`identity: ${created.kind}`);
  const realised = await new IdentityRecords(fx.store, fx.namespace).realised(identity.id);
  if (realised === undefined) throw new Error('identity not realised');
  const ctx = await region();
  const networkDeps = { clients: ctx.clients, config: ctx.config, signal: CTX.signal };
  const networkID = randomUUID();
  const securityGroupID = randomUUID();
  const owner = { organizationID: identity.organizationID, projectID: identity.projectID, regionID };
  const network = await createNetwork(networkDeps, realised, {
    ...owner,
    id: networkID,
    prefix: '192.168.10.0/24',
    reservations: { prefixLength: 25 },
    dnsNameservers: [],
    routes: [],
  });
  if (network.kind !== 'done') throw new Error(`network: ${network.kind}`);
  const group = await createSecurityGroup(networkDeps, realised, {
    ...owner,
    id: securityGroupID,
    rules: [{ direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' }],
  });
  if (group.kind !== 'done') throw new Error(`security group: ${group.kind}`);

  const record = await fx.store.get(openstackIdentityType, fx.namespace, identity.id);
  const identityUser = record.spec.userID;
  const networkAdmin = admin.client('network');
  let serial = 0;
  const advance = (ms: number) => {
    fx.emulator.control.advance(ms);
  };
  return {
    ...fx,
    identity,
    projectID: realised.projectID,
    networkID,
    securityGroupID,
    flavorID,
    images,
    context: region,
    provider: async () => serverProviderFor(await region(), { kube: fx.store, clock: fx.clock, log: silentLogger() }),
    input: (overrides = {}) => ({
      ...owner,
      id: randomUUID(),
      name: `server-${String(++serial)}`,
      flavorID,
      imageID: images.a,
      networkID,
      allowedAddressPairs: [],
      securityGroupIDs: [securityGroupID],
      publicIP: false,
      sshInjection: 'identityKeypair',
      tags: [],
      ...overrides,
    }),
    serverObject: (input, spec = {}) => ({
      apiVersion: API_VERSION,
      kind: serverType.kind,
      metadata: {
        name: input.id,
        namespace: fx.namespace,
        labels: {
          [labels.organization]: input.organizationID,
          [labels.project]: input.projectID,
          [labels.regionID]: input.regionID,
          [labels.identityID]: identity.id,
          [labels.name]: input.name,
        },
      },
      spec: {
        flavorID: input.flavorID,
        ...(input.imageID === undefined ? {} : { image: { id: input.imageID } }),
        networks: [{ id: input.networkID }],
        securityGroups: input.securityGroupIDs.map((id) => ({ id })),
        publicIPAllocation: { enabled: input.publicIP },
        ...spec,
      },
    }),
    novaServers: async (name) =>
      (await listServers(admin.client('compute'), { allTenants: true })).filter((s) => s.name === name),
    advance,
    converge: async (provider, input) => {
      for (let i = 0; i < 5; i++) {
        const outcome = await provider.createServer(CTX, identity, input);
        if (outcome.kind === 'done') return outcome.value;
        if (outcome.kind !== 'yield') throw new Error(`converge: ${JSON.stringify(outcome)}`);
        advance(1000);
      }
      throw new Error('converge: still yielding');
    },
    ports: async (input) => (await neutron.listPorts(networkAdmin)).filter((p) => p.name === serverPortName(input.id)),
    floatingIPs: (portID) => neutron.listFloatingIPs(networkAdmin, { portID: portID }),
    requestsSince: (from) =>
      fx.transport.requests
        .slice(from)
        .filter((r) => r.caller !== undefined)
        .map((r) => {
          const user = r.caller?.userID;
          const who = user === identityUser ? 'identity' : user === fx.credentials.userID ? 'region' : 'other';
          return `${who} ${r.caller?.scope ?? ''} ${r.method} ${r.serviceType} ${r.urlTemplate}`;
        }),
  };
}

/** Stores the Identity resource, Available, as the Identity controller leaves it once realised. */
export async function storeAvailableIdentity(fx: ServerFixture): Promise<void> {
  const { identity } = fx;
  const now = new Date(fx.clock.now()).toISOString();
  const made = await fx.store.create(identityType, {
    apiVersion: API_VERSION,
    kind: identityType.kind,
    metadata: {
      name: identity.id,
      namespace: fx.namespace,
      labels: {
        [labels.organization]: identity.organizationID,
        [labels.project]: identity.projectID,
        [labels.regionID]: identity.regionID,
      },
    },
    spec: { provider: 'openstack' },
  });
  const available = { type: 'Available', status: 'True', reason: 'Provisioned', message: 'provisioned' } as const;
  await fx.store.update(
    identityType,
    { ...made, status: { conditions: [{ ...available, lastTransitionTime: now }] } },
    { subresource: 'status' },
  );
}

async function flavor(fx: RegionFixture): Promise<string> {
  const { body } = await fx.admin.client('compute').request<{ flavor: { id: string } }>({
    method: 'POST',
    path: '/flavors',
    body: { flavor: { name: 'server-small', vcpus: 1, ram: 512, disk: 1, 'os-flavor-access:is_public': true } },
  });
  return body.flavor.id;
}

async function image(
  glance: ImageClient,
  name: string,
  deactivated = false,
  minimum: { readonly min_ram?: number } = {},
): Promise<string> {
  const made = await createImage(glance, {
    name,
    disk_format: 'raw',
    container_format: 'bare',
    visibility: 'public',
    ...minimum,
  });
  await uploadImageData(glance, made.id, `${name}\n`.repeat(64));
  if (deactivated) {
    await glance.request({
      method: 'POST',
      path: '/images/{image_id}/actions/deactivate',
      params: { image_id: made.id },
    });
  }
  return made.id;
}
