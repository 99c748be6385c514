/**
 * The pinned-server Placement preflight (`openstack.compute.placementPreflight`, docs/spec/openstack-provider.md §Trust
 * and scoping): before a server pinned to a host (infrastructureRef) is created, ask Placement whether that resource
 * provider has inventory for the flavor's positive custom resource class and carries its traits. A miss yields and the
 * controller retries.
 *
 * - resources: the flavor's one positive `resources:CUSTOM_*` extra spec, with its amount.
 * - traits: `trait:X=required` → X, `trait:X=forbidden` → !X, unioned with the configured requiredTraits
 *   (upper-cased, de-duplicated). No traits means no trait filter.
 *
 * A flavor whose extra specs cannot say what to ask for (no custom class, several, an amount that is not a whole
 * number, a trait both required and forbidden) is an operator's inconsistency, reported as `invalid` rather than
 * guessed around; a guess would either skip the check or yield forever.
 */
import type { ResourceProvider, ResourceProviderFilter } from '../../../openstack/placement.ts';

interface PlacementPreflightConfig {
  readonly enabled?: boolean | undefined;
  readonly requiredTraits?: readonly string[] | undefined;
}

/** The preflight runs only for a pinned server with the check enabled; only then are the flavor's specs needed. */
export const placementPreflightApplies = (
  config: PlacementPreflightConfig | undefined,
  infrastructureRef: string | undefined,
): infrastructureRef is string => config?.enabled === true && (infrastructureRef?.trim() ?? '') !== '';

export type PlacementQuery =
  | { readonly kind: 'query'; readonly filter: ResourceProviderFilter }
  | { readonly kind: 'invalid'; readonly reason: string };

const RESOURCES = 'resources:';
const TRAIT = 'trait:';

export function placementPreflightQuery(
  extraSpecs: Readonly<Record<string, string>>,
  config: PlacementPreflightConfig | undefined,
): PlacementQuery {
  const classes = new Map<string, number>();
  const required = new Set((config?.requiredTraits ?? []).map(normalise).filter((t) => t !== ''));
  const forbidden = new Set<string>();
  for (const [key, raw] of Object.entries(extraSpecs)) {
    const lower = key.toLowerCase();
    const value = raw.trim();
    if (lower.startsWith(RESOURCES)) {
      const resourceClass = normalise(key.slice(RESOURCES.length));
      if (!resourceClass.startsWith('CUSTOM_')) continue;
      const amount = Number(value);
      if (value === '' || !Number.isInteger(amount)) return invalid(`${key} has amount ${JSON.stringify(raw)}`);
      if (amount > 0) classes.set(resourceClass, amount);
    } else if (lower.startsWith(TRAIT)) {
      const trait = normalise(key.slice(TRAIT.length));
      if (value.toLowerCase() === 'required') required.add(trait);
      else if (value.toLowerCase() === 'forbidden') forbidden.add(trait);
    }
  }
  if (classes.size !== 1) {
    const found = [...classes.keys()].join(', ') || 'none';
    return invalid(`the flavor needs exactly one positive resources:CUSTOM_* extra spec (found ${found})`);
  }
  const both = [...required].filter((t) => forbidden.has(t));
  if (both.length > 0) return invalid(`traits both required and forbidden: ${both.sort().join(', ')}`);
  return {
    kind: 'query',
    filter: {
      resources: Object.fromEntries(classes),
      ...(required.size === 0 ? {} : { requiredTraits: [...required].sort() }),
      ...(forbidden.size === 0 ? {} : { forbiddenTraits: [...forbidden].sort() }),
    },
  };
}

/** Whether the pinned host is among the providers Placement answered with, by UUID or by name. */
export function placementPreflightVerdict(
  providers: readonly Pick<ResourceProvider, 'uuid' | 'name'>[],
  infrastructureRef: string,
): 'available' | 'miss' {
  const ref = infrastructureRef.trim();
  return ref !== '' && providers.some((p) => p.uuid === ref || p.name === ref) ? 'available' : 'miss';
}

const normalise = (name: string): string => name.trim().toUpperCase();
const invalid = (reason: string): PlacementQuery => ({ kind: 'invalid', reason });
