import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as neutron from '../../../openstack/network.ts';
import { ResourceConflictError, ResourceConsistencyError, TransientError } from '../../provider/errors.ts';
import type { SecurityGroupInput, SecurityGroupRule } from '../../provider/inputs.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { securityGroupName } from '../names.ts';
import type { RealisedIdentity } from '../realised.ts';
import { DEFAULT_EGRESS_KEY, neutronRuleKey } from './decide.ts';
import { createSecurityGroup, deleteSecurityGroup, type SecurityGroupDeps } from './lifecycle.ts';
import { clientsFixture, type ClientsFixture } from '../testing/clients.ts';

let tb: ClientsFixture;
let identity: RealisedIdentity;
let deps: SecurityGroupDeps;
let serial = 0;

before(async () => {
  tb = await clientsFixture();
  identity = await tb.project('sg-tests');
  deps = { clients: tb.clients, signal: new AbortController().signal };
});
after(() => tb.close());

const ssh: SecurityGroupRule = { direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '10.0.0.0/8' };
const web: SecurityGroupRule = { direction: 'ingress', protocol: 'tcp', port: { start: 80, end: 443 }, cidr: '' };
const vrrp: SecurityGroupRule = { direction: 'ingress', protocol: 'vrrp', cidr: '192.168.0.0/24' };
const ping: SecurityGroupRule = { direction: 'ingress', protocol: 'icmp', cidr: '' };
const dns: SecurityGroupRule = { direction: 'egress', protocol: 'udp', port: { number: 53 }, cidr: '' };
const anything: SecurityGroupRule = { direction: 'ingress', protocol: 'any', cidr: '172.16.0.0/12' };

function input(rules: readonly SecurityGroupRule[]): SecurityGroupInput {
  return { id: `sg${++serial}`, organizationID: 'org', projectID: 'proj', regionID: 'r1', rules };
}

function done<T>(outcome: Outcome<T>): void {
  assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
}

/** The groups named for `sg` in every project, with their rules, as the admin sees them. */
async function inNeutron(sg: SecurityGroupInput) {
  const admin = tb.admin.client('network');
  const groups = (await neutron.listSecurityGroups(admin)).filter((g) => g.name === securityGroupName(sg.id));
  const rules = (await neutron.listSecurityGroupRules(admin)).filter((r) =>
    groups.some((g) => g.id === r.security_group_id),
  );
  return { groups, rules, keys: rules.map(neutronRuleKey).sort() };
}

describe('createSecurityGroup', () => {
  it('makes the group in the identity project with every protocol’s rule and Neutron’s default egress rules', async () => {
    const sg = input([ssh, web, vrrp, ping, dns, anything]);
    done(await createSecurityGroup(deps, identity, sg));
    const found = await inNeutron(sg);
    assert.equal(found.groups.length, 1);
    assert.equal(found.groups[0]?.project_id, identity.projectID);
    assert.deepEqual(found.keys, [
      'egress,any,0-0,0.0.0.0/0',
      'egress,any,0-0,0.0.0.0/0',
      'egress,udp,53-53,0.0.0.0/0',
      'ingress,any,0-0,172.16.0.0/12',
      'ingress,icmp,0-0,0.0.0.0/0',
      'ingress,tcp,22-22,10.0.0.0/8',
      'ingress,tcp,80-443,0.0.0.0/0',
      'ingress,vrrp,0-0,192.168.0.0/24',
    ]);
    const vrrpRule = found.rules.find((r) => r.protocol === 'vrrp');
    assert.equal(vrrpRule?.ethertype, 'IPv4');
    assert.equal(found.rules.find((r) => r.remote_ip_prefix === '172.16.0.0/12')?.protocol, null);
  });

  it('uses only the privileged client in the identity project', async () => {
    const sg = input([ssh]);
    const from = tb.log().length;
    done(await createSecurityGroup(deps, identity, sg));
    done(await deleteSecurityGroup(deps, identity, sg));
    const lines = tb.log().slice(from);
    assert.ok(
      lines.length > 0 && lines.every((line) => line.startsWith(`privileged ${identity.projectID} `)),
      lines.join('\n'),
    );
  });

  it('is idempotent: a second pass writes nothing', async () => {
    const sg = input([ssh, web]);
    done(await createSecurityGroup(deps, identity, sg));
    const writes = tb.neutronWrites();
    done(await createSecurityGroup(deps, identity, sg));
    assert.equal(tb.neutronWrites(), writes);
  });

  it('adds missing rules, removes extras and keeps the default egress rules', async () => {
    const sg = input([ssh, web]);
    done(await createSecurityGroup(deps, identity, sg));
    const before = await inNeutron(sg);
    const sshID = before.rules.find((r) => r.port_range_min === 22)?.id;
    const writes = tb.neutronWrites();
    done(await createSecurityGroup(deps, identity, { ...sg, rules: [ssh, dns] }));
    assert.equal(tb.neutronWrites(), writes + 2, 'one delete, one create');
    const after = await inNeutron(sg);
    assert.deepEqual(after.keys, [
      DEFAULT_EGRESS_KEY,
      DEFAULT_EGRESS_KEY,
      'egress,udp,53-53,0.0.0.0/0',
      'ingress,tcp,22-22,10.0.0.0/8',
    ]);
    assert.equal(after.rules.find((r) => r.port_range_min === 22)?.id, sshID, 'an unchanged rule is left alone');
    done(await createSecurityGroup(deps, identity, { ...sg, rules: [] }));
    assert.deepEqual((await inNeutron(sg)).keys, [DEFAULT_EGRESS_KEY, DEFAULT_EGRESS_KEY]);
  });

  it('converges with one group and the spec’s rules after losing the answer of each request in turn', async () => {
    const probe = input([ssh, web, vrrp]);
    const start = tb.requests();
    done(await createSecurityGroup(deps, identity, probe));
    const calls = tb.requests() - start;
    assert.ok(calls >= 5, `a create pass makes ${calls} requests`);
    for (let n = 1; n <= calls; n++) {
      const sg = input([ssh, web, vrrp]);
      tb.interrupt(n);
      await assert.rejects(createSecurityGroup(deps, identity, sg), TransientError, `request ${n}`);
      done(await createSecurityGroup(deps, identity, sg));
      const found = await inNeutron(sg);
      assert.equal(found.groups.length, 1, `request ${n}`);
      assert.equal(found.rules.length, 5, `request ${n}`);
    }
  });

  it('refuses two groups under one name as a consistency error', async () => {
    const sg = input([ssh]);
    const admin = tb.admin.client('network');
    for (let i = 0; i < 2; i++) {
      await admin.request({
        method: 'POST',
        path: '/security-groups',
        body: { security_group: { name: securityGroupName(sg.id), project_id: identity.projectID } },
      });
    }
    await assert.rejects(createSecurityGroup(deps, identity, sg), ResourceConsistencyError);
    await assert.rejects(deleteSecurityGroup(deps, identity, sg), ResourceConsistencyError);
  });

  it('does not see a group of the same name in another project', async () => {
    const sg = input([ssh]);
    const other = await tb.project('sg-other');
    done(await createSecurityGroup(deps, other, sg));
    done(await createSecurityGroup(deps, identity, sg));
    const found = await inNeutron(sg);
    assert.deepEqual(found.groups.map((g) => g.project_id).sort(), [identity.projectID, other.projectID].sort());
  });
});

describe('deleteSecurityGroup', () => {
  it('deletes the group and its rules; deleting again, or for an identity never realised, is done', async () => {
    const sg = input([ssh, web]);
    done(await createSecurityGroup(deps, identity, sg));
    done(await deleteSecurityGroup(deps, identity, sg));
    assert.deepEqual(await inNeutron(sg), { groups: [], rules: [], keys: [] });
    done(await deleteSecurityGroup(deps, identity, sg));
    const sent = tb.requests();
    done(await deleteSecurityGroup(deps, undefined, sg));
    assert.equal(tb.requests(), sent);
  });

  it('retries as a conflict while a port still uses the group', async () => {
    const sg = input([]);
    done(await createSecurityGroup(deps, identity, sg));
    const [group] = (await inNeutron(sg)).groups;
    assert.ok(group);
    const client = tb.clients.privileged(identity.projectID).client('network');
    const network = await neutron.createNetwork(client, { name: 'sg-holder' });
    const port = await neutron.createPort(client, { network_id: network.id, security_groups: [group.id] });
    await assert.rejects(deleteSecurityGroup(deps, identity, sg), ResourceConflictError);
    await neutron.deletePort(client, port.id);
    done(await deleteSecurityGroup(deps, identity, sg));
    assert.equal((await inNeutron(sg)).groups.length, 0);
  });
});
