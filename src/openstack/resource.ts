/**
 * One OpenStack collection declared once. Most resources of Neutron, Octavia, Cinder, Nova and Keystone are created,
 * read, listed, found by name, updated and deleted the same way: a collection path, a member path naming the id
 * `{<envelope>_id}`, a single resource wrapped in an envelope named after it (`{"network": {…}}`), a paged list
 * under the plural key. gophercloud writes those six calls again in each package; here a service module declares
 * each resource's paths, envelope, list paging and filter once, and exports the calls it offers from it.
 *
 * Calls that differ from the shape (a cascade flag on delete, a microversion header, a wrapped list item) stay
 * written out beside the declaration in their module.
 */
import { exactlyNamed, type Named } from './exact.ts';
import { listAll, type ListOptions, type PageStyle } from './pagination.ts';
import { requestEnveloped, toQuery, type QueryKeys } from './request.ts';
import type { ServiceClient } from './session.ts';

interface ResourceDeclaration<F extends object> {
  /** The collection below the service's base URL (`/security-groups`): created here, its members below it. */
  readonly path: string;
  /** The key one resource is wrapped in (`security_group`); the member path names the id `{security_group_id}`. */
  readonly envelope: string;
  /** How the list pages: the service's usual style with the plural items key (`security_groups`). */
  readonly style: PageStyle;
  /** The list filter's wire names. */
  readonly keys: QueryKeys<F>;
  /** The list's path where it is not the collection (Nova's and Cinder's `/detail` lists). */
  readonly listPath?: string | undefined;
  /** Keystone changes fields with PATCH; Neutron and Octavia replace them with PUT (the default). */
  readonly update?: 'PUT' | 'PATCH' | undefined;
  /** What a name found twice is called in the ConsistencyError (`security group`); the envelope by default. */
  readonly kind?: string | undefined;
}

/** The calls of one collection. `Create` and `Update` are the bodies it takes; `never` where it offers no such call. */
export interface Resource<C extends ServiceClient, T extends Named, F extends object, Create, Update> {
  readonly create: (client: C, body: Create) => Promise<T>;
  readonly get: (client: C, id: string) => Promise<T>;
  readonly list: (client: C, filter?: F, options?: ListOptions) => Promise<T[]>;
  /** The one item named exactly `name` among those `filter` selects, or undefined; duplicates throw ConsistencyError. */
  readonly findByName: (
    client: C,
    name: string,
    filter?: Omit<F, 'name'>,
    options?: ListOptions,
  ) => Promise<T | undefined>;
  readonly update: (client: C, id: string, body: Update) => Promise<T>;
  readonly delete: (client: C, id: string) => Promise<void>;
}

export function resource<C extends ServiceClient, T extends Named, F extends object, Create = never, Update = never>(
  declaration: ResourceDeclaration<F>,
): Resource<C, T, F, Create, Update> {
  const { path, envelope, style, keys } = declaration;
  const idParam = `${envelope}_id`;
  const member = `${path}/{${idParam}}`;
  const kind = declaration.kind ?? envelope;
  const list = (client: C, filter: F = {} as F, options?: ListOptions): Promise<T[]> =>
    listAll<T>(
      client,
      { method: 'GET', path: declaration.listPath ?? path, query: toQuery(filter, keys) },
      style,
      options,
    );
  return {
    create: (client, body) =>
      requestEnveloped<T>(client, envelope, { method: 'POST', path, body: { [envelope]: body } }),
    get: (client, id) =>
      requestEnveloped<T>(client, envelope, { method: 'GET', path: member, params: { [idParam]: id } }),
    list,
    findByName: async (client, name, filter, options) =>
      exactlyNamed(await list(client, { ...filter, name } as F, options), name, kind),
    update: (client, id, body) =>
      requestEnveloped<T>(client, envelope, {
        method: declaration.update ?? 'PUT',
        path: member,
        params: { [idParam]: id },
        body: { [envelope]: body },
      }),
    delete: async (client, id) => {
      await client.request({ method: 'DELETE', path: member, params: { [idParam]: id } });
    },
  };
}

/** The calls of a project's quota record: `Q` is what a read answers, `U` what an update takes, `R` what it answers. */
interface ProjectQuota<C extends ServiceClient, Q, U, R> {
  readonly get: (client: C, projectID: string) => Promise<Q>;
  /** Sets some of the project's limits (an admin call). */
  readonly update: (client: C, projectID: string, quota: U) => Promise<R>;
  /** Deletes the record, back to the defaults (an admin call); the services keep it past the project otherwise. */
  readonly delete: (client: C, projectID: string) => Promise<void>;
}

/** A project's quota record, one per project below `path` (`/os-quota-sets/{project_id}`), wrapped in `envelope`. */
export function projectQuota<C extends ServiceClient, Q, U, R = Q>(
  path: string,
  envelope: string,
): ProjectQuota<C, Q, U, R> {
  const member = `${path}/{project_id}`;
  return {
    get: (client, projectID) =>
      requestEnveloped<Q>(client, envelope, { method: 'GET', path: member, params: { project_id: projectID } }),
    update: (client, projectID, quota) =>
      requestEnveloped<R>(client, envelope, {
        method: 'PUT',
        path: member,
        params: { project_id: projectID },
        body: { [envelope]: quota },
      }),
    delete: async (client, projectID) => {
      await client.request({ method: 'DELETE', path: member, params: { project_id: projectID } });
    },
  };
}
