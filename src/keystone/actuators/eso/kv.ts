/**
 * A small client of the Vault/OpenBao KV version 2 secrets engine: the data and metadata endpoints ESO's Vault
 * provider uses, authenticated with `X-Vault-Token`. Reads answer `undefined` for an absent path; every other
 * failure is a typed error, so the actuator can put a cause-neutral message in status and the detail in its log.
 */
import { request, type Dispatcher } from 'undici';
import { defined } from '../../../util/defined.ts';

interface KvClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8200`. */
  readonly server: string;
  /** The KV v2 mount, e.g. `kv-v2`. */
  readonly mount: string;
  readonly token: string;
  /** Defaults to undici's global dispatcher. */
  readonly dispatcher?: Dispatcher;
  readonly signal?: AbortSignal;
}

/** The server answered with an error status; `errors` is Vault's `{"errors": [...]}` list. */
export class KvHttpError extends Error {
  readonly status: number;
  readonly errors: readonly string[];
  constructor(method: string, path: string, status: number, errors: readonly string[]) {
    super(`${method} ${path}: HTTP ${String(status)}${errors.length > 0 ? `: ${errors.join('; ')}` : ''}`);
    this.name = 'KvHttpError';
    this.status = status;
    this.errors = errors;
  }
}

/** No answer at all: connection refused, reset, DNS, TLS. */
export class KvTransportError extends Error {
  constructor(method: string, path: string, cause: unknown) {
    super(`${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'KvTransportError';
  }
}

type KvData = Readonly<Record<string, unknown>>;

interface KvMetadata {
  readonly customMetadata: Readonly<Record<string, string>>;
  readonly currentVersion: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class KvClient {
  readonly #options: KvClientOptions;

  constructor(options: KvClientOptions) {
    this.#options = options;
  }

  /** Checks the token (Vault's `auth/token/lookup-self`); throws KvHttpError 403 for a token the server refuses. */
  async lookupSelf(): Promise<void> {
    await this.#request('GET', '/v1/auth/token/lookup-self');
  }

  /** The latest version's data; undefined when the path is absent or its latest version is deleted. */
  async readData(path: string): Promise<KvData | undefined> {
    const body = await this.#call('GET', 'data', path);
    if (body === undefined) return undefined;
    const data = isRecord(body.data) ? body.data.data : undefined;
    return isRecord(data) ? data : undefined;
  }

  async readMetadata(path: string): Promise<KvMetadata | undefined> {
    const body = await this.#call('GET', 'metadata', path);
    if (body === undefined || !isRecord(body.data)) return undefined;
    const custom = isRecord(body.data.custom_metadata) ? body.data.custom_metadata : {};
    const version = body.data.current_version;
    return {
      customMetadata: Object.fromEntries(Object.entries(custom).map(([k, v]) => [k, String(v)])),
      currentVersion: typeof version === 'number' ? version : 0,
    };
  }

  async writeMetadata(path: string, customMetadata: Readonly<Record<string, string>>): Promise<void> {
    await this.#call('POST', 'metadata', path, { custom_metadata: customMetadata });
  }

  /** Writes a new version; `cas` makes it check-and-set against the current version number. */
  async writeData(path: string, data: KvData, cas?: number): Promise<void> {
    await this.#call('POST', 'data', path, cas === undefined ? { data } : { data, options: { cas } });
  }

  /** Soft-deletes the latest version. */
  async deleteData(path: string): Promise<void> {
    await this.#call('DELETE', 'data', path);
  }

  /** Removes the path with every version and its metadata. */
  async deleteMetadata(path: string): Promise<void> {
    await this.#call('DELETE', 'metadata', path);
  }

  async #call(
    method: 'GET' | 'POST' | 'DELETE',
    endpoint: 'data' | 'metadata',
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown> | undefined> {
    return this.#request(method, `/v1/${trim(this.#options.mount)}/${endpoint}/${trim(path)}`, body);
  }

  async #request(
    method: 'GET' | 'POST' | 'DELETE',
    route: string,
    body?: unknown,
  ): Promise<Record<string, unknown> | undefined> {
    const { server, token, dispatcher, signal } = this.#options;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${server.replace(/\/+$/, '')}${route}`, {
        method,
        headers: { 'x-vault-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...defined({ dispatcher, signal }),
      });
    } catch (cause) {
      throw new KvTransportError(method, route, cause);
    }
    const text = await response.body.text();
    const parsed = parse(text);
    if (response.statusCode === 404 && method === 'GET') return undefined;
    if (response.statusCode >= 400) {
      const errors = isRecord(parsed) && Array.isArray(parsed.errors) ? parsed.errors.map(String) : [];
      throw new KvHttpError(method, route, response.statusCode, errors);
    }
    return isRecord(parsed) ? parsed : {};
  }
}

const trim = (s: string) => s.replace(/^\/+|\/+$/g, '');

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
