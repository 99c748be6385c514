/**
 * Octavia's routes: load balancers (PENDING_CREATE → ACTIVE; cascade delete through PENDING_DELETE), listeners,
 * pools, health monitors and members (one at a time, or the whole set replaced by a batch PUT).
 */
import type { AuthContext } from '../auth.ts';
import { octaviaFault } from '../faults.ts';
import { json, noContent, type EmuRequest, type EmuResponse, type Method } from '../http.ts';
import { arrayAt, isObject, objectAt, stringAt, type JsonObject } from '../json.ts';
import {
  authorize,
  checkPoolProtocol,
  childView,
  childWrite,
  invalid,
  lbView,
  listAnswer,
  notFound,
  pend,
  PREFIX,
  visible,
  type OctaviaApi,
} from './api.ts';
import { DEFAULTS, IMMUTABLE, type Kind, type OChild, type OLoadBalancer } from './state.ts';

type Handler = (req: EmuRequest, auth: AuthContext) => EmuResponse;

const LABEL: Readonly<Record<Kind, string>> = {
  listener: 'Listener',
  pool: 'Pool',
  member: 'Member',
  healthmonitor: 'Health Monitor',
};

/** Required attributes of each kind's create body. */
const REQUIRED: Readonly<Record<Kind, readonly string[]>> = {
  listener: ['protocol', 'protocol_port'],
  pool: ['protocol', 'lb_algorithm'],
  member: ['address', 'protocol_port'],
  healthmonitor: ['type', 'delay', 'timeout', 'max_retries'],
};

function pick(kind: Kind | 'loadbalancer', body: JsonObject, base: JsonObject): JsonObject {
  const out = { ...base };
  for (const key of Object.keys(DEFAULTS[kind])) if (key in body) out[key] = body[key];
  return out;
}

export function registerRoutes(api: OctaviaApi): void {
  const { state, ctx } = api;
  const route = (method: Method, path: string, write: boolean, handler: Handler) => {
    ctx.router.add(method, `${PREFIX}${path}`, (req) => {
      const auth = ctx.authenticate(req, (m) => octaviaFault(401, m));
      // Octavia loads the object named in the path before it checks policy: a missing one is 404 for anyone.
      const id = req.params.pool_id ?? req.params.id;
      if (id !== undefined && !state.lbs.has(id) && !state.children.has(id)) {
        const what = path.startsWith('/lbaas/loadbalancers')
          ? 'Load Balancer'
          : path.startsWith('/lbaas/listeners')
            ? 'Listener'
            : path.startsWith('/lbaas/healthmonitors')
              ? 'Health Monitor'
              : 'Pool';
        throw notFound(what, id);
      }
      authorize(auth, write);
      return handler(req, auth);
    });
  };
  const lbFor = (auth: AuthContext, id: string): OLoadBalancer => {
    const lb = state.lbs.get(id);
    if (!lb || !visible(auth, lb)) throw notFound('Load Balancer', id);
    return lb;
  };
  const childFor = (auth: AuthContext, kind: Kind, id: string): OChild => {
    const c = state.children.get(id);
    if (c?.kind !== kind || !visible(auth, c)) throw notFound(LABEL[kind], id);
    return c;
  };
  const newChild = (kind: Kind, lb: OLoadBalancer, poolID: string | null, body: JsonObject): OChild => {
    for (const key of REQUIRED[kind]) if (body[key] === undefined) throw invalid(`Mandatory field missing: ${key}`);
    return {
      id: ctx.newID(),
      kind,
      lbId: lb.id,
      poolId: poolID,
      projectId: lb.projectId,
      provisioning: 'PENDING_CREATE',
      createdAt: ctx.clock.now(),
      updatedAt: null,
      fields: pick(kind, body, DEFAULTS[kind]),
    };
  };

  // ------------------------------------------------------------------------------------------ quotas (admin)
  ctx.router.add('PUT', `${PREFIX}/lbaas/quotas/{project_id}`, (req) => {
    const auth = ctx.authenticate(req, (m) => octaviaFault(401, m));
    if (!auth.roles.includes('admin')) throw octaviaFault(403, 'Policy does not allow this request to be performed.');
    const quota = objectAt(req.body, 'quota');
    const limit = quota?.load_balancer ?? quota?.loadbalancer;
    if (typeof limit !== 'number') throw invalid('Invalid input for field/attribute quota.');
    state.loadBalancerQuotas.set(req.params.project_id ?? '', limit);
    return json({ quota: { load_balancer: limit } }, 202);
  });

  // ------------------------------------------------------------------------------------------ load balancers
  route('GET', '/lbaas/loadbalancers', false, (req, auth) =>
    listAnswer(
      api,
      req,
      'loadbalancers',
      [...state.lbs.values()].filter((lb) => visible(auth, lb)).map((lb) => lbView(api, lb)),
    ),
  );
  route('GET', '/lbaas/loadbalancers/{id}', false, (req, auth) =>
    json({ loadbalancer: lbView(api, lbFor(auth, req.params.id ?? '')) }),
  );
  route('POST', '/lbaas/loadbalancers', true, (req, auth) => {
    const body = objectAt(req.body, 'loadbalancer');
    if (!body) throw invalid('Missing mandatory loadbalancer object.');
    const subnet = stringAt(body, 'vip_subnet_id');
    const network = stringAt(body, 'vip_network_id');
    if (subnet === undefined && network === undefined && stringAt(body, 'vip_port_id') === undefined) {
      throw invalid('VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.');
    }
    const owner = stringAt(body, 'project_id');
    if (owner !== undefined && owner !== auth.projectId && !auth.roles.includes('admin'))
      throw invalid('project_id mismatch');
    const fields = pick('loadbalancer', body, DEFAULTS.loadbalancer);
    const id = ctx.newID();
    const projectID = owner ?? auth.projectId ?? '';
    const allowed = state.loadBalancerQuotas.get(projectID) ?? -1;
    const used = [...state.lbs.values()].filter((lb) => lb.projectId === projectID).length;
    // Octavia's check_quota_met answers 403 with the resource in words.
    if (allowed >= 0 && used >= allowed) throw octaviaFault(403, 'Quota has been met for resources: Load Balancer');
    const portID = stringAt(body, 'vip_port_id');
    // The allowed_address_pairs driver makes the VIP a Neutron port on the subnet (Octavia's API does, before the
    // 201); the noop driver the dev cloud runs hands out VIPs from 198.51.100.0/24 and fake port and network ids.
    const vip =
      ctx.config.octaviaNetworkDriver === 'allowed_address_pairs' && portID === undefined
        ? api.lookups.networks.servicePort(
            auth,
            {
              projectId: projectID,
              subnetId: subnet,
              networkId: network,
              name: `octavia-lb-${id}`,
              deviceOwner: 'Octavia',
              deviceId: `lb-${id}`,
            },
            (what) => octaviaFault(400, `${what} not found.`),
          )
        : undefined;
    const lb: OLoadBalancer = {
      id,
      projectId: projectID,
      provisioning: 'PENDING_CREATE',
      createdAt: ctx.clock.now(),
      updatedAt: null,
      op: 0,
      ownsVipPort: vip !== undefined,
      fields: {
        ...fields,
        vip_address: vip?.address ?? stringAt(body, 'vip_address') ?? `198.51.100.${String(state.nextVip++)}`,
        vip_port_id: vip?.portId ?? portID ?? ctx.newID(),
        vip_subnet_id: vip?.subnetId ?? subnet ?? null,
        vip_network_id: vip?.networkId ?? network ?? ctx.newID(),
      },
    };
    state.lbs.set(lb.id, lb);
    pend(api, lb, 'PENDING_CREATE', 'octavia.create', 300);
    return json({ loadbalancer: lbView(api, lb) }, 201);
  });
  route('PUT', '/lbaas/loadbalancers/{id}', true, (req, auth) => {
    const lb = lbFor(auth, req.params.id ?? '');
    const body = objectAt(req.body, 'loadbalancer') ?? {};
    const fixed = IMMUTABLE.loadbalancer.find((k) => k in body);
    if (fixed !== undefined) throw invalid(`${fixed} cannot be updated.`);
    if (lb.provisioning !== 'ACTIVE')
      throw octaviaFault(409, `Load Balancer ${lb.id} is immutable and cannot be updated.`);
    lb.fields = pick('loadbalancer', body, lb.fields);
    lb.updatedAt = ctx.clock.now();
    pend(api, lb, 'PENDING_UPDATE', 'octavia.update', 150);
    return json({ loadbalancer: lbView(api, lb) }, 200);
  });
  route('DELETE', '/lbaas/loadbalancers/{id}', true, (req, auth) => {
    const lb = lbFor(auth, req.params.id ?? '');
    if (lb.provisioning !== 'ACTIVE' && lb.provisioning !== 'ERROR') {
      throw octaviaFault(409, `Invalid state ${lb.provisioning} of loadbalancer resource ${lb.id}`);
    }
    const children = state.childrenOf(lb.id);
    if (children.length > 0 && !/^(1|true)$/i.test(req.query.get('cascade') ?? '')) {
      throw invalid(`Cannot delete Load Balancer ${lb.id} - it has children`);
    }
    for (const c of children) c.provisioning = 'PENDING_DELETE';
    pend(api, lb, 'PENDING_DELETE', 'octavia.delete', 300);
    return noContent();
  });

  // ------------------------------------------------------------------------------------------ listeners, pools, monitors
  const parentOf = (auth: AuthContext, kind: Kind, body: JsonObject): { lb: OLoadBalancer; poolId: string | null } => {
    if (kind === 'healthmonitor') {
      const pool = childFor(auth, 'pool', stringAt(body, 'pool_id') ?? '');
      if (state.dependants(pool.id).some((c) => c.kind === 'healthmonitor')) {
        throw octaviaFault(409, `This pool already has a health monitor`);
      }
      return { lb: lbFor(auth, pool.lbId), poolId: pool.id };
    }
    if (kind === 'pool' && body.listener_id !== undefined) {
      const listener = childFor(auth, 'listener', stringAt(body, 'listener_id') ?? '');
      if (listener.fields.default_pool_id !== null) {
        throw octaviaFault(409, `Listener ${listener.id} already has a default pool`);
      }
      checkPoolProtocol(listener.fields.protocol, body.protocol);
      return { lb: lbFor(auth, listener.lbId), poolId: null };
    }
    const lbID = stringAt(body, 'loadbalancer_id');
    if (lbID === undefined) throw invalid('Mandatory field missing: loadbalancer_id');
    return { lb: lbFor(auth, lbID), poolId: null };
  };
  for (const [kind, plural] of [
    ['listener', 'listeners'],
    ['pool', 'pools'],
    ['healthmonitor', 'healthmonitors'],
  ] as const) {
    const base = `/lbaas/${plural}`;
    route('GET', base, false, (req, auth) =>
      listAnswer(
        api,
        req,
        plural,
        [...state.children.values()].filter((c) => c.kind === kind && visible(auth, c)).map((c) => childView(api, c)),
      ),
    );
    route('GET', `${base}/{id}`, false, (req, auth) =>
      json({ [kind]: childView(api, childFor(auth, kind, req.params.id ?? '')) }),
    );
    route('POST', base, true, (req, auth) => {
      const body = objectAt(req.body, kind);
      if (!body) throw invalid(`Missing mandatory ${kind} object.`);
      const { lb, poolId: poolID } = parentOf(auth, kind, body);
      if (kind === 'listener') {
        const port = body.protocol_port;
        if (state.childrenOf(lb.id, 'listener').some((l) => l.fields.protocol_port === port)) {
          throw octaviaFault(
            409,
            `Another Listener on this Load Balancer is already using protocol_port ${String(port)}`,
          );
        }
      }
      const child = newChild(kind, lb, poolID, body);
      const defaultPool = kind === 'listener' ? stringAt(body, 'default_pool_id') : undefined;
      if (defaultPool !== undefined)
        checkPoolProtocol(body.protocol, childFor(auth, 'pool', defaultPool).fields.protocol);
      childWrite(api, lb, () => {
        state.children.set(child.id, child);
        const listenerID = stringAt(body, 'listener_id');
        const listener = listenerID === undefined ? undefined : state.children.get(listenerID);
        if (kind === 'pool' && listener) listener.fields.default_pool_id = child.id;
      });
      return json({ [kind]: childView(api, child) }, 201);
    });
    route('PUT', `${base}/{id}`, true, (req, auth) => {
      const child = childFor(auth, kind, req.params.id ?? '');
      const body = objectAt(req.body, kind) ?? {};
      const fixed = IMMUTABLE[kind].find((k) => k in body);
      if (fixed !== undefined) throw invalid(`${fixed} cannot be updated.`);
      const defaultPool = kind === 'listener' ? stringAt(body, 'default_pool_id') : undefined;
      if (defaultPool !== undefined) {
        checkPoolProtocol(child.fields.protocol, childFor(auth, 'pool', defaultPool).fields.protocol);
      }
      childWrite(api, lbFor(auth, child.lbId), () => {
        child.fields = pick(kind, body, child.fields);
        child.provisioning = 'PENDING_UPDATE';
        child.updatedAt = ctx.clock.now();
      });
      return json({ [kind]: childView(api, child) }, 200);
    });
    route('DELETE', `${base}/{id}`, true, (req, auth) => {
      const child = childFor(auth, kind, req.params.id ?? '');
      childWrite(api, lbFor(auth, child.lbId), () => {
        child.provisioning = 'PENDING_DELETE';
        for (const d of state.dependants(child.id)) d.provisioning = 'PENDING_DELETE';
        for (const l of state.childrenOf(child.lbId, 'listener')) {
          if (l.fields.default_pool_id === child.id) l.fields.default_pool_id = null;
        }
      });
      return noContent();
    });
  }
  registerMembers(api, route, childFor, lbFor, newChild);
}

function registerMembers(
  api: OctaviaApi,
  route: (method: Method, path: string, write: boolean, handler: Handler) => void,
  childFor: (auth: AuthContext, kind: Kind, id: string) => OChild,
  lbFor: (auth: AuthContext, id: string) => OLoadBalancer,
  newChild: (kind: Kind, lb: OLoadBalancer, poolID: string | null, body: JsonObject) => OChild,
): void {
  const { state, ctx } = api;
  const base = '/lbaas/pools/{pool_id}/members';
  const members = (poolID: string) => state.dependants(poolID).filter((c) => c.kind === 'member');
  const memberFor = (auth: AuthContext, req: EmuRequest): OChild => {
    const pool = childFor(auth, 'pool', req.params.pool_id ?? '');
    const member = members(pool.id).find((m) => m.id === req.params.member_id);
    if (!member) throw notFound('Member', req.params.member_id ?? '');
    return member;
  };
  route('GET', base, false, (req, auth) => {
    const pool = childFor(auth, 'pool', req.params.pool_id ?? '');
    return listAnswer(
      api,
      req,
      'members',
      members(pool.id).map((m) => childView(api, m)),
    );
  });
  route('GET', `${base}/{member_id}`, false, (req, auth) => json({ member: childView(api, memberFor(auth, req)) }));
  route('POST', base, true, (req, auth) => {
    const pool = childFor(auth, 'pool', req.params.pool_id ?? '');
    const body = objectAt(req.body, 'member');
    if (!body) throw invalid('Missing mandatory member object.');
    const lb = lbFor(auth, pool.lbId);
    const member = newChild('member', lb, pool.id, body);
    if (
      members(pool.id).some((m) => m.fields.address === body.address && m.fields.protocol_port === body.protocol_port)
    ) {
      throw octaviaFault(
        409,
        `Another member on this pool is already using ip ${String(body.address)} on protocol_port ${String(body.protocol_port)}`,
      );
    }
    childWrite(api, lb, () => state.children.set(member.id, member));
    return json({ member: childView(api, member) }, 201);
  });
  // The batch update: the listed set replaces the pool's, matched on (address, protocol_port).
  route('PUT', base, true, (req, auth) => {
    const pool = childFor(auth, 'pool', req.params.pool_id ?? '');
    const wanted = (arrayAt(req.body, 'members') ?? []).filter(isObject);
    const lb = lbFor(auth, pool.lbId);
    const made = wanted.map((body) => ({ body, fresh: newChild('member', lb, pool.id, body) }));
    childWrite(api, lb, () => {
      const current = members(pool.id);
      const key = (f: JsonObject) => `${String(f.address)}:${String(f.protocol_port)}`;
      const keep = new Set(wanted.map(key));
      for (const m of current) if (!keep.has(key(m.fields))) m.provisioning = 'PENDING_DELETE';
      for (const { body, fresh } of made) {
        const existing = current.find((m) => key(m.fields) === key(body));
        if (existing) {
          existing.fields = {
            ...DEFAULTS.member,
            ...Object.fromEntries(Object.entries(body).filter(([k]) => k in DEFAULTS.member)),
          };
          existing.provisioning = 'PENDING_UPDATE';
          existing.updatedAt = ctx.clock.now();
        } else {
          state.children.set(fresh.id, fresh);
        }
      }
    });
    return { status: 202 };
  });
  route('PUT', `${base}/{member_id}`, true, (req, auth) => {
    const member = memberFor(auth, req);
    const body = objectAt(req.body, 'member') ?? {};
    const fixed = IMMUTABLE.member.find((k) => k in body);
    if (fixed !== undefined) throw invalid(`${fixed} cannot be updated.`);
    childWrite(api, lbFor(auth, member.lbId), () => {
      member.fields = pick('member', body, member.fields);
      member.provisioning = 'PENDING_UPDATE';
      member.updatedAt = ctx.clock.now();
    });
    return json({ member: childView(api, member) });
  });
  route('DELETE', `${base}/{member_id}`, true, (req, auth) => {
    const member = memberFor(auth, req);
    childWrite(api, lbFor(auth, member.lbId), () => {
      member.provisioning = 'PENDING_DELETE';
    });
    return noContent();
  });
}
