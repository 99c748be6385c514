/**
 * Every failure as a problem document: the API's own Problems as they are, fastify's request errors (schema,
 * malformed JSON, oversized or non-JSON bodies) mapped into the catalogue, and anything else as a fixed 500 whose
 * cause only the log sees.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Problem, PROBLEM_CONTENT_TYPE, problems, violation, type FieldViolation } from './problem.ts';

function problemOf(error: unknown, bodyLimit: number): Problem {
  if (error instanceof Problem) return error;
  const e = error as Partial<FastifyError> & { validation?: unknown; validationContext?: string };
  if (Array.isArray(e.validation)) return problems.schema(e.validation.map(toViolation));
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return problems.malformedJson();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problems.schema([violation('', 'required', 'a JSON body is required')]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problems.tooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problems.unsupportedMediaType();
    default:
      break;
  }
  if (e.statusCode === 404) return problems.routeNotFound();
  if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) {
    return new Problem('bad-request', 'the request is not valid');
  }
  return problems.internal();
}

function toViolation(item: unknown): FieldViolation {
  const v = item as Partial<FieldViolation> & { instancePath?: string; keyword?: string };
  if (typeof v.pointer === 'string' && typeof v.rule === 'string') return v as FieldViolation;
  return violation(v.instancePath ?? '', v.keyword ?? 'schema', v.message ?? 'is not valid');
}

/** The `WWW-Authenticate` value of a 401 (RFC 6750; RFC 9728 adds where the resource metadata is). */
export type Challenge = (request: FastifyRequest) => string;

const bearer: Challenge = () => 'Bearer';

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  problem: Problem,
  challenge: Challenge = bearer,
): FastifyReply {
  const headers: Record<string, string> = { 'content-type': PROBLEM_CONTENT_TYPE };
  if (problem.status === 401) headers['www-authenticate'] = challenge(request);
  return reply
    .code(problem.status)
    .headers(headers)
    .send(JSON.stringify(problem.body(request.url.split('?')[0])));
}

export function errorHandler(log: Logger | undefined, bodyLimit: number, challenge: Challenge = bearer) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const problem = problemOf(error, bodyLimit);
    if (problem.status === 500) log?.error({ err: error, url: request.url }, 'request failed');
    return sendProblem(reply, request, problem, challenge);
  };
}
