/**
 * Placement as the dev cloud runs it (Zed, microversions 1.0 … 1.39 in `OpenStack-API-Version: placement`):
 * resource providers, inventories, custom resource classes and traits, and the provider list filtered by free
 * capacity (`resources=`) and traits (`required=`, with `!forbidden` from 1.22). It installs the placement lookup,
 * so Nova schedules a flavor asking for custom resources or traits only where some provider satisfies it.
 */
import type { AuthContext } from './auth.ts';
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { isAdmin } from './auth.ts';
import { placementFault } from './faults.ts';
import { json, noContent, withHeaders, type EmuRequest, type EmuResponse, type Method } from './http.ts';
import { isObject, numberAt, objectAt, stringAt, stringsOf, arrayAt, type JsonObject } from './json.ts';
import type { Lookups, PlacementLookup } from './lookups.ts';
import { recordsOf, refill } from './records.ts';

const MAX_MINOR = 39;
const STANDARD_CLASSES = [
  'VCPU',
  'MEMORY_MB',
  'DISK_GB',
  'PCI_DEVICE',
  'SRIOV_NET_VF',
  'VGPU',
  'PCPU',
  'MEM_ENCRYPTION_CONTEXT',
];
const STANDARD_TRAITS = [
  'COMPUTE_NODE',
  'HW_CPU_X86_AVX2',
  'HW_CPU_X86_VMX',
  'COMPUTE_STATUS_DISABLED',
  'STORAGE_DISK_SSD',
];
const CUSTOM = /^CUSTOM_[A-Z0-9_]{1,248}$/;

interface Inventory {
  total: number;
  reserved: number;
  min_unit: number;
  max_unit: number;
  step_size: number;
  allocation_ratio: number;
}

interface Provider {
  readonly uuid: string;
  name: string;
  generation: number;
  readonly parent: string | null;
  readonly root: string;
  inventories: Record<string, Inventory>;
  traits: string[];
}

const bad = (detail: string) => placementFault(400, 'placement.undefined_code', detail);
const missing = (detail: string) => placementFault(404, 'placement.undefined_code', detail);
const conflict = (detail: string, code = 'placement.undefined_code') => placementFault(409, code, detail);

class Placement implements EmulatedService, PlacementLookup {
  readonly name = 'placement';
  readonly providers = new Map<string, Provider>();
  readonly classes = new Set<string>();
  readonly traits = new Set<string>();
  readonly #ctx: ServiceContext;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.reset();
    ctx.router.add('GET', '/placement', () =>
      json({
        versions: [
          {
            id: 'v1.0',
            max_version: `1.${String(MAX_MINOR)}`,
            min_version: '1.0',
            status: 'CURRENT',
            links: [{ rel: 'self', href: '' }],
          },
        ],
      }),
    );
    this.#routes();
  }

  reset(): void {
    this.providers.clear();
    this.classes.clear();
    this.traits.clear();
    for (const c of STANDARD_CLASSES) this.classes.add(c);
    for (const t of STANDARD_TRAITS) this.traits.add(t);
  }

  records(): unknown {
    return recordsOf(this, ['providers', 'classes', 'traits']);
  }

  restore(records: unknown): void {
    refill(this, records);
  }

  dump(): unknown {
    return {
      providers: [...this.providers.values()],
      customClasses: [...this.classes].filter((c) => c.startsWith('CUSTOM_')),
      customTraits: [...this.traits].filter((t) => t.startsWith('CUSTOM_')),
    };
  }

  // ------------------------------------------------------------------------------------------ PlacementLookup (Nova)
  canHost(
    resources: Readonly<Record<string, number>>,
    traits: Readonly<Record<string, 'required' | 'forbidden'>>,
  ): boolean {
    // The compute host's own VCPU, RAM and disk are not modelled as a provider: only custom asks need one.
    const custom = Object.fromEntries(
      Object.entries(resources).filter(([name, n]) => name.startsWith('CUSTOM_') && n > 0),
    );
    const required = Object.keys(traits).filter((t) => traits[t] === 'required');
    const forbidden = Object.keys(traits).filter((t) => traits[t] === 'forbidden');
    if (Object.keys(custom).length === 0 && required.length === 0) return true;
    return [...this.providers.values()].some((p) => this.#fits(p, custom, required, forbidden));
  }

  #fits(
    p: Provider,
    resources: Readonly<Record<string, number>>,
    required: readonly string[],
    forbidden: readonly string[],
  ): boolean {
    const capacity = Object.entries(resources).every(([cls, amount]) => {
      const inv = p.inventories[cls];
      // Nothing is allocated in the emulator: the free capacity is the whole usable inventory.
      return inv !== undefined && amount <= inv.max_unit && amount <= (inv.total - inv.reserved) * inv.allocation_ratio;
    });
    return capacity && required.every((t) => p.traits.includes(t)) && !forbidden.some((t) => p.traits.includes(t));
  }

  #view(p: Provider): JsonObject {
    const self = `/resource_providers/${p.uuid}`;
    return {
      uuid: p.uuid,
      name: p.name,
      generation: p.generation,
      parent_provider_uuid: p.parent,
      root_provider_uuid: p.root,
      links: ['', '/inventories', '/usages', '/aggregates', '/traits', '/allocations'].map((s) => ({
        rel: s === '' ? 'self' : s.slice(1),
        href: `${self}${s}`,
      })),
    };
  }

  #provider(uuid: string): Provider {
    const p = this.providers.get(uuid);
    if (!p) throw missing(`No resource provider with uuid ${uuid} found`);
    return p;
  }

  #generation(p: Provider, body: unknown): void {
    if (numberAt(body, 'resource_provider_generation') !== p.generation) {
      throw conflict(`resource provider generation conflict`, 'placement.concurrent_update');
    }
  }

  #list(req: EmuRequest, minor: number): EmuResponse {
    const q = req.query;
    const resources: Record<string, number> = {};
    for (const part of (q.get('resources') ?? '').split(',').filter((s) => s !== '')) {
      const [cls = '', amount = ''] = part.split(':');
      if (!this.classes.has(cls) || !/^\d+$/.test(amount))
        throw bad(`Invalid resource class in resources parameter: ${part}`);
      resources[cls] = Number(amount);
    }
    const required: string[] = [];
    const forbidden: string[] = [];
    for (const t of (q.get('required') ?? '').split(',').filter((s) => s !== '')) {
      if (t.startsWith('!') && minor >= 22) forbidden.push(t.slice(1));
      else if (t.startsWith('!'))
        throw bad(
          `Invalid query string parameters: Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: ${t}`,
        );
      else required.push(t);
    }
    const unknown = [...required, ...forbidden].filter((t) => !this.traits.has(t));
    if (unknown.length > 0) throw bad(`No such trait(s): ${unknown.join(', ')}`);
    const name = q.get('name');
    const uuid = q.get('uuid');
    const tree = q.get('in_tree');
    const treeRoot = tree === null ? undefined : this.providers.get(tree)?.root;
    const rows = [...this.providers.values()].filter(
      (p) =>
        (name === null || p.name === name) &&
        (uuid === null || p.uuid === uuid) &&
        (tree === null || p.root === treeRoot) &&
        this.#fits(p, resources, required, forbidden),
    );
    return json({ resource_providers: rows.map((p) => this.#view(p)) });
  }

  #routes(): void {
    const ctx = this.#ctx;
    const { router } = ctx;
    const route = (
      method: Method,
      path: string,
      handler: (req: EmuRequest, minor: number, auth: AuthContext) => EmuResponse,
    ) => {
      router.add(method, `/placement${path}`, (req) => {
        const header = req.headers['openstack-api-version'];
        const m = typeof header === 'string' ? /placement\s+1\.(\d+|latest)/i.exec(header) : null;
        const minor = m === null ? 0 : m[1] === 'latest' ? MAX_MINOR : Number(m[1]);
        const headers = { 'openstack-api-version': `placement 1.${String(minor)}`, vary: 'openstack-api-version' };
        return withHeaders(
          () => headers,
          () => {
            if (minor > MAX_MINOR)
              throw placementFault(406, 'placement.undefined_code', `Unacceptable version header: 1.${String(minor)}`);
            const auth = ctx.authenticate(req, (msg) => placementFault(401, 'placement.undefined_code', msg));
            // Placement's default policy is admin-only for everything openregion uses; deploy/policies/placement.yaml
            // lets a manager list providers.
            const listing = method === 'GET' && path === '/resource_providers' && auth.roles.includes('manager');
            if (!isAdmin(auth) && !auth.roles.includes('service') && !listing)
              throw placementFault(
                403,
                'placement.undefined_code',
                `Policy does not allow placement:${path} to be performed.`,
              );
            return handler(req, minor, auth);
          },
        );
      });
    };
    const named = (set: Set<string>, what: string) => (req: EmuRequest, minor: number) => {
      const name = req.params.name ?? '';
      if (what === 'resource class' && minor < 7) throw bad('PUT of a resource class needs microversion 1.7');
      if (!CUSTOM.test(name)) throw bad(`The ${what} is invalid. A valid ${what} must start with the prefix "CUSTOM_"`);
      if (set.has(name)) return noContent();
      set.add(name);
      return { status: 201, headers: { location: `/placement${req.path.replace(/^\/placement/, '')}` } };
    };
    route('PUT', '/resource_classes/{name}', named(this.classes, 'resource class'));
    route('GET', '/resource_classes', () => json({ resource_classes: [...this.classes].map((name) => ({ name })) }));
    route('DELETE', '/resource_classes/{name}', (req) => {
      const name = req.params.name ?? '';
      if (!name.startsWith('CUSTOM_')) throw bad(`Cannot delete standard resource class ${name}.`);
      if ([...this.providers.values()].some((p) => name in p.inventories))
        throw conflict(`Unable to delete resource class ${name}. Class is in use in inventory`);
      if (!this.classes.delete(name)) throw missing(`No such resource class ${name}.`);
      return noContent();
    });
    route('PUT', '/traits/{name}', named(this.traits, 'trait'));
    route('GET', '/traits', () => json({ traits: [...this.traits] }));
    route('GET', '/traits/{name}', (req) => {
      if (!this.traits.has(req.params.name ?? '')) throw missing(`No such trait(s): ${req.params.name ?? ''}`);
      return noContent();
    });
    route('DELETE', '/traits/{name}', (req) => {
      const name = req.params.name ?? '';
      if (!name.startsWith('CUSTOM_')) throw bad(`Cannot delete standard trait ${name}.`);
      if ([...this.providers.values()].some((p) => p.traits.includes(name)))
        throw conflict(`The trait ${name} is in use by a resource provider.`);
      if (!this.traits.delete(name)) throw missing(`No such trait(s): ${name}`);
      return noContent();
    });

    route('GET', '/resource_providers', (req, minor) => this.#list(req, minor));
    route('POST', '/resource_providers', (req, minor) => {
      const name = stringAt(req.body, 'name');
      if (name === undefined || name === '') throw bad("JSON does not validate: 'name' is a required property");
      if ([...this.providers.values()].some((p) => p.name === name))
        throw conflict(`Conflicting resource provider name: ${name} already exists.`, 'placement.duplicate_name');
      const uuid = stringAt(req.body, 'uuid') ?? ctx.newID();
      if (this.providers.has(uuid)) throw conflict(`Conflicting resource provider uuid: ${uuid} already exists.`);
      const parentID = stringAt(req.body, 'parent_provider_uuid') ?? null;
      const parent = parentID === null ? undefined : this.#provider(parentID);
      const p: Provider = {
        uuid,
        name,
        generation: 0,
        parent: parentID,
        root: parent?.root ?? uuid,
        inventories: {},
        traits: [],
      };
      this.providers.set(uuid, p);
      const location = { location: `/placement/resource_providers/${uuid}` };
      // From 1.20 the create answers with the provider; before, 201 and a Location only.
      return minor >= 20 ? json(this.#view(p), 200, location) : { status: 201, headers: location };
    });
    route('GET', '/resource_providers/{uuid}', (req) => json(this.#view(this.#provider(req.params.uuid ?? ''))));
    route('DELETE', '/resource_providers/{uuid}', (req) => {
      const p = this.#provider(req.params.uuid ?? '');
      if ([...this.providers.values()].some((c) => c.parent === p.uuid))
        throw conflict(`Unable to delete parent resource provider ${p.uuid}: It has child resource providers.`);
      this.providers.delete(p.uuid);
      return noContent();
    });
    const inventories = (p: Provider) =>
      json({ resource_provider_generation: p.generation, inventories: p.inventories });
    route('GET', '/resource_providers/{uuid}/inventories', (req) => inventories(this.#provider(req.params.uuid ?? '')));
    route('PUT', '/resource_providers/{uuid}/inventories', (req) => {
      const p = this.#provider(req.params.uuid ?? '');
      this.#generation(p, req.body);
      const body = objectAt(req.body, 'inventories');
      if (!body) throw bad("JSON does not validate: 'inventories' is a required property");
      const next: Record<string, Inventory> = {};
      for (const [cls, raw] of Object.entries(body)) {
        if (!this.classes.has(cls))
          throw bad(`Unknown resource class in inventory for resource provider ${p.uuid}: ${cls}`);
        const total = numberAt(raw, 'total');
        if (!isObject(raw) || total === undefined) throw bad(`JSON does not validate: 'total' is a required property`);
        next[cls] = {
          total,
          reserved: numberAt(raw, 'reserved') ?? 0,
          min_unit: numberAt(raw, 'min_unit') ?? 1,
          max_unit: numberAt(raw, 'max_unit') ?? total,
          step_size: numberAt(raw, 'step_size') ?? 1,
          allocation_ratio: numberAt(raw, 'allocation_ratio') ?? 1,
        };
      }
      p.inventories = next;
      p.generation++;
      return inventories(p);
    });
    const traitsOf = (p: Provider) => json({ resource_provider_generation: p.generation, traits: [...p.traits] });
    route('GET', '/resource_providers/{uuid}/traits', (req) => traitsOf(this.#provider(req.params.uuid ?? '')));
    route('PUT', '/resource_providers/{uuid}/traits', (req) => {
      const p = this.#provider(req.params.uuid ?? '');
      this.#generation(p, req.body);
      const traits = stringsOf(arrayAt(req.body, 'traits'));
      const unknown = traits.filter((t) => !this.traits.has(t));
      if (unknown.length > 0) throw bad(`No such trait(s): ${unknown.join(', ')}`);
      p.traits = [...new Set(traits)];
      p.generation++;
      return traitsOf(p);
    });
    route('DELETE', '/resource_providers/{uuid}/traits', (req) => {
      const p = this.#provider(req.params.uuid ?? '');
      p.traits = [];
      p.generation++;
      return noContent();
    });
  }
}

export const placementModule: ServiceModule<Placement> = {
  name: 'placement',
  prefix: '/placement',
  catalog: [{ type: 'placement', name: 'placement', path: '/placement' }],
  fault: (status, message) => placementFault(status, 'placement.undefined_code', message),
  create: (ctx: ServiceContext, lookups: Lookups) => {
    const placement = new Placement(ctx);
    lookups.placement = placement;
    return placement;
  },
};
