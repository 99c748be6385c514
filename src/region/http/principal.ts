/** The principal an onRequest hook authenticated, held beside the request rather than on it. */
import type { FastifyRequest } from 'fastify';
import type { Principal } from './auth.ts';
import { problems } from './problem.ts';

const principals = new WeakMap<FastifyRequest, Principal>();

export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (principal === undefined) throw problems.unauthorized();
  return principal;
}

/** A repeatable query value as a list. */
export function listOf(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return (typeof value === 'string' ? [value] : [...value]).flatMap((v) => v.split(',')).filter((v) => v !== '');
}
