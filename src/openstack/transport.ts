/**
 * One HTTP exchange with OpenStack, with retries. Knows nothing of tokens or catalogs (session.ts does).
 *
 * Connection reuse: some OpenStack deployments (uwsgi with --http-socket) close the socket after every response
 * without sending `Connection: close`. A request written to such a socket fails with a reset and no answer. For an
 * idempotent request that is harmless: it is retried. A non-idempotent request (POST, PATCH) cannot be replayed
 * safely, so it never rides a reused connection: it goes through a dispatcher without keep-alive (ADR 0002).
 */
import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';
import type { Clock, Random } from '../util/clock.ts';
import { setHttpStatus, SpanKind, withSpan, type Span } from '../util/tracing.ts';
import { ConfigError, TransportError, type RequestSite } from './errors.ts';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OutgoingRequest {
  readonly site: RequestSite;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
}

/** What every finished attempt reports, for accounting and metrics; never carries bodies or headers. */
export interface RequestEvent extends RequestSite {
  readonly status: number | 'error';
  readonly durationMs: number;
  /** 0 for the first attempt, 1 for the first retry, … */
  readonly attempt: number;
}
export type RequestObserver = (event: RequestEvent) => void;

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

const defaultRetryPolicy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 8_000 };

export interface TlsOptions {
  /** PEM bundle of CAs to trust instead of the system's. */
  readonly caFile?: string | undefined;
  /** Skip certificate verification (development clouds only). */
  readonly insecure?: boolean | undefined;
}

interface TransportOptions {
  readonly clock: Clock;
  readonly random: Random;
  readonly retry?: RetryPolicy | undefined;
  readonly tls?: TlsOptions | undefined;
  readonly timeoutMs?: number | undefined;
  readonly observer?: RequestObserver | undefined;
}

const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
// Gateways and overloaded services answer these when a retry can succeed.
const RETRYABLE_STATUS: ReadonlySet<number> = new Set([500, 502, 503, 504]);
// Failures that mean the connection broke under an idempotent request, or never opened.
const RETRYABLE_TRANSPORT = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
// Failures where the request provably never reached the server: safe to retry even for a POST.
const NEVER_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EAI_AGAIN']);

export class Transport {
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #retry: RetryPolicy;
  readonly #observer: RequestObserver | undefined;
  readonly #reusing: Dispatcher;
  readonly #fresh: Dispatcher;

  constructor(options: TransportOptions) {
    this.#clock = options.clock;
    this.#random = options.random;
    this.#retry = options.retry ?? defaultRetryPolicy;
    this.#observer = options.observer;
    const timeout = options.timeoutMs ?? 60_000;
    const connect = tlsConnectOptions(options.tls);
    const common = { headersTimeout: timeout, bodyTimeout: timeout, connect };
    this.#reusing = new Agent({ ...common, keepAliveTimeout: 4_000 });
    this.#fresh = new Agent({ ...common, pipelining: 0 });
  }

  /** One span per call (retries inside it), named by service, method and path template: never the URL or a body. */
  send(request: OutgoingRequest): Promise<RawResponse> {
    const { serviceType, method, urlTemplate } = request.site;
    return withSpan(
      `${serviceType} ${method} ${urlTemplate}`,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'openstack.service': serviceType, 'http.request.method': method, 'url.template': urlTemplate },
      },
      async (span) => {
        const response = await this.#send(request, span);
        setHttpStatus(span, response.status, true);
        return response;
      },
    );
  }

  async #send(request: OutgoingRequest, span: Span): Promise<RawResponse> {
    const idempotent = IDEMPOTENT.has(request.site.method);
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) span.setAttribute('http.request.resend_count', attempt);
      const started = this.#clock.now();
      const last = attempt + 1 >= this.#retry.maxAttempts;
      let response: RawResponse;
      try {
        response = await this.#exchange(request, idempotent ? this.#reusing : this.#fresh);
      } catch (cause) {
        this.#report(request.site, 'error', started, attempt);
        const code = errorCode(cause);
        const retryable = idempotent ? RETRYABLE_TRANSPORT.has(code) : NEVER_SENT.has(code);
        if (last || !retryable || request.signal?.aborted) throw new TransportError(request.site, cause);
        await this.#clock.sleep(this.#backoff(attempt), request.signal);
        continue;
      }
      this.#report(request.site, response.status, started, attempt);
      if (last || !idempotent || !RETRYABLE_STATUS.has(response.status)) return response;
      await this.#clock.sleep(this.#backoff(attempt, retryAfterMs(response.headers)), request.signal);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#reusing.close(), this.#fresh.close()]);
  }

  async #exchange(request: OutgoingRequest, dispatcher: Dispatcher): Promise<RawResponse> {
    const { statusCode, headers, body } = await dispatcher.request({
      origin: new URL(request.url).origin,
      path: pathOf(request.url),
      method: request.site.method,
      headers: request.headers,
      body: request.body ?? null,
      signal: request.signal ?? null,
    });
    return { status: statusCode, headers: flattenHeaders(headers), text: await body.text() };
  }

  /** Full-jitter exponential backoff, capped; a server's Retry-After is honoured up to the cap. */
  #backoff(attempt: number, retryAfter?: number): number {
    if (retryAfter !== undefined) return Math.min(this.#retry.maxDelayMs, retryAfter);
    const ceiling = Math.min(this.#retry.maxDelayMs, this.#retry.baseDelayMs * 2 ** attempt);
    return Math.round(this.#random() * ceiling);
  }

  #report(site: RequestSite, status: number | 'error', started: number, attempt: number): void {
    this.#observer?.({ ...site, status, durationMs: this.#clock.now() - started, attempt });
  }
}

function tlsConnectOptions(tls: TlsOptions | undefined): { ca?: string; rejectUnauthorized?: boolean } {
  if (!tls) return {};
  const options: { ca?: string; rejectUnauthorized?: boolean } = {};
  if (tls.insecure) options.rejectUnauthorized = false;
  if (tls.caFile) {
    try {
      options.ca = readFileSync(tls.caFile, 'utf8');
    } catch (cause) {
      throw new ConfigError('cacert', `cannot read the CA bundle ${tls.caFile}: ${(cause as Error).message}`);
    }
  }
  return options;
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function errorCode(error: unknown): string {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}

function retryAfterMs(headers: Record<string, string>): number | undefined {
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
