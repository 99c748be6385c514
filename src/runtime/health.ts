/**
 * Liveness, readiness and metrics as controller-runtime serves them: plain handlers (testable without a socket)
 * and a tiny node:http server for the probe port that routes /healthz, /livez, /readyz and /metrics to them.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

interface HealthCheck {
  readonly name: string;
  /** True when healthy; a string says why not. */
  readonly check: () => boolean | string;
}

interface HealthResponse {
  readonly status: 200 | 500;
  readonly body: string;
}

export interface HealthHandlers {
  healthz(): HealthResponse;
  readyz(): HealthResponse;
}

function run(checks: readonly HealthCheck[], what: string): HealthResponse {
  const lines: string[] = [];
  let ok = true;
  for (const { name, check } of checks) {
    let result: boolean | string;
    try {
      result = check();
    } catch (error) {
      result = error instanceof Error ? error.message : String(error);
    }
    if (result === true) {
      lines.push(`[+]${name} ok`);
    } else {
      ok = false;
      lines.push(`[-]${name} failed${typeof result === 'string' ? `: ${result}` : ''}`);
    }
  }
  lines.push(ok ? `${what} check passed` : `${what} check failed`);
  return { status: ok ? 200 : 500, body: lines.join('\n') + '\n' };
}

export function healthHandlers(checks: {
  readonly live: readonly HealthCheck[];
  readonly ready: readonly HealthCheck[];
}): HealthHandlers {
  return {
    healthz: () => run(checks.live, 'healthz'),
    readyz: () => run(checks.ready, 'readyz'),
  };
}

/** What the probe port answers: a status, a content type and a body. */
interface ProbeResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * The probe port's routes, as controller-runtime serves them: /healthz and /livez (liveness), /readyz, and
 * /metrics (Prometheus text) when a registry is given. Undefined for any other path; testable without a socket.
 */
export function probeRoutes(
  handlers: HealthHandlers,
  registry?: Registry,
): (path: string) => Promise<ProbeResponse> | undefined {
  const text = ({ status, body }: HealthResponse): Promise<ProbeResponse> =>
    Promise.resolve({ status, contentType: TEXT, body });
  return (path) => {
    switch (path) {
      case '/healthz':
      case '/livez':
        return text(handlers.healthz());
      case '/readyz':
        return text(handlers.readyz());
      case '/metrics':
        return registry === undefined
          ? undefined
          : registry.metrics().then((body) => ({ status: 200, contentType: registry.contentType, body }));
      default:
        return undefined;
    }
  };
}

interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves /healthz, /livez, /readyz and (given a registry) /metrics on `host:port`; port 0 picks a free one. */
export async function serveHealth(
  handlers: HealthHandlers,
  options: { host: string; port: number; metrics?: Registry },
): Promise<HealthServer> {
  const route = probeRoutes(handlers, options.metrics);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const response = route(path) ?? Promise.resolve({ status: 404, contentType: TEXT, body: 'not found\n' });
    response.then(
      ({ status, contentType, body }) => {
        res.writeHead(status, { 'content-type': contentType });
        res.end(body);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': TEXT });
        res.end(`${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}
