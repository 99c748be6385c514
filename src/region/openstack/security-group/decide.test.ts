import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SecurityGroupRule as NeutronRule } from '../../../openstack/network.ts';
import type { SecurityGroupRule } from '../../provider/inputs.ts';
import { DEFAULT_EGRESS_KEY, neutronRuleKey, planRules, ruleCreate, specProtocol, specRuleKey } from './decide.ts';

type Observed = Pick<
  NeutronRule,
  'id' | 'direction' | 'protocol' | 'port_range_min' | 'port_range_max' | 'remote_ip_prefix'
>;

const defaults: Observed[] = [
  { id: 'd4', direction: 'egress', protocol: null, port_range_min: null, port_range_max: null, remote_ip_prefix: null },
  { id: 'd6', direction: 'egress', protocol: null, port_range_min: null, port_range_max: null, remote_ip_prefix: null },
];

/** What Neutron would store for a created rule. */
let next = 0;
function created(rule: SecurityGroupRule): Observed {
  const body = ruleCreate(rule);
  return {
    id: `r${++next}`,
    direction: body.direction,
    protocol: body.protocol ?? null,
    port_range_min: body.port_range_min ?? null,
    port_range_max: body.port_range_max ?? null,
    remote_ip_prefix: body.remote_ip_prefix ?? null,
  };
}

function apply(existing: readonly Observed[], spec: readonly SecurityGroupRule[]): Observed[] {
  const plan = planRules(spec, existing);
  return [...existing.filter((r) => !plan.remove.includes(r.id)), ...plan.add.map(created)];
}

const rules: fc.Arbitrary<SecurityGroupRule> = fc.oneof(
  fc.record({
    direction: fc.constantFrom('ingress' as const, 'egress' as const),
    protocol: fc.constantFrom('any' as const, 'icmp' as const, 'vrrp' as const),
    cidr: fc.constantFrom('', '0.0.0.0/0', '10.0.0.0/8', '192.168.1.0/24'),
  }),
  fc.record({
    direction: fc.constantFrom('ingress' as const, 'egress' as const),
    protocol: fc.constantFrom('tcp' as const, 'udp' as const),
    port: fc.oneof(
      fc.integer({ min: 1, max: 65535 }).map((number) => ({ number })),
      fc
        .tuple(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 65535 }))
        .map(([a, b]) => ({ start: Math.min(a, b), end: Math.max(a, b) })),
    ),
    cidr: fc.constantFrom('', '10.0.0.0/8'),
  }),
);

describe('rule keys', () => {
  it('match upstream’s format, with an absent prefix read as anywhere', () => {
    assert.equal(
      specRuleKey({ direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '10.0.0.0/8' }),
      'ingress,tcp,22-22,10.0.0.0/8',
    );
    assert.equal(
      specRuleKey({ direction: 'ingress', protocol: 'udp', port: { start: 1000, end: 2000 }, cidr: '' }),
      'ingress,udp,1000-2000,0.0.0.0/0',
    );
    assert.equal(DEFAULT_EGRESS_KEY, 'egress,any,0-0,0.0.0.0/0');
    assert.equal(neutronRuleKey(defaults[0] as Observed), DEFAULT_EGRESS_KEY);
  });

  it('read Neutron’s protocol numbers and absent protocol as the spec’s names', () => {
    assert.equal(specProtocol(null), 'any');
    assert.equal(specProtocol('6'), 'tcp');
    assert.equal(specProtocol('112'), 'vrrp');
    assert.equal(specProtocol('VRRP'), 'vrrp');
    assert.equal(specProtocol('ipv6-icmp'), 'ipv6-icmp');
  });

  it('become Neutron rule bodies: any sends no protocol, no port sends no range, no prefix sends none', () => {
    assert.deepEqual(ruleCreate({ direction: 'ingress', protocol: 'any', cidr: '' }), {
      direction: 'ingress',
      ethertype: 'IPv4',
    });
    assert.deepEqual(
      ruleCreate({ direction: 'egress', protocol: 'tcp', port: { start: 80, end: 443 }, cidr: '10.0.0.0/8' }),
      {
        direction: 'egress',
        ethertype: 'IPv4',
        protocol: 'tcp',
        port_range_min: 80,
        port_range_max: 443,
        remote_ip_prefix: '10.0.0.0/8',
      },
    );
  });
});

describe('planRules', () => {
  it('adds missing rules, deletes extras, and keeps the default egress rules', () => {
    const ssh: Observed = {
      id: 'ssh',
      direction: 'ingress',
      protocol: 'tcp',
      port_range_min: 22,
      port_range_max: 22,
      remote_ip_prefix: '0.0.0.0/0',
    };
    const stale: Observed = { ...ssh, id: 'stale', port_range_min: 8080, port_range_max: 8080 };
    const https: SecurityGroupRule = { direction: 'ingress', protocol: 'tcp', port: { number: 443 }, cidr: '' };
    const plan = planRules(
      [{ direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' }, https],
      [...defaults, ssh, stale],
    );
    assert.deepEqual(plan, { remove: ['stale'], add: [https] });
  });

  it('never creates the default egress rule unless the spec names it', () => {
    assert.deepEqual(planRules([], []), { remove: [], add: [] });
    const egress: SecurityGroupRule = { direction: 'egress', protocol: 'any', cidr: '' };
    assert.deepEqual(planRules([egress], []), { remove: [], add: [egress] });
  });

  it('converges in one application and then plans nothing, whatever the spec and the starting rules', () => {
    fc.assert(
      fc.property(fc.array(rules, { maxLength: 8 }), fc.array(rules, { maxLength: 8 }), (before, spec) => {
        const start = [...defaults, ...before.map(created)];
        const after = apply(start, spec);
        assert.deepEqual(planRules(spec, after), { remove: [], add: [] });
        const keys = new Set(after.map(neutronRuleKey));
        assert.deepEqual(keys, new Set([DEFAULT_EGRESS_KEY, ...spec.map(specRuleKey)]));
        // Both default rules survive; no key is created twice or created when a rule already holds it.
        assert.ok(after.some((r) => r.id === 'd4') && after.some((r) => r.id === 'd6'));
        const kept = new Set(after.filter((r) => start.includes(r)).map(neutronRuleKey));
        const added = after.filter((r) => !start.includes(r)).map(neutronRuleKey);
        assert.equal(new Set(added).size, added.length);
        assert.ok(added.every((key) => !kept.has(key)));
      }),
    );
  });

  it('does not touch rules the spec still names', () => {
    fc.assert(
      fc.property(fc.array(rules, { maxLength: 8 }), (spec) => {
        const first = apply(defaults, spec);
        const plan = planRules(spec, first);
        assert.deepEqual(plan.remove, []);
        assert.deepEqual(plan.add, []);
      }),
    );
  });
});
