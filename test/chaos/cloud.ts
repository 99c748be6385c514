/**
 * The built-in cloud as the chaos suite sees it from outside the `up` process: its chaos and fault controls, an
 * admin who deletes things out of band, and its records reduced to what a leak check compares.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export type CloudState = Record<string, Record<string, unknown>>;

/** One record of the cloud, as its control API dumps it. */
export interface CloudRecord {
  readonly id: string;
  readonly name: string;
  readonly projectId?: string;
  readonly [field: string]: unknown;
}

export interface ChaosCounts {
  readonly [kind: string]: number;
}

/** The cloud of an `up` directory: its origin and admin password come from the clouds.yaml `up` wrote. */
export class BuiltInCloud {
  readonly origin: string;
  readonly #password: string;
  #token: { value: string; projectId: string } | undefined;

  constructor(dir: string) {
    const clouds = parse(readFileSync(join(dir, 'clouds.yaml'), 'utf8')) as {
      clouds: { emulator: { auth: { auth_url: string; password: string } } };
    };
    this.origin = new URL(clouds.clouds.emulator.auth.auth_url).origin;
    this.#password = clouds.clouds.emulator.auth.password;
  }

  async state(): Promise<CloudState> {
    const response = await fetch(`${this.origin}/_emulator/state`);
    return (await response.json()) as CloudState;
  }

  async control(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${this.origin}/_emulator${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
  }

  async chaosCounts(): Promise<ChaosCounts> {
    const { json } = await this.control('GET', '/chaos');
    return (json as { counts: ChaosCounts }).counts;
  }

  /** An admin request to an OpenStack API of the cloud (`{project}` in the path is admin's project); its status. */
  async admin(method: string, path: string): Promise<number> {
    const token = await this.#adminToken();
    const response = await asAnAdminWould(`${this.origin}${path.replace('{project}', token.projectId)}`, {
      method,
      headers: { 'x-auth-token': token.value },
    });
    await response.arrayBuffer();
    return response.status;
  }

  async #adminToken(): Promise<{ value: string; projectId: string }> {
    if (this.#token !== undefined) return this.#token;
    const response = await asAnAdminWould(`${this.origin}/identity/v3/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        auth: {
          identity: {
            methods: ['password'],
            password: { user: { name: 'admin', domain: { id: 'default' }, password: this.#password } },
          },
          scope: { project: { name: 'admin', domain: { id: 'default' } } },
        },
      }),
    });
    const body = (await response.json()) as { token: { project: { id: string } } };
    const value = response.headers.get('x-subject-token') ?? '';
    this.#token = { value, projectId: body.token.project.id };
    return this.#token;
  }

  /** The admin token belongs to one run of the cloud; a restart keeps it, but forget it anyway. */
  forgetToken(): void {
    this.#token = undefined;
  }
}

/** The admin meets the same chaos as the service (resets, 5xx bursts) and, like a person, tries again. */
async function asAnAdminWould(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt === ADMIN_ATTEMPTS;
    try {
      const response = await fetch(url, init);
      if (response.status < 500 || last) return response;
      await response.arrayBuffer();
    } catch (error) {
      if (last) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const ADMIN_ATTEMPTS = 8;

/**
 * The records of `service.collection` in a dump; Octavia keeps a record's name among its wire `fields`. Quota
 * records (`quotas`, a map keyed by project) are read as one record per project, `<service>-quota:<project>`.
 */
export function recordsOf(state: CloudState, service: string, collection: string): CloudRecord[] {
  const value = state[service]?.[collection];
  if (collection === 'quotas') {
    const byProject = typeof value === 'object' && value !== null ? Object.keys(value) : [];
    return byProject.map((projectID) => ({ id: `${service}-quota:${projectID}`, name: 'quota', projectId: projectID }));
  }
  if (!Array.isArray(value)) return [];
  return (value as (CloudRecord & { fields?: { name?: unknown } })[]).map((r) => ({
    ...r,
    name: typeof r.name === 'string' ? r.name : typeof r.fields?.name === 'string' ? r.fields.name : '',
  }));
}

/**
 * The collections a leak check looks at: every kind of thing the region service makes in a cloud, and what the
 * services keep of a project after it is gone (its `default` security group, its quota records, its images).
 */
export const LEAK_COLLECTIONS = [
  ['keystone', 'projects'],
  ['keystone', 'users'],
  ['keystone', 'applicationCredentials'],
  ['nova', 'servers'],
  ['nova', 'keypairs'],
  ['nova', 'serverGroups'],
  ['neutron', 'networks'],
  ['neutron', 'subnets'],
  ['neutron', 'ports'],
  ['neutron', 'routers'],
  ['neutron', 'securityGroups'],
  ['neutron', 'securityGroupRules'],
  ['neutron', 'floatingIps'],
  ['cinder', 'volumes'],
  ['cinder', 'attachments'],
  ['octavia', 'loadbalancers'],
  ['octavia', 'children'],
  // What outlives a project unless the teardown or `region gc` removes it (docs/adr/0038-leaks-snapshot-images-and-default-groups.md).
  ['glance', 'images'],
  ['nova', 'quotas'],
  ['neutron', 'quotas'],
  ['cinder', 'quotas'],
] as const;

/** A stable key for a record: its id, else its project and name (keypairs have no id). */
export function recordKey(record: CloudRecord): string {
  const r = record as { id?: unknown; uuid?: unknown; name?: unknown; userId?: unknown; projectId?: unknown };
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  if (text(r.id) !== '') return text(r.id);
  if (text(r.uuid) !== '') return text(r.uuid);
  return `${text(r.userId) || text(r.projectId)}/${text(r.name)}`;
}
