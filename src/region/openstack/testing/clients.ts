/**
 * The cloud fixture plus the clients the provider code runs with, for testing that code without a region store: a
 * RegionClientSet whose region credentials are the emulator's admin (so the privileged client sees every project,
 * and lookups must filter by project themselves), request accounting, and interruption of a pass at its n-th
 * OpenStack request.
 */
import { RequestAccounting } from '../../../openstack/accounting.ts';
import type { AuthMethod } from '../../../openstack/auth.ts';
import type { ServiceType } from '../../../openstack/catalog.ts';
import { TransportError } from '../../../openstack/errors.ts';
import { createProject, findRoleByName, grantRole } from '../../../openstack/identity.ts';
import {
  createNetwork,
  createSubnet,
  replaceTags,
  unlimitedNetworkQuota,
  updateNetworkQuota,
  type Network,
} from '../../../openstack/network.ts';
import { Session, type RequestSpec, type ServiceClient } from '../../../openstack/session.ts';
import { Transport } from '../../../openstack/transport.ts';
import { cloudFixture, type CloudFixture } from '../../../emulator/testing/cloud.ts';
import type { As, IdentityCredentials, ProjectClients, RegionClientSet } from '../principals.ts';
import type { RealisedIdentity } from '../realised.ts';

/** How an interruption hits its request: the request runs and its answer is lost, or it is never sent. */
type Interruption = 'answer' | 'request';

export interface ClientsFixture extends CloudFixture {
  /** Every request the provider's clients (and their token requests) sent. */
  readonly accounting: RequestAccounting;
  readonly clients: RegionClientSet;
  /** Requests the provider's clients have sent (token requests excluded). */
  requests(): number;
  /** Who sent each of those requests and where: `principal project METHOD service path`, oldest first. */
  log(): readonly string[];
  /** Neutron writes (anything but GET) sent so far. */
  neutronWrites(): number;
  /** The `n`-th request from now (1-based) fails with a TransportError; one shot. */
  interrupt(n: number, how?: Interruption): void;
  /** A Keystone project for a new identity, with the region user (admin) holding `admin` there, quotas unlimited. */
  project(id: string): Promise<RealisedIdentity>;
  /** An external network with a subnet, made by the admin, optionally tagged. */
  externalNetwork(name: string, cidr: string, tags?: readonly string[]): Promise<Network>;
  close(): Promise<void>;
}

export async function clientsFixture(): Promise<ClientsFixture> {
  const cloud = await cloudFixture();
  const accounting = new RequestAccounting();
  const transport = new Transport({
    clock: cloud.clock,
    random: () => 0,
    retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    observer: accounting.observe,
  });
  const adminToken = await cloud.admin.token();
  const adminProject = adminToken.project?.id ?? '';
  const admin: AuthMethod = { type: 'password', user: { id: adminToken.user.id }, password: 'secret' };
  let sent = 0;
  const log: string[] = [];
  let pending: { left: number; how: Interruption } | undefined;

  const wrap = <S extends ServiceType>(
    inner: ServiceClient<S, 'project'>,
    who: string,
  ): ServiceClient<S, 'project'> => ({
    serviceType: inner.serviceType,
    scope: inner.scope,
    baseUrl: (signal) => inner.baseUrl(signal),
    request: async <T>(spec: RequestSpec) => {
      sent++;
      log.push(`${who} ${spec.method} ${inner.serviceType} ${spec.path}`);
      const hit = pending !== undefined && --pending.left === 0 ? pending.how : undefined;
      if (hit !== undefined) pending = undefined;
      const site = { serviceType: inner.serviceType, method: spec.method, urlTemplate: spec.path };
      if (hit === 'request') throw new TransportError(site, new Error('interrupted before sending'));
      const response = await inner.request<T>(spec);
      if (hit === 'answer') throw new TransportError(site, new Error('interrupted: the answer was lost'));
      return response;
    },
  });

  function projectClients<P extends 'region' | 'identity' | 'privileged'>(
    principal: P,
    projectID: string,
    auth: AuthMethod,
  ): ProjectClients<P> {
    const session = new Session<'project'>({
      authUrl: cloud.emulator.authUrl,
      auth,
      scope: { kind: 'project', project: { id: projectID } },
      transport,
      clock: cloud.clock,
      region: 'RegionOne',
    });
    return {
      principal,
      projectID,
      client: <S extends ServiceType>(service: S) =>
        wrap(session.client(service), `${principal} ${projectID}`) as As<P, S, ServiceClient<S, 'project'>>,
    };
  }

  const privileged = new Map<string, ProjectClients<'privileged'>>();
  const region = projectClients('region', adminProject, admin);
  const clients: RegionClientSet = {
    credentials: {
      authUrl: cloud.emulator.authUrl,
      domainID: 'default',
      projectID: adminProject,
      userID: adminToken.user.id,
    },
    manager: () => {
      throw new Error('the network and security group tests hold no manager client');
    },
    region: () => region,
    identity: (c: IdentityCredentials) =>
      projectClients('identity', c.projectID, { type: 'password', user: { id: c.userID }, password: c.password }),
    privileged: (projectID) => {
      let found = privileged.get(projectID);
      if (found === undefined) {
        found = projectClients('privileged', projectID, admin);
        privileged.set(projectID, found);
      }
      return found;
    },
  };

  return {
    ...cloud,
    accounting,
    clients,
    requests: () => sent,
    log: () => [...log],
    neutronWrites: () =>
      accounting.counts().reduce((n, c) => n + (c.serviceType === 'network' && c.method !== 'GET' ? c.requests : 0), 0),
    interrupt: (n, how = 'answer') => {
      pending = { left: n, how };
    },
    project: async (id) => {
      const keystone = cloud.admin.client('identity');
      const project = await createProject(keystone, { name: `unikorn-identity-${id}`, domain_id: 'default' });
      const roleID = (await findRoleByName(keystone, 'admin'))?.id ?? '';
      await grantRole(keystone, { userID: adminToken.user.id, projectID: project.id, roleID: roleID });
      // As identity creation does: tests make more groups and networks than Neutron's default quotas allow.
      await updateNetworkQuota(cloud.admin.client('network'), project.id, unlimitedNetworkQuota);
      return { identityID: id, projectID: project.id };
    },
    externalNetwork: async (name, cidr, tags = []) => {
      const neutron = cloud.admin.client('network');
      const network = await createNetwork(neutron, { name, 'router:external': true, shared: false });
      await createSubnet(neutron, { network_id: network.id, name, cidr, ip_version: 4 });
      if (tags.length > 0) await replaceTags(neutron, 'networks', network.id, tags);
      return network;
    },
    close: async () => {
      await transport.close();
      await cloud.close();
    },
  };
}
