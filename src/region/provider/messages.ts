/**
 * The two audiences of a provider failure, kept apart by construction: `toUserMessage` returns only fixed text
 * from the catalogue (tenant-facing: API responses, condition messages); `toOperatorLog` returns the whole cause
 * chain with OpenStack's status, request id and redacted body (operator logs only).
 */
import { OpenStackError, OpenStackHttpError } from '../../openstack/errors.ts';
import { redactText } from '../../openstack/redact.ts';
import { ProviderError } from './errors.ts';
import type { Park, Terminal } from './outcome.ts';
import { defined } from '../../util/defined.ts';

export const INTERNAL_ERROR_MESSAGE = 'internal error in the cloud provider';

/** The tenant-safe message for a thrown error or a park/terminal outcome; anything unknown gets a fixed text. */
export function toUserMessage(failure: unknown): string {
  if (failure instanceof ProviderError) return failure.userMessage;
  if (isParkOrTerminal(failure)) return failure.message;
  return INTERNAL_ERROR_MESSAGE;
}

interface OperatorLogLink {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly status?: number;
  readonly requestID?: string;
  readonly request?: string;
  readonly body?: string;
}

interface OperatorLog {
  /** The provider error code, or the outcome kind for a park/terminal. */
  readonly code: string;
  readonly reason?: string;
  readonly resource?: string;
  /** The failure itself first, then each `cause` in turn. */
  readonly chain: readonly OperatorLogLink[];
}

// Causes are not expected to nest deeply or cyclically; the bound keeps a pathological chain from flooding a log.
const MAX_CHAIN = 8;

export function toOperatorLog(failure: unknown): OperatorLog {
  if (isParkOrTerminal(failure)) {
    return { code: failure.kind, reason: failure.reason, chain: chainOf(failure.cause) };
  }
  const code = failure instanceof ProviderError ? failure.code : 'PROVIDER_INTERNAL';
  const resource = failure instanceof ProviderError ? failure.resource : undefined;
  return { code, ...defined({ resource }), chain: chainOf(failure) };
}

/**
 * The operator detail on one line, for a Warning Event on the object (seen by whoever may read Events, never by a
 * tenant through the API): the reason or code, then each link of the redacted cause chain.
 */
export function operatorSummary(failure: unknown): string {
  const log = toOperatorLog(failure);
  // An HTTP link's message already names the request, its status and request id.
  return [log.reason ?? log.code, ...log.chain.map((link) => link.message)].join(' <- ');
}

function chainOf(first: unknown): OperatorLogLink[] {
  const links: OperatorLogLink[] = [];
  const seen = new Set<unknown>();
  for (let e = first; e !== undefined && !seen.has(e) && links.length < MAX_CHAIN; e = causeOf(e)) {
    seen.add(e);
    links.push(linkOf(e));
  }
  return links;
}

function linkOf(e: unknown): OperatorLogLink {
  if (!(e instanceof Error)) return { name: typeof e, message: redactText(String(e)) };
  const base = { name: e.name, message: redactText(e.message) };
  if (e instanceof OpenStackHttpError) {
    return {
      ...base,
      code: e.code,
      status: e.status,
      ...defined({ requestID: e.requestID }),
      request: `${e.method} ${e.serviceType}${e.urlTemplate}`,
      body: e.body,
    };
  }
  if (e instanceof OpenStackError || e instanceof ProviderError) return { ...base, code: e.code };
  return base;
}

function causeOf(e: unknown): unknown {
  return e instanceof Error ? e.cause : undefined;
}

function isParkOrTerminal(x: unknown): x is Park | Terminal {
  if (typeof x !== 'object' || x === null || !('kind' in x)) return false;
  return (x.kind === 'park' || x.kind === 'terminal') && 'message' in x && typeof x.message === 'string';
}
