/** Placement (microversion 1.22): resource providers filtered by capacity and traits, for the pinned-server preflight. */
import { listAll, type ListOptions } from './pagination.ts';
import { joined, toQuery, type QueryKeys } from './request.ts';
import type { ServiceClient } from './session.ts';

export type PlacementClient = ServiceClient<'placement'>;

export interface ResourceProvider {
  readonly uuid: string;
  readonly name: string;
  readonly generation: number;
  readonly parent_provider_uuid: string | null;
  readonly root_provider_uuid: string;
}

export interface ResourceProviderFilter {
  /** Resource class → amount the provider must have free, e.g. `{ CUSTOM_BAREMETAL_GOLD: 1 }`. */
  readonly resources?: Readonly<Record<string, number>> | undefined;
  /** Traits the provider must have. */
  readonly requiredTraits?: readonly string[] | undefined;
  /** Traits the provider must not have (sent as `!TRAIT`, which needs 1.22). */
  readonly forbiddenTraits?: readonly string[] | undefined;
  readonly name?: string | undefined;
  readonly uuid?: string | undefined;
  readonly inTree?: string | undefined;
}

/** Both trait lists share Placement's one `required` parameter, so they are written together, below. */
const resourceProviderKeys: QueryKeys<Omit<ResourceProviderFilter, 'requiredTraits' | 'forbiddenTraits'>> = {
  resources: {
    name: 'resources',
    encode: (resources) => joined(Object.entries(resources).map(([cls, amount]) => `${cls}:${String(amount)}`)),
  },
  name: 'name',
  uuid: 'uuid',
  inTree: 'in_tree',
};

export function listResourceProviders(
  placement: PlacementClient,
  filter: ResourceProviderFilter = {},
  options?: ListOptions,
): Promise<ResourceProvider[]> {
  const { requiredTraits = [], forbiddenTraits = [], ...rest } = filter;
  const required = joined([...requiredTraits, ...forbiddenTraits.map((t) => `!${t}`)]);
  return listAll<ResourceProvider>(
    placement,
    {
      method: 'GET',
      path: '/resource_providers',
      query: { ...toQuery(rest, resourceProviderKeys), required },
    },
    { kind: 'single', items: 'resource_providers' },
    options,
  );
}

interface ResourceProviderTraits {
  readonly traits: readonly string[];
  readonly resource_provider_generation: number;
}

export async function getResourceProviderTraits(
  placement: PlacementClient,
  uuid: string,
): Promise<ResourceProviderTraits> {
  const { body } = await placement.request<ResourceProviderTraits>({
    method: 'GET',
    path: '/resource_providers/{uuid}/traits',
    params: { uuid },
  });
  return body;
}
