/**
 * The one place a region's Sessions are made and their clients branded with a principal (principals.ts): every
 * `as` cast from a plain ServiceClient to a principal's type is in this file, next to the credential and scope
 * that justify it.
 *
 * The manager and region sessions live as long as the set; identity and privileged sessions are made per project
 * on first use and kept in a small LRU, so a busy region does not re-authenticate per call and an idle identity's
 * session is eventually dropped. Each Session authenticates single-flight and renews itself (session.ts).
 */
import { createHash } from 'node:crypto';
import type { ServiceType } from '../../openstack/catalog.ts';
import { UnauthorizedError } from '../../openstack/errors.ts';
import type { MicroversionConfig } from '../../openstack/microversion.ts';
import { Session, type ServiceClient } from '../../openstack/session.ts';
import type { Transport } from '../../openstack/transport.ts';
import type { Clock } from '../../util/clock.ts';
import type {
  As,
  IdentityCredentials,
  ManagerIdentityClient,
  ProjectClients,
  RegionClientSet,
  RegionCredentials,
} from './principals.ts';
import { defined } from '../../util/defined.ts';

export interface ClientSetOptions {
  readonly transport: Transport;
  readonly clock: Clock;
  /** The catalog region to pick endpoints from (Keystone's region id), when the cloud has several. */
  readonly region?: string | undefined;
  readonly microversions?: MicroversionConfig | undefined;
  /** How many identity and privileged project sessions to keep; the least recently used go first. */
  readonly maxProjectSessions?: number | undefined;
}

/** A RegionClientSet that can also forget one project's sessions (an identity being deleted). */
export interface ManagedRegionClientSet extends RegionClientSet {
  /** Drops the cached identity and privileged sessions of `projectID`; their tokens die with the project. */
  forgetProject(projectID: string): void;
  /**
   * Whether Keystone accepts a credential, asked with an unscoped token request (so a user with no role yet can be
   * asked): false on a refusal (401, or Keystone's 404 for an unknown credential); any other failure is thrown.
   */
  authenticates(auth: PasswordByID | ApplicationCredentialByID): Promise<boolean>;
}

type PasswordByID = {
  readonly type: 'password';
  readonly user: { readonly id: string };
  readonly password: string;
};
type ApplicationCredentialByID = {
  readonly type: 'application_credential';
  readonly id: string;
  readonly secret: string;
};

const DEFAULT_MAX_PROJECT_SESSIONS = 256;

export function createRegionClientSet(
  credentials: RegionCredentials,
  options: ClientSetOptions,
): ManagedRegionClientSet {
  const { authUrl, domainID, projectID, userID, password } = credentials;
  const common = {
    authUrl,
    transport: options.transport,
    clock: options.clock,
    region: options.region,
    ...defined({ microversions: options.microversions }),
  };
  const regionUser = { type: 'password', user: { id: userID }, password } as const;
  const manager = new Session<'domain'>({
    ...common,
    auth: regionUser,
    scope: { kind: 'domain', domain: { id: domainID } },
  });
  const inProject = (auth: typeof regionUser, project: string) =>
    new Session<'project'>({ ...common, auth, scope: { kind: 'project', project: { id: project } } });

  const region = projectClients('region', projectID, inProject(regionUser, projectID));
  const sessions = new Lru<ProjectClients<'identity'> | ProjectClients<'privileged'>>(
    options.maxProjectSessions ?? DEFAULT_MAX_PROJECT_SESSIONS,
  );
  // The manager's identity client is immutable; one object serves every call.
  const managerIdentity = manager.client('identity') as ManagerIdentityClient;

  return {
    credentials: { authUrl, domainID, projectID, userID },
    manager: () => managerIdentity,
    region: () => region,
    identity: (identity: IdentityCredentials) => {
      // The password is part of the key (hashed, never kept in clear here) so a reset password gets a new session.
      const key = `identity/${identity.projectID}/${identity.userID}/${digest(identity.password)}`;
      return sessions.getOrAdd(key, () => {
        const auth = { type: 'password', user: { id: identity.userID }, password: identity.password } as const;
        return projectClients('identity', identity.projectID, inProject(auth, identity.projectID));
      }) as ProjectClients<'identity'>;
    },
    privileged: (project: string) =>
      sessions.getOrAdd(`privileged/${project}/`, () =>
        projectClients('privileged', project, inProject(regionUser, project)),
      ) as ProjectClients<'privileged'>,
    forgetProject: (project: string) => {
      sessions.deleteWhere((key) => key.startsWith(`identity/${project}/`) || key === `privileged/${project}/`);
    },
    authenticates: async (auth) => {
      try {
        await new Session<'unscoped'>({ ...common, auth, scope: { kind: 'unscoped' } }).token();
        return true;
      } catch (error) {
        if (error instanceof UnauthorizedError) return false;
        throw error;
      }
    },
  };
}

function projectClients<P extends 'region' | 'identity' | 'privileged'>(
  principal: P,
  projectID: string,
  session: Session<'project'>,
): ProjectClients<P> {
  const clients = new Map<ServiceType, ServiceClient<ServiceType, 'project'>>();
  return {
    principal,
    projectID,
    client: <S extends ServiceType>(service: S): As<P, S, ServiceClient<S, 'project'>> => {
      // A client made for `service` is stored under `service`, so what comes back out has its type.
      const cached = clients.get(service) as ServiceClient<S, 'project'> | undefined;
      const client = cached ?? session.client(service);
      if (cached === undefined) clients.set(service, client);
      // The brand: this session holds `principal`'s credentials scoped to `projectID`, as the type says.
      return client as As<P, S, ServiceClient<S, 'project'>>;
    },
  };
}

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

/** A Map kept in recency order: a hit moves to the end, an insert past `max` drops the first. */
export class Lru<V> {
  readonly #max: number;
  readonly #entries = new Map<string, V>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('an LRU holds at least one entry');
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  getOrAdd(key: string, make: () => V): V {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const value = make();
    this.#entries.set(key, value);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#max) break;
      this.#entries.delete(oldest);
    }
    return value;
  }

  deleteWhere(match: (key: string) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (match(key)) this.#entries.delete(key);
  }
}
