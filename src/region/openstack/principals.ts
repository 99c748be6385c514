/**
 * Scoping in the types (docs/architecture.md §Scoping is in the types): every OpenStack client the provider holds says,
 * in its type, whose credentials it carries and which scope it has, so a workload call made with the region's
 * credentials, or a Keystone call made in a tenant's project, does not compile.
 *
 * - `manager`: the region credentials, domain-scoped; manages users and projects in the managed domain, nothing else.
 * - `region`: the region credentials scoped to the region's own project; inventory (flavors, images, external
 *   networks, volume types).
 * - `identity`: one identity's own user, scoped to that identity's project; most workload operations.
 * - `privileged`: the region credentials bound to one identity's project, for what needs the manager role there
 *   (provider networks, security groups, quotas, pinned server creation, image publishing, Ironic lookups).
 */
import type { ServiceType } from '../../openstack/catalog.ts';
import type { ServiceClient } from '../../openstack/session.ts';

type Principal = 'manager' | 'region' | 'identity' | 'privileged';

declare const principalBrand: unique symbol;

/** A service client acting as `P`. The brand exists only in the type: values are plain ServiceClients. */
export type As<P extends Principal, S extends ServiceType, C extends ServiceClient<S> = ServiceClient<S>> = C & {
  readonly [principalBrand]: P;
};

export type ManagerIdentityClient = As<'manager', 'identity', ServiceClient<'identity', 'domain'>>;
export type RegionClient<S extends ServiceType> = As<'region', S, ServiceClient<S, 'project'>>;
export type IdentityClient<S extends ServiceType> = As<'identity', S, ServiceClient<S, 'project'>>;
export type PrivilegedClient<S extends ServiceType> = As<'privileged', S, ServiceClient<S, 'project'>>;

/** Clients for one principal in one project, one per service, created on first use. */
export interface ProjectClients<P extends 'region' | 'identity' | 'privileged'> {
  readonly principal: P;
  readonly projectID: string;
  client<S extends ServiceType>(service: S): As<P, S, ServiceClient<S, 'project'>>;
}

/** The region's credentials Secret (keys `domain-id`, `project-id`, `user-id`, `password`) and its endpoint. */
export interface RegionCredentials {
  readonly authUrl: string;
  readonly domainID: string;
  readonly projectID: string;
  readonly userID: string;
  readonly password: string;
}

/** What an identity's own user authenticates with (from its OpenstackIdentity record). */
export interface IdentityCredentials {
  readonly projectID: string;
  readonly userID: string;
  readonly password: string;
}

/**
 * Every client the provider for one region can hold. Built from one Region and its credentials Secret; a new set
 * is built when either changes (see `client-set.ts`).
 */
export interface RegionClientSet {
  readonly credentials: Pick<RegionCredentials, 'authUrl' | 'domainID' | 'projectID' | 'userID'>;
  manager(): ManagerIdentityClient;
  region(): ProjectClients<'region'>;
  identity(credentials: IdentityCredentials): ProjectClients<'identity'>;
  privileged(projectID: string): ProjectClients<'privileged'>;
}
