/**
 * Per-organization limits (docs/adr/0041-organization-limits.md): how many objects of a kind one organization may
 * hold, the operator's default for every organization or an override for one, and whether one more create fits.
 * Pure: the caller counts, this module judges.
 */

/** The kinds an organization's count is limited for, as the flags, problem details and metrics spell them. */
export const LIMITED_KINDS = [
  'identities',
  'networks',
  'servers',
  'volumes',
  'load-balancers',
  'security-groups',
] as const;

export type LimitedKind = (typeof LIMITED_KINDS)[number];

/** A limit per kind; `Infinity` is no limit. In an override an absent kind takes the default. */
export type LimitTable = Readonly<Partial<Record<LimitedKind, number>>>;

export interface OrganizationLimits {
  /** Every organization's limits; an absent kind is not limited. */
  readonly defaults: LimitTable;
  /** Per organization id, the kinds whose limit differs from the default. */
  readonly organizations: Readonly<Record<string, LimitTable>>;
}

/**
 * Room for a tenant's ordinary estate, not for a runaway loop (docs/adr/0041-organization-limits.md §Decision): a
 * project per identity is the scarcest thing behind them, so identities and networks (a v2 network is an identity
 * too) are the tightest.
 */
export const DEFAULT_ORGANIZATION_LIMITS: OrganizationLimits = {
  defaults: {
    identities: 100,
    networks: 100,
    servers: 1000,
    volumes: 1000,
    'load-balancers': 100,
    'security-groups': 1000,
  },
  organizations: {},
};

/** No limit on any kind (the benchmarks' thousands of servers in one organization). */
export const NO_ORGANIZATION_LIMITS: OrganizationLimits = { defaults: {}, organizations: {} };

/** The limit that applies to `organization` for `kind`: its override, else the default, else none (Infinity). */
export function limitOf(limits: OrganizationLimits, organization: string, kind: LimitedKind): number {
  // Own properties only: an organization id such as `constructor` must not reach Object.prototype.
  const override = Object.hasOwn(limits.organizations, organization) ? limits.organizations[organization] : undefined;
  return override?.[kind] ?? limits.defaults[kind] ?? Infinity;
}

/** The row a create took: no limit applies; it fits; or the organization already holds `limit` (or more). */
type LimitDecision =
  | { readonly row: 'unlimited'; readonly kind: LimitedKind }
  | { readonly row: 'fits'; readonly kind: LimitedKind; readonly usage: number; readonly limit: number }
  | { readonly row: 'reached'; readonly kind: LimitedKind; readonly usage: number; readonly limit: number };

/**
 * Whether one more `kind` fits: `usage` is what the organization holds now, objects being deleted included (they
 * hold their cloud resources until gone). Over the limit already (an operator lowered it) is `reached` too: nothing
 * already made is touched, nothing new is made.
 */
export function decideLimit(limit: number, kind: LimitedKind, usage: number): LimitDecision {
  if (limit === Infinity) return { row: 'unlimited', kind };
  return usage + 1 <= limit ? { row: 'fits', kind, usage, limit } : { row: 'reached', kind, usage, limit };
}

/** The problem detail of a `reached` row: the kind, and what the organization holds of what it may. */
export function reachedDetail(decision: { kind: LimitedKind; usage: number; limit: number }): string {
  return `organization limit for ${decision.kind.replaceAll('-', ' ')} reached: ${String(decision.usage)} of ${String(decision.limit)}`;
}
