/**
 * Security group rule convergence, without I/O (docs/spec/upstream-region.md §Deterministic names; upstream
 * `securityGroupRuleID`, `reconcileSecurityGroupRules`). Neutron rules have no names, so a rule is identified by its
 * synthetic key `"{direction},{protocol},{min}-{max},{cidr|0.0.0.0/0}"`: a spec rule whose key Neutron already holds is
 * left alone, a missing one is created, and a Neutron rule whose key the spec does not name is deleted. Rules cannot be
 * updated in Neutron, so a changed rule is one delete and one create.
 *
 * Neutron gives every new group egress-any rules (IPv4 and IPv6, no prefix). Both key to the default egress key,
 * which is always wanted, so they are kept whatever the spec says; the provider never creates them itself.
 */
import type { SecurityGroupRule as NeutronRule, SecurityGroupRuleCreate } from '../../../openstack/network.ts';
import type { Protocol, SecurityGroupRule } from '../../provider/inputs.ts';
import { defined } from '../../../util/defined.ts';

const ANYWHERE = '0.0.0.0/0';

function ruleKey(direction: string, protocol: string, min: number, max: number, cidr: string | null): string {
  // An absent prefix means anywhere; name it so the key reads plainly in operator logs.
  return `${direction},${protocol},${min}-${max},${cidr === null || cidr === '' ? ANYWHERE : cidr}`;
}

/** Neutron's default egress-any rules: kept, never deleted as extras. */
export const DEFAULT_EGRESS_KEY = ruleKey('egress', 'any', 0, 0, null);

/** The spec's port as Neutron's inclusive range; 0-0 (no range sent) when the rule covers every port. */
function portRange(rule: SecurityGroupRule): { readonly min: number; readonly max: number } {
  if (rule.port === undefined) return { min: 0, max: 0 };
  return 'number' in rule.port
    ? { min: rule.port.number, max: rule.port.number }
    : { min: rule.port.start, max: rule.port.end };
}

export function specRuleKey(rule: SecurityGroupRule): string {
  const { min, max } = portRange(rule);
  return ruleKey(rule.direction, rule.protocol, min, max, rule.cidr);
}

/** `any` is Neutron's absent protocol; the others go by their Neutron names (upstream sends them as given). */
const neutronProtocol = (protocol: Protocol): string | undefined => (protocol === 'any' ? undefined : protocol);

// Neutron also accepts (and stores) IANA numbers; read them as the names the spec uses.
const NUMBERED: Readonly<Record<string, Protocol>> = { '1': 'icmp', '6': 'tcp', '17': 'udp', '112': 'vrrp' };

/** The spec's protocol for a Neutron rule's; an unknown protocol keeps its Neutron text, so no spec key matches it. */
export function specProtocol(protocol: string | null): string {
  if (protocol === null || protocol === '' || protocol === 'any') return 'any';
  const lower = protocol.toLowerCase();
  return NUMBERED[lower] ?? lower;
}

export function neutronRuleKey(
  rule: Pick<NeutronRule, 'direction' | 'protocol' | 'port_range_min' | 'port_range_max' | 'remote_ip_prefix'>,
): string {
  return ruleKey(
    rule.direction,
    specProtocol(rule.protocol),
    rule.port_range_min ?? 0,
    rule.port_range_max ?? 0,
    rule.remote_ip_prefix,
  );
}

/** What a spec rule becomes in Neutron (without the group id, which the caller adds). */
export function ruleCreate(rule: SecurityGroupRule): Omit<SecurityGroupRuleCreate, 'security_group_id'> {
  const { min, max } = portRange(rule);
  const protocol = neutronProtocol(rule.protocol);
  return {
    direction: rule.direction,
    // The spec's prefixes are IPv4 (the CRD's schema).
    ethertype: 'IPv4',
    ...defined({ protocol }),
    ...(rule.port === undefined ? {} : { port_range_min: min, port_range_max: max }),
    ...(rule.cidr === '' ? {} : { remote_ip_prefix: rule.cidr }),
  };
}

interface RulePlan {
  /** Neutron rule ids to delete. */
  readonly remove: readonly string[];
  /** Spec rules to create, one per missing key. */
  readonly add: readonly SecurityGroupRule[];
}

export function planRules(
  spec: readonly SecurityGroupRule[],
  existing: readonly Pick<
    NeutronRule,
    'id' | 'direction' | 'protocol' | 'port_range_min' | 'port_range_max' | 'remote_ip_prefix'
  >[],
): RulePlan {
  const wanted = new Map<string, SecurityGroupRule>();
  for (const rule of spec) if (!wanted.has(specRuleKey(rule))) wanted.set(specRuleKey(rule), rule);
  const held = new Set<string>();
  const remove: string[] = [];
  for (const rule of existing) {
    const key = neutronRuleKey(rule);
    if (key === DEFAULT_EGRESS_KEY || wanted.has(key)) held.add(key);
    else remove.push(rule.id);
  }
  return { remove, add: [...wanted].filter(([key]) => !held.has(key)).map(([, rule]) => rule) };
}
