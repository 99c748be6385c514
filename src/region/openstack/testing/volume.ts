/**
 * The clients fixture (clients.ts: request log with principals, interruption) for volumes and attachments:
 * identities that have their own member user (volume calls run as that user), a flavor and an image to boot servers
 * from, and a hook that runs a competitor's action just before one of the provider's requests goes out (the attach
 * race).
 */
import { updateQuotaSet } from '../../../openstack/blockstorage.ts';
import {
  createServer,
  getServer,
  updateQuotaSet as updateComputeQuota,
  type ComputeClient,
} from '../../../openstack/compute.ts';
import { createUser, findRoleByName, grantRole } from '../../../openstack/identity.ts';
import { createImage } from '../../../openstack/image.ts';
import type { RequestSpec, ServiceClient } from '../../../openstack/session.ts';
import type { ServiceType } from '../../../openstack/catalog.ts';
import type { As, ProjectClients, RegionClientSet } from '../principals.ts';
import { clientsFixture, type ClientsFixture } from './clients.ts';
import type { VolumeDeps } from '../volume/lifecycle.ts';
import type { UserIdentity } from '../realised.ts';
import { SystemMetadata } from '../names.ts';

const PASSWORD = 'identity-password';

export interface VolumeFixture extends ClientsFixture {
  /** A project with the admin's grant (`project`) and a member user of its own; Cinder quotas unlimited. */
  workload(id: string): Promise<UserIdentity>;
  /** An ACTIVE server named `name` in the identity's project, made directly (not through the provider's clients). */
  /** A Nova server made for the Server `serverID` (its linkage metadata, find.ts), named `name`. */
  server(identity: UserIdentity, name: string, serverID?: string): Promise<string>;
  /** The identity user's own compute client, outside the provider's request log (a competitor, a fixture). */
  userCompute(identity: UserIdentity): ComputeClient;
  /** Lets the emulator's timeline run `ms` forward (Cinder creates, attaches, deletes …). */
  settle(ms?: number): void;
  deps(clients?: RegionClientSet): VolumeDeps;
  /**
   * The provider's clients, but before each request `before(method, service, path)` runs and may act as a
   * competitor; it sees every request, in order.
   */
  hooked(before: (method: string, service: string, path: string) => Promise<void>): RegionClientSet;
  close(): Promise<void>;
}

export async function volumeFixture(): Promise<VolumeFixture> {
  const tb = await clientsFixture();
  const { admin } = tb;
  const keystone = admin.client('identity');
  const memberRole = (await findRoleByName(keystone, 'member'))?.id ?? '';
  const { body } = await admin.client('compute').request<{ flavor: { id: string } }>({
    method: 'POST',
    path: '/flavors',
    body: { flavor: { name: 'vol.small', vcpus: 1, ram: 512, disk: 1 } },
  });
  const flavorID = body.flavor.id;
  const glance = admin.client('image');
  const image = await createImage(glance, { name: 'vol-image', visibility: 'public' });
  await glance.request({
    method: 'PUT',
    path: '/images/{id}/file',
    params: { id: image.id },
    contentType: 'application/octet-stream',
    body: 'image',
  });
  const userCompute = (identity: UserIdentity): ComputeClient =>
    tb
      .session(
        { type: 'password', user: { id: identity.credentials.userID }, password: PASSWORD },
        { kind: 'project', project: { id: identity.projectID } },
      )
      .client('compute');
  const settle = (ms = 1_000) => {
    tb.emulator.control.advance(ms);
  };

  return {
    ...tb,
    workload: async (id) => {
      const realised = await tb.project(id);
      const user = await createUser(keystone, { name: `user-${id}`, domain_id: 'default', password: PASSWORD });
      await grantRole(keystone, { userID: user.id, projectID: realised.projectID, roleID: memberRole });
      await updateQuotaSet(admin.client('block-storage'), realised.projectID, { volumes: -1, gigabytes: -1 });
      await updateComputeQuota(admin.client('compute'), realised.projectID, { instances: -1, cores: -1, ram: -1 });
      return { ...realised, credentials: { projectID: realised.projectID, userID: user.id, password: PASSWORD } };
    },
    userCompute,
    server: async (identity, name, serverID = name) => {
      const compute = userCompute(identity);
      const metadata = { [SystemMetadata.serverID]: serverID };
      const created = await createServer(compute, {
        name,
        flavorRef: flavorID,
        imageRef: image.id,
        networks: 'none',
        metadata,
      });
      settle(5_000);
      const server = await getServer(compute, created.id);
      if (server.status !== 'ACTIVE') throw new Error(`server ${name} is ${server.status}`);
      return created.id;
    },
    settle,
    deps: (clients = tb.clients) => ({ clients, signal: new AbortController().signal }),
    hooked: (before) => hookedClients(tb.clients, before),
  };
}

function hookedClients(
  inner: RegionClientSet,
  before: (method: string, service: string, path: string) => Promise<void>,
): RegionClientSet {
  const wrap = <P extends 'region' | 'identity' | 'privileged'>(clients: ProjectClients<P>): ProjectClients<P> => ({
    principal: clients.principal,
    projectID: clients.projectID,
    client: <S extends ServiceType>(service: S) => {
      const client = clients.client(service);
      const hooked: ServiceClient<S, 'project'> = {
        serviceType: client.serviceType,
        scope: client.scope,
        baseUrl: (signal) => client.baseUrl(signal),
        request: async <T>(spec: RequestSpec) => {
          await before(spec.method, client.serviceType, spec.path);
          return client.request<T>(spec);
        },
      };
      return hooked as As<P, S, ServiceClient<S, 'project'>>;
    },
  });
  return {
    credentials: inner.credentials,
    manager: () => inner.manager(),
    region: () => wrap(inner.region()),
    identity: (credentials) => wrap(inner.identity(credentials)),
    privileged: (projectID) => wrap(inner.privileged(projectID)),
  };
}
