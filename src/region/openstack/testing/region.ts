/**
 * The cloud fixture plus a region, for the OpenStack provider's tests: an embedded store holding one OpenStack
 * Region, its credentials Secret and a managed domain with the region account in it. Sessions go through a RecordingTransport,
 * which notes who (user and scope) made each request and can interrupt a pass right after the Nth request took
 * effect.
 *
 * Two region accounts:
 * - `configured` (what production runs): made by `region configure` (registration/configure.ts), a non-admin
 *   domain manager holding `manager` on every project of its domain by an inherited grant, under the
 *   domain-manager policies the emulator enforces; the Region names `region register`'s clusterRoles.
 * - `admin`: the account holds `admin` on its domain and `manager` implies `admin`, and the Region names no roles,
 *   so the default identity roles are exercised. Authorisation is broader than production's; which credential each
 *   call uses is what the recorded principals check.
 */
import { randomUUID } from 'node:crypto';
import { cloudFixture, type CloudFixture } from '../../../emulator/testing/cloud.ts';
import type { Client } from '../../../kube/client.ts';
import { builtin } from '../../../kube/resource-type.ts';
import type { KubeObject } from '../../../kube/object.ts';
import {
  createDomain,
  createProject,
  createUser,
  ensureRole,
  grantRole,
  type IdentityClient,
} from '../../../openstack/identity.ts';
import type { Clock } from '../../../util/clock.ts';
import { Transport, type OutgoingRequest, type RawResponse } from '../../../openstack/transport.ts';
import { API_VERSION, regionType, type Region } from '../../apis/index.ts';
import { openRegionStore } from '../../apis/testing/store.ts';
import { configureRegion, planFor } from '../../registration/configure.ts';
import { DEFAULT_CLUSTER_ROLES } from '../../registration/register.ts';
import { clientSetFactory, RegionRegistry } from '../registry.ts';
import type { RegionCredentials } from '../principals.ts';
import { CREDENTIAL_KEYS } from '../region-config.ts';

/** Who made a request: the token's user and its scope (`domain:<id>`, `project:<id>` or `unscoped`). */
interface Caller {
  readonly userID: string;
  readonly scope: string;
}

interface RecordedRequest {
  readonly method: string;
  readonly serviceType: string;
  readonly urlTemplate: string;
  /** Undefined for token requests (they carry a credential, not a token). */
  readonly caller: Caller | undefined;
}

class InterruptedError extends Error {
  constructor(n: number) {
    super(`interrupted after request ${String(n)}`);
    this.name = 'InterruptedError';
  }
}

export class RecordingTransport extends Transport {
  readonly requests: RecordedRequest[] = [];
  readonly #callers = new Map<string, Caller>();
  #interruptAfter: number | undefined;
  #sent = 0;

  /** The Nth request from now takes effect, then its caller sees InterruptedError (as if the process died). */
  interruptAfter(n: number | undefined): void {
    this.#interruptAfter = n;
    this.#sent = 0;
  }

  override async send(request: OutgoingRequest): Promise<RawResponse> {
    const response = await super.send(request);
    const { method, serviceType, urlTemplate } = request.site;
    const token = request.headers['x-auth-token'];
    this.requests.push({
      method,
      serviceType,
      urlTemplate,
      caller: token === undefined ? undefined : this.#callers.get(token),
    });
    const subject = response.headers['x-subject-token'];
    if (urlTemplate === '/auth/tokens' && method === 'POST' && subject !== undefined) {
      this.#callers.set(subject, callerOf(response.text));
    }
    this.#sent++;
    if (this.#interruptAfter !== undefined && this.#sent === this.#interruptAfter) {
      throw new InterruptedError(this.#sent);
    }
    return response;
  }
}

function callerOf(text: string): Caller {
  const { token } = JSON.parse(text) as {
    token: { user: { id: string }; project?: { id: string }; domain?: { id: string } };
  };
  const scope = token.project ? `project:${token.project.id}` : token.domain ? `domain:${token.domain.id}` : 'unscoped';
  return { userID: token.user.id, scope };
}

export interface RegionFixture extends CloudFixture {
  readonly store: Client;
  readonly transport: RecordingTransport;
  readonly namespace: string;
  readonly region: Region;
  readonly credentials: RegionCredentials;
  /** A fresh registry (new sessions, nothing cached), as a restarted process would build. */
  registry(): Promise<RegionRegistry>;
  /** Cloud admin's Keystone client, for listing what the provider left behind. */
  adminIdentity(): IdentityClient;
  close(): Promise<void>;
}

export type RegionAccount = 'configured' | 'admin';

/** Where the region lives: an embedded store in memory, unless a suite brings a real kube-apiserver's client. */
export interface RegionStore {
  /** A client whose server already serves the region kinds; closing it stays with the caller. */
  readonly client?: Client;
  readonly namespace?: string;
}

export async function regionFixture(
  account: RegionAccount = 'configured',
  where: RegionStore = {},
): Promise<RegionFixture> {
  const cloud = await cloudFixture();
  const namespace = where.namespace ?? 'default';
  const { store, close: closeStore } = await storeFor(where, cloud.clock);
  const admin = cloud.admin.client('identity');
  const roles = await ensureRoles(admin);
  const credentials =
    account === 'admin' ? await adminAccount(cloud, admin, roles) : await configuredAccount(cloud, admin);
  const secretName = 'region-credentials';
  await store.create(builtin.secret, credentialsSecret(secretName, namespace, credentials));
  const region = await store.create(regionType, {
    apiVersion: API_VERSION,
    kind: 'Region',
    metadata: { name: randomUUID(), namespace },
    spec: {
      provider: 'openstack',
      openstack: {
        endpoint: credentials.authUrl,
        serviceAccountSecret: { namespace, name: secretName },
        // As `region register` writes it; the admin account runs with the default roles.
        ...(account === 'configured' ? { identity: { clusterRoles: [...DEFAULT_CLUSTER_ROLES] } } : {}),
      },
    },
  });
  const transport = new RecordingTransport({
    clock: cloud.clock,
    random: () => 0,
    retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  const options = {
    namespace,
    bootstrapClient: store,
    runtimeClient: store,
    clientSets: clientSetFactory({ transport, clock: cloud.clock, region: 'RegionOne' }),
  };
  return {
    ...cloud,
    store,
    transport,
    namespace,
    region,
    credentials,
    registry: () => RegionRegistry.bootstrap(options),
    adminIdentity: () => admin,
    close: async () => {
      await transport.close();
      await closeStore();
      await cloud.close();
    },
  };
}

async function storeFor(where: RegionStore, clock: Clock): Promise<{ store: Client; close: () => Promise<void> }> {
  if (where.client !== undefined) return { store: where.client, close: async () => {} };
  const embedded = await openRegionStore(clock);
  return { store: embedded, close: () => embedded.close() };
}

async function ensureRoles(admin: IdentityClient): Promise<Map<string, string>> {
  const roles = new Map<string, string>();
  for (const name of ['admin', 'member', 'reader', 'manager', 'load-balancer_member']) {
    roles.set(name, await ensureRole(admin, name));
  }
  return roles;
}

async function configuredAccount(cloud: CloudFixture, admin: IdentityClient): Promise<RegionCredentials> {
  const { credentials } = await configureRegion(planFor(`region-${randomUUID()}`), undefined, {
    identity: admin,
    authUrl: cloud.emulator.authUrl,
    regionName: 'RegionOne',
    authenticates: () => Promise.resolve(false),
    newPassword: () => `region-password-${randomUUID()}`,
  });
  const { authUrl, domainID, projectID, userID, password } = credentials;
  return { authUrl, domainID: domainID, projectID: projectID, userID: userID, password };
}

async function adminAccount(
  cloud: CloudFixture,
  admin: IdentityClient,
  roles: ReadonlyMap<string, string>,
): Promise<RegionCredentials> {
  await admin.request({
    method: 'PUT',
    path: '/roles/{prior}/implies/{implied}',
    params: { prior: roles.get('manager') ?? '', implied: roles.get('admin') ?? '' },
  });
  const domain = await createDomain(admin, { name: `region-${randomUUID()}` });
  const project = await createProject(admin, { name: 'region', domain_id: domain.id });
  const password = `region-password-${randomUUID()}`;
  const user = await createUser(admin, { name: 'region', domain_id: domain.id, password });
  await grantRole(admin, { userID: user.id, domainID: domain.id, roleID: roles.get('admin') ?? '' });
  await grantRole(admin, { userID: user.id, projectID: project.id, roleID: roles.get('member') ?? '' });
  return { authUrl: cloud.emulator.authUrl, domainID: domain.id, projectID: project.id, userID: user.id, password };
}

function credentialsSecret(name: string, namespace: string, credentials: RegionCredentials): KubeObject {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: {
      [CREDENTIAL_KEYS.domainID]: b64(credentials.domainID),
      [CREDENTIAL_KEYS.projectID]: b64(credentials.projectID),
      [CREDENTIAL_KEYS.userID]: b64(credentials.userID),
      [CREDENTIAL_KEYS.password]: b64(credentials.password),
    },
  };
}
