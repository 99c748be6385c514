/**
 * HTTP to the API server with a KubeConfig's credentials, carrying raw JSON both ways. client-node's typed models
 * drop keys they do not know (docs/spec/client-node.md §Pitfall 4), so requests go out through node's http(s) with the
 * options `KubeConfig.applyToHTTPSOptions` fills in (token, client certificate, CA, skip-verify), re-read on every
 * request so rotating in-cluster tokens are picked up.
 */
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';

export interface RequestInit {
  readonly query?: URLSearchParams | undefined;
  /** JSON text. */
  readonly body?: string | undefined;
  readonly contentType?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

interface Response {
  readonly status: number;
  readonly body: string;
}

/** A streaming answer: either an error answer read in full, or 200 with its body split into lines. */
type StreamResponse =
  | { readonly ok: false; readonly status: number; readonly body: string }
  | { readonly ok: true; readonly lines: AsyncIterable<string>; readonly close: () => void };

export interface Transport {
  request(method: string, path: string, init?: RequestInit): Promise<Response>;
  /** A GET whose body keeps coming (a watch); `close` (or the signal) ends it. */
  stream(path: string, query: URLSearchParams, signal?: AbortSignal): Promise<StreamResponse>;
  /** Destroys the agent and with it every connection, streams in use included. */
  close(): void;
}

export interface TransportOptions {
  /** Limit for a non-streaming request, so a stuck connection fails instead of hanging a reconcile. */
  readonly requestTimeoutMs?: number;
  /** The User-Agent every request sends (the API server's audit log and metrics name the client by it). */
  readonly userAgent?: string;
}

type TlsOptions = Pick<
  https.AgentOptions,
  'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'
>;

export function kubeConfigTransport(kc: KubeConfig, options: TransportOptions = {}): Transport {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('kubeconfig: no current cluster');
  const server = cluster.server.replace(/\/+$/, '');
  const secure = server.startsWith('https:');
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const userAgent = options.userAgent ?? 'openregion';
  let agent: http.Agent | undefined;

  // One kept-alive agent per client (client-node builds a fresh agent per call); a proxying cluster keeps
  // client-node's proxy agent, which knows how to tunnel.
  async function prepare(): Promise<{ headers: http.OutgoingHttpHeaders; agent: http.Agent | undefined }> {
    const opts: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json', 'user-agent': userAgent };
    // applyToHTTPSOptions only ever sets a header record (token, exec and OIDC auth), never the array form.
    if (opts.headers !== undefined && !Array.isArray(opts.headers)) Object.assign(headers, opts.headers);
    if (opts.auth !== undefined && opts.auth !== null) {
      headers.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    }
    if (cluster?.proxyUrl !== undefined)
      return { headers, agent: typeof opts.agent === 'object' ? opts.agent : undefined };
    if (agent === undefined) {
      const tls: TlsOptions = {
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        pfx: opts.pfx,
        passphrase: opts.passphrase,
        servername: opts.servername,
        ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
      };
      agent = secure ? new https.Agent({ keepAlive: true, ...tls }) : new http.Agent({ keepAlive: true });
    }
    return { headers, agent };
  }

  async function open(
    method: string,
    path: string,
    init: RequestInit,
    timeoutMs: number | undefined,
  ): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
    const { headers, agent: requestAgent } = await prepare();
    const query = init.query?.toString() ?? '';
    const url = new URL(server + path + (query === '' ? '' : `?${query}`));
    if (init.body !== undefined) {
      headers['content-type'] = init.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(init.body);
    }
    const requestOptions: http.RequestOptions = {
      method,
      headers,
      ...(requestAgent !== undefined ? { agent: requestAgent } : {}),
      ...(init.signal !== undefined ? { signal: init.signal } : {}),
    };
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(url, requestOptions, (res) => {
        resolve({ req, res });
      });
      req.on('error', reject);
      if (timeoutMs !== undefined) {
        req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
      }
      req.end(init.body);
    });
  }

  async function readAll(res: http.IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  return {
    async request(method, path, init = {}) {
      const { res } = await open(method, path, init, requestTimeoutMs);
      return { status: res.statusCode ?? 0, body: await readAll(res) };
    },

    async stream(path, query, signal) {
      const { req, res } = await open('GET', path, { query, signal }, undefined);
      const status = res.statusCode ?? 0;
      if (status !== 200) return { ok: false, status, body: await readAll(res) };
      // No client-side inactivity limit (a watch may be quiet for long); TCP keepalive finds a dead peer.
      req.socket?.setKeepAlive(true, 30_000);
      return {
        ok: true,
        lines: createInterface({ input: res, crlfDelay: Infinity }),
        close: () => {
          res.destroy();
          req.destroy();
        },
      };
    },

    close() {
      agent?.destroy();
    },
  };
}
