/**
 * An in-process HTTP fake of OpenStack for the client's unit tests: Keystone's token endpoint with a catalog
 * pointing back at itself, plus whatever routes a test adds. It records every request. Test-only: the emulator
 * (a separate program) is the faithful stand-in; this fake only answers what each test scripts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CatalogEntry } from '../auth.ts';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
  json(): unknown;
}

interface FakeReply {
  readonly status?: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

type Handler = (req: RecordedRequest, params: Record<string, string>) => FakeReply | Promise<FakeReply>;

/** Where each service lives on the fake, below its origin. */
export const fakeServicePaths = {
  identity: '/identity/v3',
  compute: '/compute/v2.1',
  image: '/image',
  network: '/network',
  'block-storage': '/volume/v3/p-1',
  'load-balancer': '/load-balancer',
  placement: '/placement',
  baremetal: '/baremetal',
} as const;

interface TokenIssue {
  /** Lifetime of issued tokens in ms, measured on `now()`. */
  lifetimeMs: number;
  now: () => number;
}

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: string[];
  readonly handler: Handler;
}

export class FakeCloud {
  readonly requests: RecordedRequest[] = [];
  readonly authRequests: RecordedRequest[] = [];
  readonly issuedTokens: string[] = [];
  readonly tokens: TokenIssue = { lifetimeMs: 3_600_000, now: () => Date.now() };
  /** Reply to the next `n` token requests with this instead of a token. */
  authFailures: FakeReply[] = [];
  /** Hold token requests until this resolves (to test single flight). */
  authGate: Promise<void> | undefined;
  /** How the n-th issued token looks; Fernet-like by default. */
  tokenFormat: ((n: number) => string) | undefined;
  #routes: Route[] = [];
  #server: Server;
  url = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      void this.#handle(req).then(({ status = 200, body, headers = {} }) => {
        const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
        const type = typeof body === 'string' ? 'text/plain' : 'application/json';
        res.writeHead(status, { 'content-type': type, 'x-openstack-request-id': 'req-fake', ...headers });
        res.end(text);
      });
    });
  }

  static async start(): Promise<FakeCloud> {
    const cloud = new FakeCloud();
    await new Promise<void>((resolve) => cloud.#server.listen(0, '127.0.0.1', resolve));
    cloud.url = `http://127.0.0.1:${String((cloud.#server.address() as AddressInfo).port)}`;
    return cloud;
  }

  get authUrl(): string {
    return `${this.url}${fakeServicePaths.identity}`;
  }

  /** Adds a route; `path` is below the origin and may hold `:name` segments. Later routes win. */
  on(method: string, path: string, handler: Handler | FakeReply): this {
    const names: string[] = [];
    const source = path.replace(/[.]/g, '\\.').replace(/:(\w+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const fn: Handler = typeof handler === 'function' ? handler : () => handler;
    this.#routes.unshift({ method, pattern: new RegExp(`^${source}$`), names, handler: fn });
    return this;
  }

  /** The last request that matched `method` and `path` (all when omitted); throws when there is none. */
  last(method?: string, path?: string): RecordedRequest {
    const found = this.requests.findLast((r) => (method ?? r.method) === r.method && (path ?? r.path) === r.path);
    if (!found) throw new Error(`no ${method ?? ''} ${path ?? ''} request was recorded`);
    return found;
  }

  catalog(): CatalogEntry[] {
    const types: [string, string][] = Object.entries(fakeServicePaths).map(([t, p]) => [
      t === 'block-storage' ? 'volumev3' : t,
      p,
    ]);
    return types.map(([type, path]) => ({
      type,
      endpoints: ['public', 'internal'].map((iface) => ({
        interface: iface,
        region_id: 'RegionOne',
        region: 'RegionOne',
        url: `${this.url}${path}`,
      })),
    }));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }

  async #handle(req: IncomingMessage): Promise<FakeReply> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: () => JSON.parse(body) as unknown,
    };
    if (recorded.method === 'POST' && url.pathname === `${fakeServicePaths.identity}/auth/tokens`) {
      this.authRequests.push(recorded);
      return this.#issueToken(recorded);
    }
    this.requests.push(recorded);
    for (const route of this.#routes) {
      if (route.method !== recorded.method) continue;
      const match = route.pattern.exec(url.pathname);
      if (!match) continue;
      const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? '')]));
      return route.handler(recorded, params);
    }
    return {
      status: 404,
      body: { itemNotFound: { code: 404, message: `no fake route for ${recorded.method} ${url.pathname}` } },
    };
  }

  async #issueToken(req: RecordedRequest): Promise<FakeReply> {
    await this.authGate;
    const failure = this.authFailures.shift();
    if (failure) return failure;
    const n = this.issuedTokens.length + 1;
    const value = this.tokenFormat?.(n) ?? `gAAAAAfake-token-${String(n).padStart(24, '0')}`;
    this.issuedTokens.push(value);
    const now = this.tokens.now();
    const scope = (req.json() as { auth: { scope?: { project?: unknown; domain?: unknown } } }).auth.scope ?? {};
    return {
      status: 201,
      headers: { 'x-subject-token': value },
      body: {
        token: {
          issued_at: new Date(now).toISOString(),
          expires_at: new Date(now + this.tokens.lifetimeMs).toISOString(),
          user: { id: 'u-1', name: 'admin', domain: { id: 'default', name: 'Default' } },
          ...(scope.project
            ? { project: { id: 'p-1', name: 'demo', domain: { id: 'default', name: 'Default' } } }
            : {}),
          ...(scope.domain ? { domain: { id: 'd-1', name: 'managed' } } : {}),
          roles: [{ id: 'r-1', name: 'member' }],
          catalog: this.catalog(),
        },
      },
    };
  }
}
