/**
 * What Octavia's routes share: role checks (Zed's defaults: reads need a load-balancer role or admin, writes
 * load-balancer_member or admin), views, lists (name filters compare exactly but case-insensitively, as MariaDB
 * does; `*_links` paging) and the PENDING_UPDATE → ACTIVE cycle every child write puts its load balancer through.
 */
import { hasRole, type AuthContext } from '../auth.ts';
import type { ServiceContext } from '../context.ts';
import { octaviaFault } from '../faults.ts';
import type { EmuFault, EmuRequest, EmuResponse } from '../http.ts';
import { isoSeconds, type JsonObject } from '../json.ts';
import type { Lookups } from '../lookups.ts';
import type { Schedule } from '../timeline.ts';
import type { OChild, OctaviaState, OLoadBalancer, ORecord, Provisioning } from './state.ts';

export const PREFIX = '/load-balancer/v2';

export interface OctaviaApi {
  readonly state: OctaviaState;
  readonly ctx: ServiceContext;
  /** Neutron, where the allowed_address_pairs network driver makes VIP ports. */
  readonly lookups: Lookups;
  /** Schedules the worker's finish of a load balancer's pending work, if it is still on course `op` then. */
  readonly settleAt: Schedule<{ readonly id: string; readonly op: number }>;
}

const READERS = [
  'admin',
  'load-balancer_admin',
  'load-balancer_global_observer',
  'load-balancer_observer',
  'load-balancer_member',
];
const WRITERS = ['admin', 'load-balancer_admin', 'load-balancer_member'];
const GLOBAL = ['admin', 'load-balancer_admin', 'load-balancer_global_observer'];

const refused = (): EmuFault => octaviaFault(403, 'Policy does not allow this request to be performed.');
export const notFound = (what: string, id: string): EmuFault => octaviaFault(404, `${what} ${id} not found.`);
export const invalid = (message: string): EmuFault => octaviaFault(400, `Validation failure: ${message}`);

export function authorize(auth: AuthContext, write: boolean): void {
  if (!(write ? WRITERS : READERS).some((role) => hasRole(auth, role))) throw refused();
}

const seesAll = (auth: AuthContext): boolean => GLOBAL.some((role) => hasRole(auth, role));
export const visible = (auth: AuthContext, record: ORecord): boolean =>
  seesAll(auth) || record.projectId === auth.projectId;

/** Octavia's timestamps: seconds, no zone. */
const time = (ms: number | null): string | null => (ms === null ? null : isoSeconds(ms).replace(/Z$/, ''));

function common(r: ORecord): JsonObject {
  return {
    ...r.fields,
    id: r.id,
    project_id: r.projectId,
    tenant_id: r.projectId,
    provisioning_status: r.provisioning,
    // Nothing sends amphora heartbeats: operating status stays OFFLINE.
    operating_status: 'OFFLINE',
    created_at: time(r.createdAt),
    updated_at: time(r.updatedAt),
  };
}

export function lbView(api: OctaviaApi, lb: OLoadBalancer): JsonObject {
  const ids = (kind: 'listener' | 'pool') => api.state.childrenOf(lb.id, kind).map((c) => ({ id: c.id }));
  return { ...common(lb), listeners: ids('listener'), pools: ids('pool'), additional_vips: [] };
}

export function childView(api: OctaviaApi, c: OChild): JsonObject {
  const base = common(c);
  const lbs = [{ id: c.lbId }];
  switch (c.kind) {
    case 'listener':
      return {
        ...base,
        loadbalancers: lbs,
        l7policies: [],
        client_authentication: 'NONE',
        client_ca_tls_container_ref: null,
        client_crl_container_ref: null,
      };
    case 'pool': {
      const listeners = api.state.childrenOf(c.lbId, 'listener').filter((l) => l.fields.default_pool_id === c.id);
      const members = api.state.dependants(c.id).filter((m) => m.kind === 'member');
      const monitor = api.state.dependants(c.id).find((m) => m.kind === 'healthmonitor');
      return {
        ...base,
        loadbalancers: lbs,
        listeners: listeners.map((l) => ({ id: l.id })),
        members: members.map((m) => ({ id: m.id })),
        healthmonitor_id: monitor?.id ?? null,
      };
    }
    case 'member':
      return base;
    case 'healthmonitor':
      return { ...base, pools: [{ id: c.poolId }] };
  }
}

/** A list answer: name compared case-insensitively, other filters exactly; `limit`/`marker` paging with links. */
export function listAnswer(api: OctaviaApi, req: EmuRequest, plural: string, views: JsonObject[]): EmuResponse {
  const skip = new Set(['limit', 'marker', 'page_reverse', 'sort', 'fields']);
  let rows = views.filter((v) =>
    [...new Set(req.query.keys())]
      .filter((k) => !skip.has(k) && k in v)
      .every((k) => {
        const wanted = req.query.get(k) ?? '';
        const value = v[k];
        return typeof value === 'string' ? value.toLowerCase() === wanted.toLowerCase() : String(value) === wanted;
      }),
  );
  const marker = req.query.get('marker');
  if (marker !== null) rows = rows.slice(rows.findIndex((v) => v.id === marker) + 1);
  const limitText = req.query.get('limit');
  const links: JsonObject[] = [];
  if (limitText !== null) {
    const limit = Number(limitText);
    if (rows.length >= limit && limit > 0) {
      rows = rows.slice(0, limit);
      const query = new URLSearchParams(req.query);
      const last = rows.at(-1)?.id;
      query.set('marker', typeof last === 'string' ? last : '');
      links.push({ rel: 'next', href: `${api.ctx.origin()}${req.path}?${query.toString()}` });
    }
  }
  return { status: 200, body: { [plural]: rows, [`${plural}_links`]: links } };
}

/** Settles a load balancer's pending work: children created or updated go ACTIVE, deleted ones go. */
export function settle(api: OctaviaApi, lb: OLoadBalancer): void {
  const { state } = api;
  for (const c of state.childrenOf(lb.id)) {
    if (c.provisioning === 'PENDING_DELETE') state.children.delete(c.id);
    else if (c.provisioning.startsWith('PENDING_')) c.provisioning = 'ACTIVE';
  }
  if (lb.provisioning === 'PENDING_DELETE') {
    state.lbs.delete(lb.id);
    if (lb.ownsVipPort) api.lookups.networks.removeServicePort(String(lb.fields.vip_port_id));
    return;
  }
  lb.provisioning = 'ACTIVE';
  lb.updatedAt = api.ctx.clock.now();
}

/** Puts the load balancer in `status` now and schedules the worker's finish after the named delay. */
export function pend(
  api: OctaviaApi,
  lb: OLoadBalancer,
  status: Provisioning,
  delayName: string,
  fallbackMs: number,
): void {
  lb.provisioning = status;
  lb.op++;
  api.settleAt(api.ctx.clock.now() + api.ctx.delay(delayName, fallbackMs), { id: lb.id, op: lb.op });
}

/** A child write: refused while the load balancer is busy (409 immutable), else it goes PENDING_UPDATE. */
export function childWrite(api: OctaviaApi, lb: OLoadBalancer, apply: () => void): void {
  if (lb.provisioning !== 'ACTIVE') {
    throw octaviaFault(409, `Load Balancer ${lb.id} is immutable and cannot be updated.`);
  }
  apply();
  pend(api, lb, 'PENDING_UPDATE', 'octavia.update', 150);
}

/** Octavia's listener → pool protocol matrix (constants.VALID_LISTENER_POOL_PROTOCOL_MAP, Zed). */
const POOL_PROTOCOLS: Readonly<Record<string, readonly string[]>> = {
  TCP: ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  HTTP: ['HTTP', 'PROXY', 'PROXYV2'],
  HTTPS: ['HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  TERMINATED_HTTPS: ['HTTP', 'PROXY', 'PROXYV2'],
  UDP: ['UDP'],
  SCTP: ['SCTP'],
};

/** Octavia's 400 for a default pool whose protocol the listener's cannot carry. */
export function checkPoolProtocol(listenerProtocol: unknown, poolProtocol: unknown): void {
  const listener = String(listenerProtocol);
  const pool = String(poolProtocol);
  if (!(POOL_PROTOCOLS[listener] ?? []).includes(pool)) {
    throw invalid(`The pool protocol '${pool}' is invalid while the listener protocol is '${listener}'.`);
  }
}
