/**
 * Security groups and rules: every new group gets egress-any rules for IPv4 and IPv6, a duplicate rule is 409
 * SecurityGroupRuleExists, and a group a port uses is 409 SecurityGroupInUse.
 */
import { isAdmin, type AuthContext } from '../auth.ts';
import { json, noContent } from '../http.ts';
import { numberAt, objectAt, stringAt, type JsonObject } from '../json.ts';
import { badRequest, fault, listAnswer, notFound, ownerOf, quotaCheck, standardView, type NeutronApi } from './api.ts';
import { formatPrefix } from '../../util/ipv4.ts';
import { parseCidr } from './ip.ts';
import type { NRule, NSecurityGroup, Standard } from './state.ts';

export function groupFor(api: NeutronApi, auth: AuthContext, id: string): NSecurityGroup {
  const group = api.state.groups.get(id);
  if (!group || !(isAdmin(auth) || group.projectId === auth.projectId)) {
    throw notFound('SecurityGroupNotFound', `Security group ${id} does not exist`);
  }
  return group;
}

function ruleView(r: NRule): JsonObject {
  return {
    ...standardView(r),
    security_group_id: r.groupId,
    ethertype: r.ethertype,
    direction: r.direction,
    protocol: r.protocol,
    port_range_min: r.portMin,
    port_range_max: r.portMax,
    remote_ip_prefix: r.remoteIpPrefix,
    remote_address_group_id: null,
    normalized_cidr: r.remoteIpPrefix,
    remote_group_id: r.remoteGroupId,
    // Neutron shows a rule without a description as null, unlike other resources.
    description: r.description === '' ? null : r.description,
  };
}

function groupView(api: NeutronApi, g: NSecurityGroup): JsonObject {
  return {
    ...standardView(g),
    stateful: g.stateful,
    shared: false,
    security_group_rules: [...api.state.rules.values()].filter((r) => r.groupId === g.id).map(ruleView),
  };
}

type RuleSpec = Omit<NRule, keyof Standard | 'groupId'>;

function addRule(api: NeutronApi, group: NSecurityGroup, spec: RuleSpec, description = ''): NRule {
  const now = api.ctx.clock.now();
  const rule: NRule = {
    id: api.ctx.newID(),
    projectId: group.projectId,
    name: '',
    description,
    tags: [],
    createdAt: now,
    updatedAt: now,
    revision: 0,
    groupId: group.id,
    ...spec,
  };
  api.state.rules.set(rule.id, rule);
  return rule;
}

/** Makes a group with Neutron's two default egress rules. */
export function makeGroup(
  api: NeutronApi,
  projectID: string,
  name: string,
  description: string,
  stateful = true,
): NSecurityGroup {
  const now = api.ctx.clock.now();
  const group: NSecurityGroup = {
    id: api.ctx.newID(),
    projectId: projectID,
    name,
    description,
    tags: [],
    createdAt: now,
    updatedAt: now,
    revision: 1,
    stateful,
  };
  api.state.groups.set(group.id, group);
  for (const ethertype of ['IPv6', 'IPv4'] as const) {
    const any = { protocol: null, portMin: null, portMax: null, remoteIpPrefix: null, remoteGroupId: null };
    addRule(api, group, { direction: 'egress', ethertype, ...any });
  }
  return group;
}

/** A rule's spec from a create body: Neutron's validation of direction, ethertype, ports and prefix. */
function ruleSpec(body: JsonObject): RuleSpec {
  const direction = stringAt(body, 'direction');
  if (direction !== 'ingress' && direction !== 'egress') {
    throw badRequest(`Invalid input for direction. Reason: ${String(direction)} is not in valid_values.`);
  }
  const ethertype = stringAt(body, 'ethertype') ?? 'IPv4';
  if (ethertype !== 'IPv4' && ethertype !== 'IPv6') throw badRequest(`Invalid input for ethertype: ${ethertype}.`);
  const raw = body.protocol;
  const protocol = typeof raw === 'string' ? raw.toLowerCase() : typeof raw === 'number' ? String(raw) : null;
  const portMin = numberAt(body, 'port_range_min') ?? null;
  const portMax = numberAt(body, 'port_range_max') ?? null;
  if (portMin !== null && portMax !== null && portMin > portMax) {
    throw fault(
      400,
      'SecurityGroupInvalidPortRange',
      'For TCP/UDP protocols, port_range_min must be <= port_range_max',
    );
  }
  const prefixText = stringAt(body, 'remote_ip_prefix');
  const prefix = prefixText === undefined ? undefined : parseCidr(prefixText);
  if (prefixText !== undefined && prefix === undefined && ethertype === 'IPv4') {
    throw badRequest(`'${prefixText}' is not a valid IP subnet.`);
  }
  return {
    direction,
    ethertype,
    protocol,
    portMin,
    portMax,
    remoteIpPrefix: prefix ? formatPrefix(prefix) : (prefixText ?? null),
    remoteGroupId: stringAt(body, 'remote_group_id') ?? null,
  };
}

const SAME: readonly (keyof RuleSpec)[] = [
  'direction',
  'ethertype',
  'protocol',
  'portMin',
  'portMax',
  'remoteIpPrefix',
  'remoteGroupId',
];

export function registerSecurityGroups(api: NeutronApi): void {
  const { state } = api;
  const mine = (auth: AuthContext) => (x: { projectId: string }) => isAdmin(auth) || x.projectId === auth.projectId;
  api.route('GET', '/security-groups', (req, auth) => {
    // Neutron makes the default group of the project a list names, as of the caller's own (on every request).
    const named = req.query.get('project_id') ?? req.query.get('tenant_id');
    if (named !== null && named !== '' && (isAdmin(auth) || named === auth.projectId)) api.defaultGroup(named);
    return listAnswer(api, req, 'security_groups', [...state.groups.values()].filter(mine(auth)), (g) =>
      groupView(api, g),
    );
  });
  api.route('GET', '/security-groups/{security_group_id}', (req, auth) =>
    json({ security_group: groupView(api, groupFor(api, auth, req.params.security_group_id ?? '')) }),
  );
  api.route('POST', '/security-groups', (req, auth) => {
    const body = objectAt(req.body, 'security_group');
    if (!body) throw fault(400, 'BadRequest', 'Bad security_group request: no security_group in the body.');
    const projectID = ownerOf(auth, body);
    const name = stringAt(body, 'name') ?? '';
    if (name === 'default')
      throw fault(409, 'SecurityGroupDefaultAlreadyExists', 'Default security group already exists.');
    quotaCheck(
      api,
      projectID,
      'security_group',
      [...state.groups.values()].filter((g) => g.projectId === projectID).length,
    );
    const group = makeGroup(api, projectID, name, stringAt(body, 'description') ?? '', body.stateful !== false);
    return json({ security_group: groupView(api, group) }, 201);
  });
  api.route('PUT', '/security-groups/{security_group_id}', (req, auth) => {
    const group = groupFor(api, auth, req.params.security_group_id ?? '');
    const body = objectAt(req.body, 'security_group') ?? {};
    group.name = stringAt(body, 'name') ?? group.name;
    group.description = stringAt(body, 'description') ?? group.description;
    group.updatedAt = api.ctx.clock.now();
    group.revision++;
    return json({ security_group: groupView(api, group) });
  });
  api.route('DELETE', '/security-groups/{security_group_id}', (req, auth) => {
    const group = groupFor(api, auth, req.params.security_group_id ?? '');
    if ([...state.ports.values()].some((p) => p.securityGroups.includes(group.id))) {
      throw fault(409, 'SecurityGroupInUse', `Security Group ${group.id} in use.`);
    }
    // Neutron lets only an admin remove a project's default group, whatever the policy says.
    if (group.name === 'default' && !isAdmin(auth)) {
      throw fault(409, 'SecurityGroupCannotRemoveDefault', 'Insufficient rights for removing default security group.');
    }
    for (const r of [...state.rules.values()]) if (r.groupId === group.id) state.rules.delete(r.id);
    state.groups.delete(group.id);
    return noContent();
  });

  api.route('GET', '/security-group-rules', (req, auth) =>
    listAnswer(api, req, 'security_group_rules', [...state.rules.values()].filter(mine(auth)), ruleView),
  );
  api.route('GET', '/security-group-rules/{rule_id}', (req, auth) => {
    const rule = state.rules.get(req.params.rule_id ?? '');
    if (!rule || !mine(auth)(rule)) {
      throw notFound('SecurityGroupRuleNotFound', `Security group rule ${req.params.rule_id ?? ''} does not exist`);
    }
    return json({ security_group_rule: ruleView(rule) });
  });
  api.route('POST', '/security-group-rules', (req, auth) => {
    const body = objectAt(req.body, 'security_group_rule');
    if (!body) throw fault(400, 'BadRequest', 'Bad security_group_rule request: no rule in the body.');
    const group = groupFor(api, auth, stringAt(body, 'security_group_id') ?? '');
    const spec = ruleSpec(body);
    const twin = [...state.rules.values()].find((r) => r.groupId === group.id && SAME.every((k) => r[k] === spec[k]));
    if (twin) throw fault(409, 'SecurityGroupRuleExists', `Security group rule already exists. Rule id is ${twin.id}.`);
    quotaCheck(
      api,
      group.projectId,
      'security_group_rule',
      [...state.rules.values()].filter((r) => r.projectId === group.projectId).length,
    );
    const rule = addRule(api, group, spec, stringAt(body, 'description') ?? '');
    group.revision++;
    return json({ security_group_rule: ruleView(rule) }, 201);
  });
  api.route('DELETE', '/security-group-rules/{rule_id}', (req, auth) => {
    const rule = state.rules.get(req.params.rule_id ?? '');
    if (!rule || !mine(auth)(rule)) {
      throw notFound('SecurityGroupRuleNotFound', `Security group rule ${req.params.rule_id ?? ''} does not exist`);
    }
    state.rules.delete(rule.id);
    return noContent();
  });
}
