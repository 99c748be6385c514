/**
 * What a client discovers before it calls anything: the build it talks to (`/api/version`, behind a token as
 * upstream has it) and, without a token, where tokens come from (RFC 9728 protected resource metadata at
 * `/.well-known/openid-protected-resource`, which a 401's `WWW-Authenticate` points at).
 */
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { principalOf } from '../principal.ts';
import { doc, type Api, type RouteDeps } from './kit.ts';

export const PROTECTED_RESOURCE_PATH = '/.well-known/openid-protected-resource';

/** Upstream's name for a build that carries no release version. */
export const DEVELOPER_VERSION = '0.0.0';
export const SERVICE_NAME = 'openregion-region';

const ServiceVersion = Type.Object({
  name: Type.String({ description: 'The service application name.' }),
  version: Type.String({ description: 'The release version; developer builds report 0.0.0.' }),
});

const ProtectedResource = Type.Object({
  resource: Type.String({ description: "The protected resource's scheme and host." }),
  authorization_servers: Type.Array(Type.String(), { description: 'Issuers that grant tokens for this API.' }),
  scopes_supported: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.Enum(['header', 'body', 'query'])),
});

/**
 * This API's own URL: configured (`serve --public-url`, `up`'s bound address), else the address its server is bound
 * to. Never the request's Host header: a 401's challenge and the metadata document (cached publicly) would carry
 * whatever a client wrote there to everyone behind the same cache.
 */
export function resourceOf(request: FastifyRequest, configured: string | undefined): string {
  if (configured !== undefined) return configured.replace(/\/+$/, '');
  const address = request.server.server.address();
  if (address === null || typeof address === 'string') return 'http://localhost';
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${String(address.port)}`;
}

export function discoveryRoutes(app: Api, deps: RouteDeps): void {
  app.get(
    '/api/version',
    { schema: doc('Version', 'Get the deployed service version', {}, { 200: ServiceVersion }) },
    (request) => {
      principalOf(request);
      return { name: SERVICE_NAME, version: deps.service?.version ?? DEVELOPER_VERSION };
    },
  );

  app.get(
    PROTECTED_RESOURCE_PATH,
    {
      schema: {
        tags: ['Discovery'],
        summary: 'RFC 9728 protected resource metadata: the authorization servers that issue tokens for this API',
        response: { 200: ProtectedResource },
      },
    },
    (request, reply) => {
      const issuer = deps.protectedResource?.issuer;
      void reply.header('cache-control', 'max-age=3600, public');
      return {
        resource: resourceOf(request, deps.protectedResource?.resource),
        authorization_servers: issuer === undefined ? [] : [issuer],
        scopes_supported: ['openid', 'email', 'profile'],
        bearer_methods_supported: ['header' as const],
      };
    },
  );
}
