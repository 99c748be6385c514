/**
 * Liveness and readiness as controller-runtime's healthz serves them: plain handlers (testable without a socket)
 * and a tiny node:http server that routes /healthz and /readyz to them.
 */
import { createServer, type Server } from 'node:http';

export interface HealthCheck {
  readonly name: string;
  /** True when healthy; a string says why not. */
  readonly check: () => boolean | string;
}

export interface HealthResponse {
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

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves /healthz and /readyz (and /livez, an alias) on `host:port`; port 0 picks a free one. */
export async function serveHealth(
  handlers: HealthHandlers,
  options: { host: string; port: number },
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handler =
      path === '/healthz' || path === '/livez'
        ? () => handlers.healthz()
        : path === '/readyz'
          ? () => handlers.readyz()
          : undefined;
    const response: HealthResponse = handler === undefined ? { status: 500, body: 'not found\n' } : handler();
    res.writeHead(handler === undefined ? 404 : response.status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(response.body);
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
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}
