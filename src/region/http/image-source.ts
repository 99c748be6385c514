/**
 * Upstream's check before an organization's image is registered: the region imports raw disk images only, so the
 * URL must serve one, which the first 512 bytes tell (a master boot record ends 0x55 0xAA). Only those bytes are
 * read (a Range request; a server that ignores it is cut off after them), so a huge image costs nothing here.
 */
import type { ReadableStreamDefaultReader, ReadableStreamReadResult } from 'node:stream/web';
import type { Logger } from 'pino';
import { fetch as undiciFetch, type Response as UndiciResponse } from 'undici';
import { guardedAgent, PUBLIC_ONLY, type DestinationPolicy, type Resolve } from '../../util/outbound.ts';
import { redactSecretText as redactText } from '../../util/secret-text.ts';
import type { ImageSourceCheck } from './context.ts';

export const MBR_SIZE = 512;

/** Why these first bytes are not a raw disk image, or undefined when they are (pure). */
export function masterBootRecordProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length < MBR_SIZE) return 'the image is smaller than a master boot record';
  if (bytes[510] !== 0x55 || bytes[511] !== 0xaa) {
    return 'the image has no master boot record: convert it to a raw image first';
  }
  return undefined;
}

/** The one answer a tenant gets whatever kept the URL from being read: which (refused, closed, 404) is the log's. */
export const UNREADABLE_IMAGE = 'the image could not be read from this URL';

interface ImageSourceOptions {
  /** Where the URL may lead (default: the public internet only). */
  readonly policy?: DestinationPolicy;
  /** Where the reason a URL could not be read goes: operators read it, tenants never do. */
  readonly log?: Logger | undefined;
  /** Tests only: answers for names of their own in place of the system resolver. */
  readonly resolve?: Resolve;
}

/**
 * Reads the first bytes through a dispatcher that connects only where the policy allows (docs/adr/0036-trust-
 * outbound-fetches.md): a tenant's URL cannot reach the control plane's neighbours, and cannot tell a refused
 * address, a closed port and an HTTP error apart.
 */
export function imageSourceCheck(options: ImageSourceOptions = {}): ImageSourceCheck {
  const dispatcher = guardedAgent(options.policy ?? PUBLIC_ONLY, options.resolve ? { resolve: options.resolve } : {});
  const unreadable = (uri: string, reason: string, cause?: unknown): string => {
    options.log?.warn({ url: redactText(uri), reason: redactText(reason), ...causeOf(cause) }, 'image URL not read');
    return UNREADABLE_IMAGE;
  };
  return async (uri, signal) => {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return 'the image URL is not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the image URL must be http or https';
    let response: UndiciResponse;
    try {
      response = await undiciFetch(url, {
        headers: { range: `bytes=0-${String(MBR_SIZE - 1)}` },
        signal,
        dispatcher,
        redirect: 'follow',
      });
    } catch (error) {
      return unreadable(uri, 'fetch failed', error);
    }
    if (!response.ok) {
      await response.body?.cancel();
      return unreadable(uri, `answered ${String(response.status)}`);
    }
    return masterBootRecordProblem(await firstBytes(response, MBR_SIZE));
  };
}

/** The fetch error's cause chain, where undici puts the refusal or the socket error. */
function causeOf(error: unknown): { cause?: string } {
  const messages: string[] = [];
  for (let e = error; e instanceof Error && messages.length < 4; e = e.cause) messages.push(e.message);
  return messages.length === 0 ? {} : { cause: redactText(messages.join(': ')) };
}

/** At most `count` bytes of the body; the rest is never downloaded. */
async function firstBytes(response: Pick<UndiciResponse, 'body'>, count: number): Promise<Uint8Array> {
  const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array> | undefined;
  if (reader === undefined) return new Uint8Array();
  const out = new Uint8Array(count);
  let filled = 0;
  try {
    while (filled < count) {
      const chunk: ReadableStreamReadResult<Uint8Array> = await reader.read();
      if (chunk.done) break;
      const value = chunk.value;
      const take = Math.min(value.length, count - filled);
      out.set(value.subarray(0, take), filled);
      filled += take;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return out.subarray(0, filled);
}
