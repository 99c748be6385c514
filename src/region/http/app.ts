/**
 * The region REST API (fastify): upstream's v2 paths and shapes over the store, every request checked against its
 * TypeBox schema and the specification's rules, bearer-token scoping, RFC 9457 problems, and the OpenAPI 3.1 document
 * at /openapi.json generated from the same schemas. `inject()` exercises it without a socket.
 */
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { observeRequests } from './access-log.ts';
import { documentedSchema, SchemaComponents, shareErrorResponses } from './openapi.ts';
import { bearerToken, type Principal } from './auth.ts';
import { DEFAULT_BODY_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS, MAX_PARAM_LENGTH, type ApiDeps } from './context.ts';
import { errorHandler, sendProblem, type Challenge } from './errors.ts';
import { setPrincipal } from './principal.ts';
import { problems } from './problem.ts';
import { DEFAULT_ORGANIZATION_LIMITS } from './decide-limit.ts';
import { OrganizationLimiter } from './limits.ts';
import { DEFAULT_RATE_LIMITS, rateLimiter } from './rate-limit.ts';
import { Repository } from './repository.ts';
import { fileStorageRoutes } from './routes/file-storage.ts';
import { eventRoutes } from './routes/events.ts';
import { watchRoutes } from './routes/watch.ts';
import { discoveryRoutes, PROTECTED_RESOURCE_PATH, resourceOf } from './routes/discovery.ts';
import type { Api, RouteDeps } from './routes/kit.ts';
import { identityRoutes } from './routes/identity.ts';
import { loadBalancerRoutes } from './routes/load-balancer.ts';
import { networkV1Routes } from './routes/network-v1.ts';
import { networkReferenceRoutes } from './routes/network-reference.ts';
import { networkRoutes } from './routes/network.ts';
import { regionV1Routes } from './routes/region-v1.ts';
import { regionRoutes } from './routes/region.ts';
import { securityGroupV1Routes } from './routes/security-group-v1.ts';
import { securityGroupRoutes } from './routes/security-group.ts';
import { serverActionRoutes } from './routes/server-actions.ts';
import { serverV1Routes } from './routes/server-v1.ts';
import { serverRoutes } from './routes/server.ts';
import { sshCertificateAuthorityRoutes } from './routes/ssh-certificate-authority.ts';
import { volumeRoutes } from './routes/volume.ts';
import { typeboxValidatorCompiler } from './validation.ts';

/** Headers arrive well before a whole request may (Node's default is a minute). */
const HEADERS_TIMEOUT_MS = 10_000;

const API_TITLE = 'openregion region API';
const API_VERSION = '2.0.0';

/** The route groups; a capability that lands adds its group here. */
const routeGroups: readonly ((app: Api, deps: RouteDeps) => void)[] = [
  discoveryRoutes,
  identityRoutes,
  networkRoutes,
  networkReferenceRoutes,
  networkV1Routes,
  securityGroupRoutes,
  securityGroupV1Routes,
  serverRoutes,
  serverActionRoutes,
  serverV1Routes,
  loadBalancerRoutes,
  sshCertificateAuthorityRoutes,
  volumeRoutes,
  regionRoutes,
  regionV1Routes,
  fileStorageRoutes,
  eventRoutes,
  watchRoutes,
];

interface RouteEntry {
  readonly method: string;
  readonly url: string;
}

const routeTables = new WeakMap<object, RouteEntry[]>();

/** Every route the API registered (method and path), for checking the OpenAPI document covers them. */
export const routesOf = (app: Api): readonly RouteEntry[] => routeTables.get(app) ?? [];

/** Answers carry tenant data and keys: never cached, never sniffed into another type, never framed. */
function hardening(url: string): Record<string, string> {
  const always = { 'x-content-type-options': 'nosniff' };
  if (!url.startsWith('/api/')) return always;
  return {
    ...always,
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
  };
}

export async function buildApi(deps: ApiDeps): Promise<Api> {
  const bodyLimit = deps.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const requestTimeout = deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // RFC 9728 §5.1: a 401 says where to learn how to get a token.
  const challenge: Challenge = (request) =>
    `Bearer resource_metadata="${resourceOf(request, deps.protectedResource?.resource)}${PROTECTED_RESOURCE_PATH}"`;
  const app = Fastify({
    bodyLimit,
    logger: false,
    // A client trickling its headers or body cannot hold a connection: the whole request within the timeout.
    requestTimeout,
    // Node looks for overdue requests on this period (30 s by default): a tenth of the timeout.
    http: {
      headersTimeout: Math.min(requestTimeout, HEADERS_TIMEOUT_MS),
      connectionsCheckingInterval: Math.max(100, Math.floor(requestTimeout / 10)),
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The router's own refusals (a path segment too long, a malformed URL) are problem documents too.
    frameworkErrors: (error, request, reply) => {
      const problem =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? problems.uriTooLong(MAX_PARAM_LENGTH) : problems.badUrl();
      void sendProblem(reply.headers(hardening(request.url)), request, problem, challenge);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(typeboxValidatorCompiler);
  // Response schemas document; they do not filter what a handler returns.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // JSON only: a text body is refused (415) instead of reaching a handler as a string.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(errorHandler(deps.log, bodyLimit, challenge));
  app.setNotFoundHandler((request, reply) => sendProblem(reply, request, problems.routeNotFound(), challenge));

  // The document names every operation and publishes the shared schemas once (openapi.ts); each route's own
  // schema, which validates its requests, is left as written.
  const components = new SchemaComponents();
  const documented = new Map<string, object>();
  await app.register(swagger, {
    transform: ({ schema, url, route }) => ({
      schema: documented.get(`${[route.method].flat().join()} ${url}`) ?? schema,
      url,
    }),
    transformObject: (document) =>
      'openapiObject' in document ? shareErrorResponses(document.openapiObject) : document.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: API_TITLE,
        version: API_VERSION,
        description:
          'Networks, security groups, servers, load balancers, SSH certificate authorities, volumes and region ' +
          'inventory, with the paths and shapes of the upstream region service (v2). Errors are RFC 9457 problem ' +
          'documents. Routes whose capability this deployment lacks answer 501.',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Claims: organizationIds (required), projectIds (optional), sub.',
          },
        },
        schemas: components.schemas,
      },
    },
  });

  // First of the hooks, so a request refused early (rate limit, authentication) is logged and counted too.
  observeRequests(app, { log: deps.log?.child({ component: 'http' }), metrics: deps.metrics });
  // A route that takes no body never parses one that is empty, whatever content type the client names with it
  // (curl -X DELETE -H 'content-type: application/json' is fine); a route that takes one still requires it.
  app.addHook('onRequest', (request, _reply, done) => {
    const { headers } = request;
    const empty =
      headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0');
    if (empty && request.routeOptions.schema?.body === undefined) delete headers['content-type'];
    done();
  });
  app.addHook('onSend', async (request, reply) => {
    reply.headers(hardening(request.url));
  });
  const limit = rateLimiter(deps.rateLimits ?? DEFAULT_RATE_LIMITS, deps.clock);
  // The problem is sent here, and returning the reply ends the request: no (further) authentication, no handler.
  const tooMany = (request: FastifyRequest, reply: FastifyReply, waitMs: number) => {
    const seconds = Math.ceil(waitMs / 1000);
    return sendProblem(reply.header('retry-after', String(seconds)), request, problems.tooManyRequests(seconds));
  };
  app.addHook('onRequest', async (request, reply) => {
    const waitMs = limit.address(request.ip);
    return waitMs === 0 ? undefined : tooMany(request, reply, waitMs);
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/')) return undefined;
    let principal: Principal;
    try {
      principal = await deps.authenticate(request.headers.authorization);
    } catch (error) {
      // Refusals are limited too, by the credential as parsed (every spelling of one forged token is one caller).
      // No header at all is a probe or a forgotten token: the address limit alone.
      const { authorization } = request.headers;
      const waitMs = authorization === undefined ? 0 : limit.refused(bearerToken(authorization) ?? authorization);
      if (waitMs > 0) return tooMany(request, reply, waitMs);
      throw error;
    }
    setPrincipal(request, principal);
    // Keyed on who calls, once verified, not on how the header was written (docs/adr/0036-trust-boundaries.md).
    const waitMs = limit.principal(principal.subject, principal.tokenID ?? '');
    return waitMs === 0 ? undefined : tooMany(request, reply, waitMs);
  });

  const table: RouteEntry[] = [];
  routeTables.set(app, table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') table.push({ method, url: route.url });
    const { schema } = route;
    if (schema !== undefined && schema.hide !== true && route.method !== 'HEAD' && typeof route.method === 'string') {
      documented.set(`${route.method} ${route.url}`, documentedSchema(components, route.method, route.url, schema));
    }
  });
  const repository = new Repository(deps.client, deps.namespace, deps.log, deps.cachedObject);
  const limits = new OrganizationLimiter(deps.organizationLimits ?? DEFAULT_ORGANIZATION_LIMITS, repository, {
    ...(deps.organizationObjects === undefined ? {} : { cached: deps.organizationObjects, clock: deps.clock }),
    ...(deps.organizationCounts === undefined ? {} : { counts: deps.organizationCounts }),
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    ...(deps.log === undefined ? {} : { log: deps.log.child({ component: 'organization-limits' }) }),
  });
  const routeDeps: RouteDeps = { ...deps, repository, limits };
  for (const group of routeGroups) group(app, routeDeps);

  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  return app;
}
