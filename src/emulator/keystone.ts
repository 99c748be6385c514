/**
 * Keystone v3 as the dev cloud's Zed runs it: bootstrapped with admin/admin/Default and roles admin ⇒ member ⇒
 * reader (as `keystone-manage bootstrap` makes them), tokens for every method and scope openregion uses, and the
 * Zed default policies with enforce_scope off, so the admin role anywhere is cloud admin and everyone else sees
 * only what their scope allows.
 */
import { createHash } from 'node:crypto';
import type { AuthContext } from './auth.ts';
import type { CatalogSpec, EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { keystoneFault } from './faults.ts';
import { json, noContent, type EmuRequest } from './http.ts';
import { authenticateWith, forbidden, PREFIX, tokenOf, type KeystoneApi } from './keystone/api.ts';
import { registerApplicationCredentials } from './keystone/appcreds.ts';
import { registerAssignments } from './keystone/assignments.ts';
import { registerResources } from './keystone/resources.ts';
import { KEYSTONE_RECORDS, KeystoneStore, type KRole } from './keystone/store.ts';
import { recordsOf, refill } from './records.ts';
import { issueToken, tokenBody, unauthorized } from './keystone/tokens.ts';
import { isAdmin } from './auth.ts';

const REGION = 'RegionOne';
const DEFAULT_DOMAIN_ID = 'default';
/** Keystone's `[token] expiration` default: one hour. */
const TOKEN_TTL_MS = 3_600_000;

export class Keystone implements EmulatedService {
  readonly name = 'keystone';
  readonly store = new KeystoneStore();
  readonly #ctx: ServiceContext;
  readonly #catalog: () => readonly CatalogSpec[];

  constructor(ctx: ServiceContext, catalog: () => readonly CatalogSpec[]) {
    this.#ctx = ctx;
    this.#catalog = catalog;
    this.bootstrap();
    this.#routes();
  }

  /** The caller behind a token, or undefined when the token is not (or no longer) valid. */
  authenticate(token: string): AuthContext | undefined {
    return this.store.authContext(token, this.#ctx.clock.now());
  }

  reset(): void {
    this.store.clear();
    this.bootstrap();
  }

  dump(): unknown {
    const s = this.store;
    return {
      domains: [...s.domains.values()],
      projects: [...s.projects.values()],
      users: [...s.users.values()].map((u) => ({ ...u, password: u.password === undefined ? null : '***' })),
      roles: [...s.roles.values()],
      implied: Object.fromEntries([...s.implied].map(([k, v]) => [k, [...v]])),
      assignments: s.assignments,
      applicationCredentials: [...s.appCreds.values()].map((a) => ({ ...a, secret: '***' })),
      tokens: s.tokens.size,
    };
  }

  records(): unknown {
    return { store: recordsOf(this.store, KEYSTONE_RECORDS) };
  }

  restore(records: unknown): void {
    refill(this.store, (records as { store: unknown }).store);
  }

  /** What `keystone-manage bootstrap` leaves: the Default domain, admin in project admin, three roles. */
  bootstrap(): void {
    const s = this.store;
    s.domains.set(DEFAULT_DOMAIN_ID, {
      id: DEFAULT_DOMAIN_ID,
      name: 'Default',
      description: 'The default domain',
      enabled: true,
    });
    const role = (name: string): KRole => {
      const r: KRole = { id: this.#id(), name, domainId: null, description: null };
      s.roles.set(r.id, r);
      return r;
    };
    const [admin, member, reader] = [role('admin'), role('member'), role('reader')];
    s.implied.set(admin.id, new Set([member.id]));
    s.implied.set(member.id, new Set([reader.id]));
    const project = {
      id: this.#id(),
      name: 'admin',
      domainId: DEFAULT_DOMAIN_ID,
      description: 'Bootstrap project for initializing the cloud.',
      enabled: true,
      tags: [],
    };
    s.projects.set(project.id, project);
    const user = {
      id: this.#id(),
      name: 'admin',
      domainId: DEFAULT_DOMAIN_ID,
      enabled: true,
      password: this.#ctx.config.adminPassword,
      description: undefined,
      defaultProjectId: undefined,
      options: {},
    };
    s.users.set(user.id, user);
    s.assignments.push(
      { userId: user.id, roleId: admin.id, target: { kind: 'project', id: project.id } },
      { userId: user.id, roleId: admin.id, target: { kind: 'system' } },
    );
  }

  #id(): string {
    return this.#ctx.newID().replaceAll('-', '');
  }

  /** The catalog as a token shows it: `%(project_id)s` filled for a project scope, such endpoints left out otherwise. */
  catalog(projectID: string | undefined): unknown[] {
    const origin = this.#ctx.origin();
    const entries = [{ type: 'identity', name: 'keystone', path: PREFIX }, ...this.#catalog()];
    return entries.flatMap((spec) => {
      const templated = spec.path.includes('%(project_id)s');
      if (templated && projectID === undefined) return [];
      const url = origin + spec.path.replace('%(project_id)s', projectID ?? '');
      const id = (what: string) => createHash('md5').update(`${spec.type}/${what}`).digest('hex');
      return [
        {
          endpoints: (['public', 'internal', 'admin'] as const).map((iface) => ({
            id: id(iface),
            interface: iface,
            region_id: REGION,
            url,
            region: REGION,
          })),
          id: id('service'),
          type: spec.type,
          name: spec.name,
        },
      ];
    });
  }

  #routes(): void {
    const { router, clock } = this.#ctx;
    const authenticate = authenticateWith(this.store, () => clock.now());
    const api: KeystoneApi = {
      store: this.store,
      ctx: this.#ctx,
      route: (method, path, handler) => {
        router.add(method, `${PREFIX}${path}`, (req) => handler(req, authenticate(req)));
      },
      revokeUser: (userID) => {
        this.store.revokeTokens((t) => t.userId === userID);
      },
    };
    const version = {
      id: 'v3.14',
      status: 'stable',
      updated: '2020-04-07T00:00:00Z',
      links: [{ rel: 'self', href: `${this.#ctx.origin()}${PREFIX}/` }],
      'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.identity-v3+json' }],
    };
    router.add('GET', '/identity', () => json({ versions: { values: [version] } }, 300));
    router.add('GET', PREFIX, () => json({ version }));

    router.add('POST', `${PREFIX}/auth/tokens`, (req) => {
      // Expired tokens are forgotten as new ones come, so a long-lived (persistent) cloud does not pile them up.
      this.store.revokeTokens((t) => t.expiresAt <= clock.now());
      const token = issueToken(this.store, req.body, {
        now: clock.now(),
        ttlMs: this.#ctx.delay('keystone.token_ttl', TOKEN_TTL_MS),
      });
      return json({ token: tokenBody(this.store, token, this) }, 201, { 'X-Subject-Token': token.value });
    });
    const subject = (req: EmuRequest, auth: AuthContext, action: string) => {
      const value = tokenOf(req, 'x-subject-token');
      const record = this.store.tokens.get(value);
      const valid = this.store.authContext(value, clock.now());
      if (!record || !valid) throw keystoneFault(404, 'Not Found', 'Could not recognize Fernet token');
      if (!isAdmin(auth) && auth.userId !== record.userId && !auth.roles.includes('service')) throw forbidden(action);
      return record;
    };
    for (const method of ['GET', 'HEAD'] as const) {
      api.route(method, '/auth/tokens', (req, auth) => {
        const record = subject(req, auth, 'validate_token');
        return json({ token: tokenBody(this.store, record, this) }, 200, { 'X-Subject-Token': record.value });
      });
    }
    api.route('DELETE', '/auth/tokens', (req, auth) => {
      const record = subject(req, auth, 'revoke_token');
      this.store.tokens.delete(record.value);
      return noContent();
    });
    api.route('GET', '/auth/catalog', (_req, auth) => {
      if (auth.projectId === undefined && auth.domainId === undefined && !auth.system) {
        throw unauthorized();
      }
      return json({
        catalog: this.catalog(auth.projectId),
        links: { self: `${this.#ctx.origin()}${PREFIX}/auth/catalog` },
      });
    });
    registerResources(api);
    registerAssignments(api);
    registerApplicationCredentials(api);
  }
}

/** Keystone's place in the emulator: it is always present, and its catalog lists every other service. */
export function keystoneModule(catalog: () => readonly CatalogSpec[]): ServiceModule<Keystone> {
  return {
    name: 'keystone',
    prefix: '/identity',
    catalog: [],
    fault: (status, message) => keystoneFault(status, status === 404 ? 'Not Found' : 'Error', message),
    create: (ctx) => new Keystone(ctx, catalog),
  };
}
