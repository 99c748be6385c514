/** Placement (microversion 1.22): resource providers filtered by capacity and traits, for the pinned-server preflight. */
import { listAll, type ListOptions } from './pagination.ts';
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
  readonly resources?: Readonly<Record<string, number>>;
  /** Traits the provider must have. */
  readonly requiredTraits?: readonly string[];
  /** Traits the provider must not have (sent as `!TRAIT`, which needs 1.22). */
  readonly forbiddenTraits?: readonly string[];
  readonly name?: string;
  readonly uuid?: string;
  readonly inTree?: string;
}

export function listResourceProviders(
  placement: PlacementClient,
  filter: ResourceProviderFilter = {},
  options?: ListOptions,
): Promise<ResourceProvider[]> {
  const resources = Object.entries(filter.resources ?? {})
    .map(([cls, amount]) => `${cls}:${String(amount)}`)
    .join(',');
  const required = [...(filter.requiredTraits ?? []), ...(filter.forbiddenTraits ?? []).map((t) => `!${t}`)].join(',');
  return listAll<ResourceProvider>(
    placement,
    {
      method: 'GET',
      path: '/resource_providers',
      query: {
        resources: resources || undefined,
        required: required || undefined,
        name: filter.name,
        uuid: filter.uuid,
        in_tree: filter.inTree,
      },
    },
    { kind: 'single', items: 'resource_providers' },
    options,
  );
}

export interface ResourceProviderTraits {
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
