/**
 * Upstream's check before an organization's image is registered: the region imports raw disk images only, so the
 * URL must serve one, which the first 512 bytes tell (a master boot record ends 0x55 0xAA). Only those bytes are
 * read (a Range request; a server that ignores it is cut off after them), so a huge image costs nothing here.
 */
import type { ReadableStreamDefaultReader, ReadableStreamReadResult } from 'node:stream/web';
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

export function imageSourceCheck(fetchImpl: typeof fetch = fetch): ImageSourceCheck {
  return async (uri, signal) => {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return 'the image URL is not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the image URL must be http or https';
    let response: Response;
    try {
      response = await fetchImpl(url, { headers: { range: `bytes=0-${String(MBR_SIZE - 1)}` }, signal });
    } catch {
      return 'the image could not be read: check the URL';
    }
    if (!response.ok) {
      await response.body?.cancel();
      return `the image could not be read: the URL answered ${String(response.status)}`;
    }
    return masterBootRecordProblem(await firstBytes(response, MBR_SIZE));
  };
}

/** At most `count` bytes of the body; the rest is never downloaded. */
async function firstBytes(response: Response, count: number): Promise<Uint8Array> {
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
