/**
 * A KV version 2 secrets engine compatible with Vault and OpenBao, for the Keystone orders operator's embedded
 * mode (ESO's PushSecret writes `<mount>/data/<path>` and `<mount>/metadata/<path>`). Every mount is a KV v2
 * mount; one token, configured at start, is accepted in `X-Vault-Token`. Listing is `GET …?list=true`, which is
 * what Vault's own client sends for LIST (node's HTTP parser does not accept a LIST method at all).
 */
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { EmuFault, json, noContent, type EmuRequest, type EmuResponse } from './http.ts';
import { isObject, numberAt, objectAt, type JsonObject } from './json.ts';
import { recordsOf, refill } from './records.ts';

interface Version {
  readonly data: JsonObject;
  readonly createdAt: number;
  deletedAt: number | null;
}

interface Secret {
  versions: Version[];
  customMetadata: Record<string, string>;
  maxVersions: number;
  casRequired: boolean;
  readonly createdAt: number;
  updatedAt: number;
}

/** A path nothing was written to yet. */
const emptySecret = (now: number): Secret => ({
  versions: [],
  customMetadata: {},
  maxVersions: 0,
  casRequired: false,
  createdAt: now,
  updatedAt: now,
});

const kvFault = (status: number, errors: string[]): EmuFault =>
  new EmuFault(status, { errors }, errors[0] ?? `HTTP ${String(status)}`);

class Kv implements EmulatedService {
  readonly name = 'kv';
  /** Keyed by `<mount>/<path>`. */
  readonly secrets = new Map<string, Secret>();
  readonly #ctx: ServiceContext;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.#routes();
  }

  reset(): void {
    this.secrets.clear();
  }

  records(): unknown {
    return recordsOf(this, ['secrets']);
  }

  restore(records: unknown): void {
    refill(this, records);
  }

  /** Paths and versions only: the dump never shows a secret's data. */
  dump(): unknown {
    return Object.fromEntries(
      [...this.secrets].map(([key, s]) => [key, { versions: s.versions.length, customMetadata: s.customMetadata }]),
    );
  }

  #time(ms: number | null): string {
    return ms === null ? '' : new Date(ms).toISOString();
  }

  #envelope(data: unknown): JsonObject {
    return {
      request_id: this.#ctx.newID(),
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data,
      wrap_info: null,
      warnings: null,
      auth: null,
    };
  }

  #versionMeta(s: Secret, n: number): JsonObject {
    const v = s.versions[n - 1];
    return {
      created_time: this.#time(v?.createdAt ?? null),
      custom_metadata: { ...s.customMetadata },
      deletion_time: this.#time(v?.deletedAt ?? null),
      destroyed: false,
      version: n,
    };
  }

  #routes(): void {
    const { router, config, clock } = this.#ctx;
    const guard = (handler: (req: EmuRequest, key: string) => EmuResponse) => (req: EmuRequest) => {
      const token = req.headers['x-vault-token'] ?? req.headers.authorization?.replace(/^Bearer\s+/i, '');
      if (token !== config.kvToken) throw kvFault(403, ['permission denied']);
      return handler(req, `${req.params.mount ?? ''}/${req.params.path ?? ''}`);
    };
    router.add('GET', '/v1/sys/health', () => json({ initialized: true, sealed: false, standby: false }));
    router.add(
      'GET',
      '/v1/auth/token/lookup-self',
      guard(() => json(this.#envelope({ id: config.kvToken, policies: ['root'], ttl: 0 }))),
    );

    router.add(
      'GET',
      '/v1/{mount}/data/{path+}',
      guard((req, key) => {
        const s = this.secrets.get(key);
        const wanted = Number(req.query.get('version') ?? 0);
        const n = wanted > 0 ? wanted : (s?.versions.length ?? 0);
        const v = s?.versions[n - 1];
        if (!s || !v) throw kvFault(404, []);
        if (v.deletedAt !== null) return json(this.#envelope({ data: null, metadata: this.#versionMeta(s, n) }), 404);
        return json(this.#envelope({ data: { ...v.data }, metadata: this.#versionMeta(s, n) }));
      }),
    );
    const write = guard((req, key) => {
      const data = objectAt(req.body, 'data');
      if (!data) throw kvFault(400, ['no data provided']);
      const now = clock.now();
      const s = this.secrets.get(key) ?? emptySecret(now);
      const cas = numberAt(objectAt(req.body, 'options'), 'cas');
      if (s.casRequired && cas === undefined) throw kvFault(400, ['check-and-set parameter required for this call']);
      if (cas !== undefined && cas !== s.versions.length)
        throw kvFault(400, ['check-and-set parameter did not match the current version']);
      s.versions.push({ data: { ...data }, createdAt: now, deletedAt: null });
      s.updatedAt = now;
      this.secrets.set(key, s);
      return json(this.#envelope(this.#versionMeta(s, s.versions.length)));
    });
    router.add('POST', '/v1/{mount}/data/{path+}', write);
    router.add('PUT', '/v1/{mount}/data/{path+}', write);
    router.add(
      'DELETE',
      '/v1/{mount}/data/{path+}',
      guard((_req, key) => {
        const latest = this.secrets.get(key)?.versions.at(-1);
        if (latest && latest.deletedAt === null) latest.deletedAt = clock.now();
        return noContent();
      }),
    );

    const list = (key: string): EmuResponse => {
      const prefix = key.endsWith('/') ? key : `${key}/`;
      const keys = new Set<string>();
      for (const k of this.secrets.keys()) {
        if (!k.startsWith(prefix)) continue;
        const rest = k.slice(prefix.length);
        const slash = rest.indexOf('/');
        keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
      }
      if (keys.size === 0) throw kvFault(404, []);
      return json(this.#envelope({ keys: [...keys].sort() }));
    };
    const readMetadata = guard((req, key) => {
      if (/^true$/i.test(req.query.get('list') ?? '')) return list(key);
      const s = this.secrets.get(key);
      if (!s) throw kvFault(404, []);
      return json(
        this.#envelope({
          cas_required: s.casRequired,
          created_time: this.#time(s.createdAt),
          current_version: s.versions.length,
          custom_metadata: { ...s.customMetadata },
          delete_version_after: '0s',
          max_versions: s.maxVersions,
          oldest_version: s.versions.length > 0 ? 1 : 0,
          updated_time: this.#time(s.updatedAt),
          versions: Object.fromEntries(
            s.versions.map((_, i) => [
              String(i + 1),
              {
                created_time: this.#time(s.versions[i]?.createdAt ?? null),
                deletion_time: this.#time(s.versions[i]?.deletedAt ?? null),
                destroyed: false,
              },
            ]),
          ),
        }),
      );
    });
    router.add('GET', '/v1/{mount}/metadata', readMetadata);
    router.add('GET', '/v1/{mount}/metadata/{path+}', readMetadata);
    const writeMetadata = guard((req, key) => {
      const now = clock.now();
      const s = this.secrets.get(key) ?? emptySecret(now);
      const custom = objectAt(req.body, 'custom_metadata');
      if (custom) s.customMetadata = Object.fromEntries(Object.entries(custom).map(([k, v]) => [k, String(v)]));
      s.maxVersions = numberAt(req.body, 'max_versions') ?? s.maxVersions;
      if (isObject(req.body) && typeof req.body.cas_required === 'boolean') s.casRequired = req.body.cas_required;
      s.updatedAt = now;
      this.secrets.set(key, s);
      return noContent();
    });
    router.add('POST', '/v1/{mount}/metadata/{path+}', writeMetadata);
    router.add('PUT', '/v1/{mount}/metadata/{path+}', writeMetadata);
    router.add(
      'DELETE',
      '/v1/{mount}/metadata/{path+}',
      guard((_req, key) => {
        this.secrets.delete(key);
        return noContent();
      }),
    );
  }
}

export const kvModule: ServiceModule<Kv> = {
  name: 'kv',
  prefix: '/v1',
  catalog: [],
  fault: (status, message) => kvFault(status, [message]),
  create: (ctx) => new Kv(ctx),
};
