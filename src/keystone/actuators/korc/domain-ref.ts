/** A `domainRef`: the K-ORC Domain object in the same namespace, usable once it is Available with an id. */
import { getOptional, type Client } from '../../../kube/client.ts';
import { isConditionTrue } from '../../../kube/conditions.ts';
import { korcConditions, korcDomainType } from '../../apis/korc.ts';

/** `id` undefined: no ref and no default (an import filter without a domain). */
type DomainResolution = { readonly id: string | undefined } | { readonly wait: string };

export async function resolveDomain(
  client: Client,
  namespace: string,
  ref: string | undefined,
  fallback: string | undefined,
): Promise<DomainResolution> {
  if (ref === undefined) return { id: fallback };
  const domain = await getOptional(client, korcDomainType, namespace, ref);
  if (domain === undefined) return { wait: `Waiting for Domain/${ref} to be created` };
  const id = domain.status?.id;
  if (id === undefined || !isConditionTrue(domain.status?.conditions, korcConditions.available)) {
    return { wait: `Waiting for Domain/${ref} to be ready` };
  }
  return { id };
}
