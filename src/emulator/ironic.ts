/**
 * Ironic as the dev cloud runs it (Zed, API 1.1 … 1.82 in `X-OpenStack-Ironic-API-Version`, the fake-hardware
 * type): nodes enrolled at 1.11+, moved enroll → manageable → available → active (deploy) → available
 * (undeploy) through their transient states after the `ironic.transition` delay, power, instance_uuid, the list
 * with filters, `fields` and absolute `next` links, and the node-detail rule: admin or a system-scoped reader
 * sees any node, a project reader only those its project owns or leases. A control moves a node directly.
 */
import type { AuthContext } from './auth.ts';
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { hasRole, isAdmin } from './auth.ts';
import { controlError } from './controls.ts';
import { ironicFault } from './faults.ts';
import { json, noContent, withHeaders, type EmuRequest, type EmuResponse, type Method } from './http.ts';
import { isObject, isoMicros, stringAt, type JsonObject } from './json.ts';
import { recordsOf, refill } from './records.ts';
import type { Schedule } from './timeline.ts';

const MAX_MINOR = 82;
const V1 = '/baremetal/v1';

interface Node {
  readonly uuid: string;
  name: string | null;
  readonly driver: string;
  provisionState: string;
  targetProvisionState: string | null;
  powerState: string | null;
  maintenance: boolean;
  instanceUuid: string | null;
  lastError: string | null;
  owner: string | null;
  lessee: string | null;
  resourceClass: string | null;
  properties: JsonObject;
  extra: JsonObject;
  instanceInfo: JsonObject;
  readonly createdAt: number;
  updatedAt: number | null;
  /** Bumped by every change of course, so a transition scheduled for an older one does nothing. */
  op: number;
}

/** The provision verbs: from which states, through which transient state, to which stable one. */
const VERBS: Readonly<Record<string, { from: readonly string[]; via: string; to: string }>> = {
  manage: { from: ['enroll', 'manageable', 'available'], via: 'verifying', to: 'manageable' },
  provide: { from: ['manageable'], via: 'cleaning', to: 'available' },
  active: { from: ['available'], via: 'deploying', to: 'active' },
  deploy: { from: ['available'], via: 'deploying', to: 'active' },
  rebuild: { from: ['active'], via: 'deploying', to: 'active' },
  deleted: { from: ['active', 'deploy failed', 'error'], via: 'deleting', to: 'available' },
  undeploy: { from: ['active', 'deploy failed', 'error'], via: 'deleting', to: 'available' },
};

const LIST_FIELDS = ['uuid', 'instance_uuid', 'maintenance', 'power_state', 'provision_state', 'name'];

class Ironic implements EmulatedService {
  readonly name = 'ironic';
  readonly nodes = new Map<string, Node>();
  readonly #ctx: ServiceContext;
  /** A provision verb's transient state ends in its stable one, if the node is still on course `op`. */
  readonly #provisioned: Schedule<{ readonly uuid: string; readonly op: number; readonly target: string }>;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.#provisioned = ctx.timeline.define('ironic.transition', ({ uuid, op, target }) => {
      const node = this.nodes.get(uuid);
      const verb = VERBS[target];
      if (node?.op !== op || verb === undefined) return;
      node.provisionState = verb.to;
      node.targetProvisionState = null;
      // Verifying reads the fake BMC; deploy powers on, undeploy off.
      node.powerState = verb.to === 'active' ? 'power on' : 'power off';
      if (target === 'deleted' || target === 'undeploy') node.instanceInfo = {};
      node.updatedAt = ctx.clock.now();
    });
    const version = () => ({
      id: 'v1',
      links: [{ href: `${ctx.origin()}${V1}/`, rel: 'self' }],
      status: 'CURRENT',
      min_version: '1.1',
      version: `1.${String(MAX_MINOR)}`,
    });
    ctx.router.add('GET', '/baremetal', () =>
      json({ name: 'OpenStack Ironic API', default_version: version(), versions: [version()] }),
    );
    ctx.router.add('GET', V1, () => json({ id: 'v1', version: version() }));
    this.#routes();
    ctx.control.add('POST', '/ironic/nodes/{node}/state', (req) => {
      const node = this.nodes.get(req.params.node ?? '') ?? this.#byName(req.params.node ?? '');
      if (!node) throw controlError(404, `no node ${req.params.node ?? ''}`);
      const state = stringAt(req.body, 'provision_state');
      if (state === undefined)
        throw controlError(400, 'expected {"provision_state": …, "power_state"?: …, "last_error"?: …}');
      this.move(node.uuid, state, stringAt(req.body, 'power_state'), stringAt(req.body, 'last_error'));
      return noContent();
    });
  }

  reset(): void {
    this.nodes.clear();
  }

  records(): unknown {
    return recordsOf(this, ['nodes']);
  }

  restore(records: unknown): void {
    refill(this, records);
  }

  dump(): unknown {
    return { nodes: [...this.nodes.values()] };
  }

  /** Control: the node is in `state` now (an operator's or a conductor's doing), any transition abandoned. */
  move(uuid: string, state: string, power?: string, lastError?: string): void {
    const node = this.nodes.get(uuid);
    if (!node) throw controlError(404, `no node ${uuid}`);
    node.provisionState = state;
    node.targetProvisionState = null;
    if (power !== undefined) node.powerState = power;
    if (lastError !== undefined) node.lastError = lastError;
    node.updatedAt = this.#ctx.clock.now();
    node.op++;
  }

  #byName(name: string): Node | undefined {
    return [...this.nodes.values()].find((n) => n.name === name);
  }

  #view(n: Node, minor: number): JsonObject {
    const time = (ms: number | null) => (ms === null ? null : isoMicros(ms).replace(/Z$/, '+00:00'));
    const view: JsonObject = {
      uuid: n.uuid,
      name: n.name,
      driver: n.driver,
      provision_state: n.provisionState,
      target_provision_state: n.targetProvisionState,
      power_state: n.powerState,
      target_power_state: null,
      maintenance: n.maintenance,
      maintenance_reason: null,
      instance_uuid: n.instanceUuid,
      last_error: n.lastError,
      properties: { ...n.properties },
      extra: { ...n.extra },
      instance_info: { ...n.instanceInfo },
      driver_info: {},
      console_enabled: false,
      reservation: null,
      chassis_uuid: null,
      created_at: time(n.createdAt),
      updated_at: time(n.updatedAt),
      links: [{ href: `${this.#ctx.origin()}${V1}/nodes/${n.uuid}`, rel: 'self' }],
    };
    if (minor >= 21) view.resource_class = n.resourceClass;
    if (minor >= 50) view.owner = n.owner;
    if (minor >= 65) view.lessee = n.lessee;
    return view;
  }

  /**
   * Admin, the baremetal roles (baremetal_observer: deploy/policies/ironic.yaml, which the region account holds), or
   * a system-scoped reader see every node; a project reader its own and leased.
   */
  #sees(auth: AuthContext, n: Node): boolean {
    if (isAdmin(auth) || hasRole(auth, 'baremetal_admin') || hasRole(auth, 'baremetal_observer')) return true;
    if (auth.system && hasRole(auth, 'reader')) return true;
    return auth.projectId !== undefined && (n.owner === auth.projectId || n.lessee === auth.projectId);
  }

  #node(auth: AuthContext, ident: string): Node {
    const node = this.nodes.get(ident) ?? this.#byName(ident);
    // Ironic hides a node the caller may not read: the same 404 as a missing one.
    if (!node || !this.#sees(auth, node)) throw ironicFault(404, `Node ${ident} could not be found.`);
    return node;
  }

  #routes(): void {
    const ctx = this.#ctx;
    const route = (
      method: Method,
      path: string,
      handler: (req: EmuRequest, minor: number, auth: AuthContext) => EmuResponse,
    ) => {
      ctx.router.add(method, `${V1}${path}`, (req) => {
        const header = req.headers['x-openstack-ironic-api-version'] ?? req.headers['openstack-api-version'];
        const m = typeof header === 'string' ? /(?:baremetal\s+)?1\.(\d+|latest)/i.exec(header) : null;
        const minor = m === null ? 1 : m[1] === 'latest' ? MAX_MINOR : Number(m[1]);
        const headers = {
          'x-openstack-ironic-api-minimum-version': '1.1',
          'x-openstack-ironic-api-maximum-version': `1.${String(MAX_MINOR)}`,
          'x-openstack-ironic-api-version': `1.${String(minor)}`,
        };
        return withHeaders(
          () => headers,
          () => {
            if (minor > MAX_MINOR)
              throw ironicFault(
                406,
                `Version 1.${String(minor)} was requested but the maximum is 1.${String(MAX_MINOR)}.`,
              );
            return handler(
              req,
              minor,
              ctx.authenticate(req, (msg) => ironicFault(401, msg)),
            );
          },
        );
      });
    };
    const pick = (view: JsonObject, fields: string[] | undefined): JsonObject =>
      fields === undefined
        ? view
        : Object.fromEntries(Object.entries(view).filter(([k]) => k === 'links' || fields.includes(k)));
    const fieldsOf = (req: EmuRequest, minor: number): string[] | undefined => {
      const text = req.query.get('fields');
      if (text === null) return undefined;
      if (minor < 8) throw ironicFault(406, 'The fields parameter needs API version 1.8.');
      return text.split(',');
    };
    const list = (detail: boolean) => (req: EmuRequest, minor: number, auth: AuthContext) => {
      const q = req.query;
      const instance = q.get('instance_uuid');
      const state = q.get('provision_state');
      const associated = q.get('associated');
      const fields = detail ? undefined : (fieldsOf(req, minor) ?? LIST_FIELDS);
      let rows = [...this.nodes.values()]
        .filter((n) => this.#sees(auth, n))
        .filter((n) => instance === null || n.instanceUuid === instance)
        .filter((n) => state === null || n.provisionState === state)
        .filter((n) => associated === null || (n.instanceUuid !== null) === /^true$/i.test(associated))
        .sort((a, b) => a.createdAt - b.createdAt || (a.uuid < b.uuid ? -1 : 1));
      const marker = q.get('marker');
      if (marker !== null) rows = rows.slice(rows.findIndex((n) => n.uuid === marker) + 1);
      const limit = Number(q.get('limit') ?? 1000);
      const body: JsonObject = {};
      if (rows.length > limit) {
        rows = rows.slice(0, limit);
        const query = new URLSearchParams(q);
        query.set('marker', rows.at(-1)?.uuid ?? '');
        body.next = `${ctx.origin()}${req.path}?${query.toString()}`;
      }
      body.nodes = rows.map((n) => pick(this.#view(n, minor), fields));
      return json(body);
    };
    route('GET', '/nodes', list(false));
    route('GET', '/nodes/detail', list(true));
    route('GET', '/nodes/{ident}', (req, minor, auth) =>
      json(pick(this.#view(this.#node(auth, req.params.ident ?? ''), minor), fieldsOf(req, minor))),
    );
    route('POST', '/nodes', (req, minor, auth) => {
      if (!isAdmin(auth) && !hasRole(auth, 'baremetal_admin'))
        throw ironicFault(403, 'baremetal:node:create is disallowed by policy');
      const driver = stringAt(req.body, 'driver');
      if (driver !== 'fake-hardware')
        throw ironicFault(
          400,
          `No valid host was found. Reason: No conductor service registered which supports driver ${driver ?? ''} for conductor group "".`,
        );
      const name = stringAt(req.body, 'name') ?? null;
      if (name !== null && this.#byName(name)) throw ironicFault(409, `A node with name ${name} already exists.`);
      const props = isObject(req.body) && isObject(req.body.properties) ? req.body.properties : {};
      const node: Node = {
        uuid: stringAt(req.body, 'uuid') ?? ctx.newID(),
        name,
        driver,
        // Before 1.11 a new node is available at once; from 1.11 it is enrolled.
        provisionState: minor >= 11 ? 'enroll' : 'available',
        targetProvisionState: null,
        powerState: null,
        maintenance: false,
        instanceUuid: null,
        lastError: null,
        owner: stringAt(req.body, 'owner') ?? null,
        lessee: stringAt(req.body, 'lessee') ?? null,
        resourceClass: stringAt(req.body, 'resource_class') ?? null,
        properties: { ...props },
        extra: {},
        instanceInfo: {},
        createdAt: ctx.clock.now(),
        updatedAt: null,
        op: 0,
      };
      this.nodes.set(node.uuid, node);
      return json(this.#view(node, minor), 201);
    });
    route('PATCH', '/nodes/{ident}', (req, minor, auth) => {
      if (!isAdmin(auth) && !hasRole(auth, 'baremetal_admin'))
        throw ironicFault(403, 'baremetal:node:update is disallowed by policy');
      const node = this.#node(auth, req.params.ident ?? '');
      if (!Array.isArray(req.body)) throw ironicFault(400, 'Invalid patch: a JSON list of operations is required.');
      for (const op of req.body as unknown[]) this.#patch(node, op);
      node.updatedAt = ctx.clock.now();
      return json(this.#view(node, minor));
    });
    route('DELETE', '/nodes/{ident}', (req, _minor, auth) => {
      if (!isAdmin(auth) && !hasRole(auth, 'baremetal_admin'))
        throw ironicFault(403, 'baremetal:node:delete is disallowed by policy');
      const node = this.#node(auth, req.params.ident ?? '');
      if (node.instanceUuid !== null)
        throw ironicFault(409, `Node ${node.uuid} is associated with instance ${node.instanceUuid}.`);
      if (
        !['enroll', 'manageable', 'available', 'error', 'clean failed', 'inspect failed'].includes(node.provisionState)
      ) {
        throw ironicFault(
          409,
          `Can not delete node "${node.uuid}" while it is in provision state "${node.provisionState}".`,
        );
      }
      this.nodes.delete(node.uuid);
      return noContent();
    });
    route('PUT', '/nodes/{ident}/states/provision', (req, _minor, auth) => {
      if (!isAdmin(auth) && !hasRole(auth, 'baremetal_admin'))
        throw ironicFault(403, 'baremetal:node:set_provision_state is disallowed by policy');
      const node = this.#node(auth, req.params.ident ?? '');
      const target = stringAt(req.body, 'target') ?? '';
      const verb = VERBS[target];
      if (!verb || !verb.from.includes(node.provisionState) || node.targetProvisionState !== null) {
        throw ironicFault(
          400,
          `The requested action "${target}" can not be performed on node "${node.uuid}" while it is in state "${node.provisionState}".`,
        );
      }
      node.provisionState = verb.via;
      node.targetProvisionState = verb.to;
      node.op++;
      this.#provisioned(ctx.clock.now() + ctx.delay('ironic.transition', 50), { uuid: node.uuid, op: node.op, target });
      return { status: 202, headers: { location: `${ctx.origin()}${V1}/nodes/${node.uuid}/states` } };
    });
    route('PUT', '/nodes/{ident}/states/power', (req, _minor, auth) => {
      if (!isAdmin(auth) && !hasRole(auth, 'baremetal_admin'))
        throw ironicFault(403, 'baremetal:node:set_power_state is disallowed by policy');
      const node = this.#node(auth, req.params.ident ?? '');
      const target = stringAt(req.body, 'target') ?? '';
      const next = {
        'power on': 'power on',
        'power off': 'power off',
        rebooting: 'power on',
        'soft power off': 'power off',
        'soft rebooting': 'power on',
      }[target];
      if (next === undefined) throw ironicFault(400, `Invalid power state target ${target}.`);
      if (node.provisionState === 'enroll')
        throw ironicFault(409, `Node ${node.uuid} is in enroll state: manage it first.`);
      node.powerState = next;
      node.updatedAt = ctx.clock.now();
      return { status: 202 };
    });
  }

  /** One JSON-patch operation on the attributes openregion and operators change. */
  #patch(node: Node, op: unknown): void {
    const verb = stringAt(op, 'op');
    const path = stringAt(op, 'path') ?? '';
    const value = isObject(op) ? op.value : undefined;
    const remove = verb === 'remove';
    if (verb !== 'add' && verb !== 'replace' && !remove)
      throw ironicFault(400, `Invalid patch operation ${String(verb)}.`);
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    switch (path) {
      case '/instance_uuid': {
        const next = remove ? null : text(value);
        if (next !== null && node.instanceUuid !== null && node.instanceUuid !== next) {
          throw ironicFault(409, `Node ${node.uuid} is associated with instance ${node.instanceUuid}.`);
        }
        node.instanceUuid = next;
        return;
      }
      case '/name':
        node.name = remove ? null : text(value);
        return;
      case '/owner':
        node.owner = remove ? null : text(value);
        return;
      case '/lessee':
        node.lessee = remove ? null : text(value);
        return;
      case '/resource_class':
        node.resourceClass = remove ? null : text(value);
        return;
      case '/maintenance':
        node.maintenance = !remove && value === true;
        return;
    }
    const [, bag, key] = /^\/(properties|extra|instance_info)\/(.+)$/.exec(path) ?? [];
    if (bag === undefined || key === undefined) throw ironicFault(400, `Cannot patch ${path}.`);
    const target = bag === 'properties' ? node.properties : bag === 'extra' ? node.extra : node.instanceInfo;
    const next = Object.entries(target).filter(([k]) => k !== key);
    if (!remove) next.push([key, value]);
    const replaced = Object.fromEntries(next);
    if (bag === 'properties') node.properties = replaced;
    else if (bag === 'extra') node.extra = replaced;
    else node.instanceInfo = replaced;
  }
}

export const ironicModule: ServiceModule<Ironic> = {
  name: 'ironic',
  prefix: '/baremetal',
  catalog: [{ type: 'baremetal', name: 'ironic', path: '/baremetal' }],
  fault: ironicFault,
  create: (ctx: ServiceContext) => new Ironic(ctx),
};
