/**
 * The per-organization limit flag, as `serve` and `up` both take it (docs/adr/0041-organization-limits.md):
 * `--organization-limit [ORG:]KIND=N`, repeatable. Without an organization it sets every organization's default; with
 * one, that organization's own. N is a count (0: none may be made) or `unlimited`; KIND `all` is every kind.
 */
import { InvalidArgumentError, type Command } from 'commander';
import {
  DEFAULT_ORGANIZATION_LIMITS,
  LIMITED_KINDS,
  type LimitedKind,
  type LimitTable,
  type OrganizationLimits,
} from '../region/http/decide-limit.ts';

export interface OrganizationLimitFlags {
  organizationLimit?: OrganizationLimits;
}

/** Organization ids are label values (schemas/common.ts TenancyId): no `:` or `=` in one. */
const SETTING = /^(?:([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?):)?([a-z-]+)=(\d+|unlimited)$/;

function setting(value: string, previous: OrganizationLimits | undefined): OrganizationLimits {
  const match = SETTING.exec(value.trim());
  const kind = match?.[3] ?? '';
  if (match === null || (kind !== 'all' && !(LIMITED_KINDS as readonly string[]).includes(kind))) {
    throw new InvalidArgumentError(
      `expected [ORGANIZATION:]KIND=N (KIND one of ${LIMITED_KINDS.join(', ')} or all; N a count or unlimited), not ${value}`,
    );
  }
  const n = match[4] === 'unlimited' ? Infinity : Number(match[4]);
  const kinds = kind === 'all' ? LIMITED_KINDS : [kind as LimitedKind];
  const change: LimitTable = Object.fromEntries(kinds.map((k) => [k, n]));
  const current = previous ?? DEFAULT_ORGANIZATION_LIMITS;
  const organization = match[1];
  if (organization === undefined) return { ...current, defaults: { ...current.defaults, ...change } };
  const own = Object.hasOwn(current.organizations, organization) ? current.organizations[organization] : {};
  return { ...current, organizations: { ...current.organizations, [organization]: { ...own, ...change } } };
}

export function withOrganizationLimitOption(command: Command): Command {
  const defaults = LIMITED_KINDS.map((k) => `${k} ${String(DEFAULT_ORGANIZATION_LIMITS.defaults[k])}`).join(', ');
  return command.option(
    '--organization-limit <[org:]kind=n>',
    `how many objects of a kind an organization may hold, for every organization or (org:) one; repeatable. ` +
      `n is a count or unlimited; kind is one of ${LIMITED_KINDS.join(', ')} or all (defaults: ${defaults})`,
    setting,
  );
}

export function organizationLimitsOf(flags: OrganizationLimitFlags): OrganizationLimits {
  return flags.organizationLimit ?? DEFAULT_ORGANIZATION_LIMITS;
}
