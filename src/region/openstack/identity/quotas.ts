/**
 * An identity's unlimited quotas, with a policy's refusal remembered. The policy-installed cloud keeps Neutron
 * quotas admin-only (deploy/policies/neutron.yaml), so every identity re-check asked again, was refused again and
 * warned again: 170 warnings in one 200-server delete, burying what mattered. A refusal is now remembered per
 * identity project for as long as the region's client set lives, which the registry rebuilds when the Region's
 * OpenStack config or its credentials Secret changes (and a restart starts afresh, e.g. after a policy change); it
 * is logged at info, once per client set, with what an operator can do about it.
 */
import type { Logger } from 'pino';
import type { ServiceType } from '../../../openstack/catalog.ts';
import type { ManagedRegionClientSet } from '../client-set.ts';
import { ensureUnlimitedQuotas } from './steps.ts';

interface Refusals {
  /** The services each identity project was refused, by project id. */
  readonly byProject: Map<string, ReadonlySet<ServiceType>>;
  /** Services whose refusal has been explained at info for this client set. */
  readonly explained: Set<ServiceType>;
}

/** Keyed by the client set: a new set (new credentials or config) forgets every refusal. */
const refusalsByClients = new WeakMap<ManagedRegionClientSet, Refusals>();

/**
 * Sets the project's quotas unlimited, never asking again for a service the policy already refused this project;
 * answers the services refused on this call (already-known refusals are not asked, so not counted).
 */
export async function ensureIdentityQuotas(
  clients: ManagedRegionClientSet,
  projectID: string,
  log: Logger,
): Promise<ServiceType[]> {
  let refusals = refusalsByClients.get(clients);
  if (refusals === undefined) {
    refusals = { byProject: new Map(), explained: new Set() };
    refusalsByClients.set(clients, refusals);
  }
  const known = refusals.byProject.get(projectID) ?? new Set<ServiceType>();
  const refused = await ensureUnlimitedQuotas(clients.privileged(projectID), known);
  if (refused.length === 0) return refused;
  refusals.byProject.set(projectID, new Set([...known, ...refused]));
  const unexplained = refused.filter((service) => !refusals.explained.has(service));
  for (const service of unexplained) refusals.explained.add(service);
  if (unexplained.length > 0) {
    log.info(
      {
        services: unexplained,
        fix:
          "the cloud's default quotas apply to identity projects; to lift them, have an OpenStack admin set the " +
          "projects' quotas or raise the defaults (network quotas are admin-only by design in " +
          'deploy/policies/neutron.yaml); openregion asks again once the region credentials change or it restarts',
      },
      'quota update refused by policy: not asked again for this identity',
    );
  } else {
    log.debug({ services: refused }, 'quota update refused by policy: not asked again for this identity');
  }
  return refused;
}
