/**
 * A Session holds one credential and scope: it authenticates against Keystone (cached, single flight, renewed
 * ahead of expiry), finds endpoints in the token's catalog, and hands out clients bound to one service type.
 *
 * Scoping is in the types: a `Session<'project'>` only hands out `ServiceClient<S, 'project'>`, so a function that
 * must run inside a project says so in its signature and a domain-scoped client does not compile there.
 */
import type { Clock } from '../util/clock.ts';
import {
  authRequestBody,
  effectiveScopeKind,
  needsRenewal,
  parseTokenResponse,
  type AuthMethod,
  type ScopeKind,
  type ScopeOf,
  type Token,
} from './auth.ts';
import { selectEndpoint, serviceBaseUrl, type Interface, type ServiceType } from './catalog.ts';
import { httpError, TransportError, UnauthorizedError } from './errors.ts';
import { microversionHeaders, type MicroversionConfig } from './microversion.ts';
import { REDACTED } from './redact.ts';
import type { HttpMethod, RawResponse, Transport } from './transport.ts';
import { defined } from '../util/defined.ts';

export type QueryValue = string | number | boolean | readonly string[] | undefined;
export type Query = Readonly<Record<string, QueryValue>>;

export interface RequestSpec {
  readonly method: HttpMethod;
  /** The path template below the service's base URL, e.g. `/servers/{server_id}`; it names the request in errors and counts. */
  readonly path: string;
  readonly params?: Readonly<Record<string, string>> | undefined;
  readonly query?: Query | undefined;
  readonly body?: unknown;
  /** Defaults to application/json when there is a body. */
  readonly contentType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** An absolute URL to fetch instead of the expanded template (a pagination `next` link). */
  readonly url?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

interface ServiceResponse<T> {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: T;
  readonly requestID: string | undefined;
}

/** A client for one service under one scope. */
export interface ServiceClient<S extends ServiceType = ServiceType, K extends ScopeKind = ScopeKind> {
  readonly serviceType: S;
  readonly scope: K;
  /** The service's base URL (with its version segment), from the catalog or an override. */
  baseUrl(signal?: AbortSignal): Promise<string>;
  request<T = unknown>(spec: RequestSpec): Promise<ServiceResponse<T>>;
}

export interface SessionOptions<K extends ScopeKind> {
  /** Keystone's URL, with or without `/v3`. */
  readonly authUrl: string;
  readonly auth: AuthMethod;
  /** What to request; an application credential requests none and is scoped to its project. */
  readonly scope: K extends 'project' ? ScopeOf<'project' | 'unscoped'> : ScopeOf<K>;
  readonly transport: Transport;
  readonly clock: Clock;
  readonly interface?: Interface | undefined;
  readonly region?: string | undefined;
  /** Base URLs to use instead of the catalog's, by service type; `%(project_id)s` is filled in. */
  readonly endpointOverrides?: Partial<Record<ServiceType, string>> | undefined;
  readonly microversions?: MicroversionConfig | undefined;
}

export class Session<K extends ScopeKind = ScopeKind> {
  readonly scope: K;
  readonly #options: SessionOptions<K>;
  readonly #headers: Partial<Record<ServiceType, Record<string, string>>>;
  #token: Token | undefined;
  #pending: Promise<Token> | undefined;

  constructor(options: SessionOptions<K>) {
    this.#options = options;
    this.scope = effectiveScopeKind(options.auth, options.scope) as K;
    // Validated here, at construction, so a bad microversion fails at start-up rather than on the first request.
    this.#headers = microversionHeaders(options.microversions);
    authRequestBody(options.auth, options.scope);
  }

  /** A valid token: the cached one unless it is due for renewal; concurrent callers share one authentication. */
  async token(): Promise<Token> {
    const cached = this.#token;
    if (cached && !needsRenewal(cached, this.#options.clock.now())) return cached;
    this.#pending ??= this.#authenticate().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Forgets `token` if it is still the cached one (a 401 said it is no longer valid). */
  invalidate(token: Token): void {
    if (this.#token === token) this.#token = undefined;
  }

  client<S extends ServiceType>(serviceType: S): ServiceClient<S, K> {
    return {
      serviceType,
      scope: this.scope,
      baseUrl: async () => this.#baseUrl(serviceType, await this.token()),
      request: <T>(spec: RequestSpec) => this.#request<T>(serviceType, spec),
    };
  }

  async #authenticate(): Promise<Token> {
    const { transport, clock, auth, scope } = this.#options;
    const site = { serviceType: 'identity', method: 'POST', urlTemplate: '/auth/tokens' } as const;
    const url = `${serviceBaseUrl(this.#options.authUrl, 'identity')}/auth/tokens`;
    const response = await transport.send({
      site,
      url,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': USER_AGENT },
      body: JSON.stringify(authRequestBody(auth, scope)),
    });
    if (response.status !== 201 && response.status !== 200) {
      const failure = {
        ...site,
        status: response.status,
        requestID: requestIDOf(response.headers),
        body: response.text,
      };
      // Keystone answers a deleted application credential (or unknown user id) 404. It is a refused credential,
      // not a missing resource: callers that treat NotFound as "the thing I asked about is gone" must not see it.
      throw response.status === 404 ? new UnauthorizedError(failure) : httpError(failure);
    }
    const token = parseTokenResponse(response.headers['x-subject-token'], parseBody(response), clock.now());
    this.#token = token;
    return token;
  }

  #baseUrl(serviceType: ServiceType, token: Token): string {
    const override = this.#options.endpointOverrides?.[serviceType];
    const endpoint =
      override ??
      selectEndpoint(token.catalog, serviceType, {
        interface: this.#options.interface ?? 'public',
        region: this.#options.region,
      });
    return serviceBaseUrl(endpoint, serviceType, token.project?.id);
  }

  async #request<T>(serviceType: ServiceType, spec: RequestSpec): Promise<ServiceResponse<T>> {
    const site = { serviceType, method: spec.method, urlTemplate: spec.path };
    let token = await this.token();
    let response = await this.#send(serviceType, spec, token);
    if (response.status === 401) {
      // The token was revoked or expired early: authenticate once more, and give up if that one is refused too.
      this.invalidate(token);
      token = await this.token();
      response = await this.#send(serviceType, spec, token);
    }
    const requestID = requestIDOf(response.headers);
    if (response.status < 200 || response.status >= 300) {
      // Scrub our own token by value too: whatever its format, a service that echoes it must not leak it.
      const body = response.text.replaceAll(token.value, REDACTED);
      const error = httpError({ ...site, status: response.status, requestID, body });
      if (error instanceof UnauthorizedError) this.invalidate(token);
      throw error;
    }
    let body: T;
    try {
      body = parseBody(response) as T;
    } catch (cause) {
      throw new TransportError(site, new Error('the response body is not valid JSON', { cause }));
    }
    return { status: response.status, headers: response.headers, body, requestID };
  }

  #send(serviceType: ServiceType, spec: RequestSpec, token: Token): Promise<RawResponse> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...this.#headers[serviceType],
      ...spec.headers,
      'x-auth-token': token.value,
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
      headers['content-type'] = spec.contentType ?? 'application/json';
    }
    const url =
      spec.url ?? this.#baseUrl(serviceType, token) + expandPath(spec.path, spec.params) + queryString(spec.query);
    return this.#options.transport.send({
      site: { serviceType, method: spec.method, urlTemplate: spec.path },
      url,
      headers,
      ...defined({ body }),
      signal: spec.signal,
    });
  }
}

const USER_AGENT = 'openregion';

/** Fills `{name}` placeholders with URL-encoded values; a missing value is a programming error. */
function expandPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path ${template} needs a value for {${name}}`);
    return encodeURIComponent(value);
  });
}

/** `?a=1&b=x&b=y`: undefined values are left out and arrays repeat their key. */
function queryString(query: Query | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) search.append(key, item);
    else search.append(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function parseBody(response: RawResponse): unknown {
  if (response.text.length === 0) return undefined;
  const type = response.headers['content-type'] ?? '';
  return type.includes('json') ? JSON.parse(response.text) : response.text;
}

function requestIDOf(headers: Readonly<Record<string, string>>): string | undefined {
  return headers['x-openstack-request-id'] ?? headers['x-compute-request-id'] ?? headers['x-request-id'];
}
