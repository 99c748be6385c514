/**
 * The emulator's HTTP plumbing: a small router over node:http. Each service registers routes below its own path
 * prefix; handlers get the parsed request and return a status and JSON body, or throw an EmuFault that already
 * carries the service's own error body shape.
 */
import type { IncomingHttpHeaders } from 'node:http';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface EmuRequest {
  readonly method: Method;
  /** The path below the origin, decoded per segment into `params`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  /** JSON-parsed body, or undefined when empty. */
  readonly body: unknown;
  readonly params: Readonly<Record<string, string>>;
}

export interface EmuResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Handler = (req: EmuRequest) => EmuResponse | Promise<EmuResponse>;

/** An error answer in the shape of the service that raises it (see faults.ts for each service's shape). */
export class EmuFault extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, body: unknown, message = `HTTP ${String(status)}`, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/**
 * The answer `answer` gives, with `headers` (a microversioned service's version headers) on the response or on the
 * EmuFault it throws. `headers` is read once the answer settles, so a route may narrow it after reading the version.
 */
export async function withHeaders(
  headers: () => Readonly<Record<string, string>>,
  answer: () => EmuResponse | Promise<EmuResponse>,
): Promise<EmuResponse> {
  try {
    const response = await answer();
    return { ...response, headers: { ...headers(), ...response.headers } };
  } catch (error) {
    if (error instanceof EmuFault) {
      throw new EmuFault(error.status, error.body, error.message, { ...headers(), ...error.headers });
    }
    throw error;
  }
}

interface Route {
  readonly method: Method;
  readonly template: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly handler: Handler;
}

interface RouteMatch {
  readonly handler: Handler;
  readonly params: Record<string, string>;
  /** The route's template, e.g. `/compute/v2.1/servers/{server_id}`: what fault injection targets. */
  readonly template: string;
}

export class Router {
  readonly #routes: Route[] = [];

  /**
   * Adds a route; `template` holds `{name}` segments (one path segment each) and may end in `{name+}`, which takes
   * one or more segments (a secret's path below a KV mount).
   */
  add(method: Method, template: string, handler: Handler): this {
    const names: string[] = [];
    const source = template
      .split('/')
      .map((segment) =>
        segment.replace(/\{(\w+)(\+?)\}|[.*+?^$()|[\]\\]/g, (m, name: string | undefined, rest: string | undefined) => {
          if (name === undefined) return `\\${m}`;
          names.push(name);
          return rest === '+' ? '(.+)' : '([^/]+)';
        }),
      )
      .join('/');
    this.#routes.push({ method, template, pattern: new RegExp(`^${source}/?$`), names, handler });
    return this;
  }

  match(method: string, path: string): RouteMatch | 'method-not-allowed' | undefined {
    let pathMatched = false;
    for (const route of this.#routes) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      pathMatched = true;
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1] ?? '');
      });
      return { handler: route.handler, params, template: route.template };
    }
    return pathMatched ? 'method-not-allowed' : undefined;
  }
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): EmuResponse => ({
  status,
  body,
  headers,
});
export const noContent = (status = 204): EmuResponse => ({ status });
