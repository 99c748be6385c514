/**
 * The K-ORC Domain's I/O over Keystone: look it up (by status.id, import or exact name), create it, and delete it
 * (Keystone deletes only a disabled domain, so it is disabled first).
 */
import { isNotFound } from '../../../openstack/errors.ts';
import {
  createDomain,
  deleteDomain,
  getDomain,
  listDomains,
  updateDomain,
  type Domain,
  type IdentityClient,
} from '../../../openstack/identity.ts';
import { korcDomainType, type KorcDomain } from '../../apis/korc.ts';
import type { Lookup } from './decide.ts';
import type { KindActuator } from './pass.ts';
import { defined } from '../../../util/defined.ts';

export const KORC_DOMAIN_FINALIZER = 'openstack.k-orc.cloud/domain';

/** `identityFor` gives the identity client for a Domain, from its cloudCredentialsRef. */
export function domainActuator(identityFor: (d: KorcDomain) => Promise<IdentityClient>): KindActuator<KorcDomain> {
  const nameOf = (d: KorcDomain) => d.spec.resource?.name ?? d.metadata.name;
  const idIfExists = async (identity: IdentityClient, id: string): Promise<string[]> => {
    try {
      return [(await getDomain(identity, id)).id];
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  };
  const byName = async (identity: IdentityClient, name: string | undefined, enabled?: boolean): Promise<string[]> => {
    const domains = await listDomains(identity, { name, enabled });
    // Keystone's name filter follows the database collation: keep exact matches only.
    return domains.filter((x) => name === undefined || x.name === name).map((x) => x.id);
  };
  const lookup = async (d: KorcDomain, identity: IdentityClient): Promise<Lookup> => {
    const recorded = d.status?.id;
    if (recorded !== undefined && recorded !== '') return { by: 'statusId', ids: await idIfExists(identity, recorded) };
    const imp = d.spec.import;
    if (d.spec.managementPolicy === 'unmanaged') {
      if (imp?.id !== undefined) return { by: 'importId', ids: await idIfExists(identity, imp.id) };
      return { by: 'filter', ids: await byName(identity, imp?.filter?.name, imp?.filter?.enabled) };
    }
    return { by: 'name', ids: await byName(identity, nameOf(d)) };
  };
  return {
    type: korcDomainType,
    finalizer: KORC_DOMAIN_FINALIZER,
    observe: async (d) => ({
      dependencyWait: undefined,
      lookup: await lookup(d, await identityFor(d)),
    }),
    create: async (d) => {
      const resource = d.spec.resource;
      const domain = await createDomain(await identityFor(d), {
        name: nameOf(d),
        ...defined({ description: resource?.description, enabled: resource?.enabled }),
      });
      return { id: domain.id, described: describeDomain(domain) };
    },
    delete: async (d, id) => {
      const identity = await identityFor(d);
      await updateDomain(identity, id, { enabled: false });
      await deleteDomain(identity, id);
    },
    describe: async (d, id) => describeDomain(await getDomain(await identityFor(d), id)),
  };
}

function describeDomain(domain: Domain): Readonly<Record<string, unknown>> {
  return {
    name: domain.name,
    enabled: domain.enabled,
    ...(domain.description ? { description: domain.description } : {}),
  };
}
