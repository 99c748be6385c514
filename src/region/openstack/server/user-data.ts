/**
 * Merging managed cloud-init parts (the SSH-CA part) into the user's own user data, as one multipart/mixed MIME
 * document cloud-init reads part by part. The user's payload is kept byte for byte: a multipart document keeps its
 * parts and their headers; a single payload becomes one part typed from its first line, the way cloud-init itself
 * recognises it. Bytes are handled as latin1 strings, which map every byte to one character and back.
 *
 * Refused, with a reason safe to show the user: gzip (it cannot be combined with another part), a payload whose
 * first line names no cloud-init format, and a multipart document that does not parse.
 */
import { createHash } from 'node:crypto';

export interface UserDataPart {
  readonly contentType: string;
  /** Sets Content-Disposition's filename, which cloud-init uses to name the part. */
  readonly fileName?: string;
  readonly content: string;
}

type MergeResult =
  { readonly ok: true; readonly userData: Uint8Array } | { readonly ok: false; readonly reason: string };

interface RawPart {
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');
const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

// Longest prefixes first: '#cloud-config-archive' must not read as '#cloud-config'.
const FORMATS: readonly (readonly [string, string])[] = [
  ['## template: jinja', 'text/jinja2'],
  ['#cloud-config-archive', 'text/cloud-config-archive'],
  ['#cloud-config', 'text/cloud-config'],
  ['#cloud-boothook', 'text/cloud-boothook'],
  ['#include-once', 'text/x-include-once-url'],
  ['#include', 'text/x-include-url'],
  ['#part-handler', 'text/part-handler'],
  ['#!', 'text/x-shellscript'],
];

/** The cloud-init content type of a single (non-multipart) payload, or undefined when it names none. */
export function userDataContentType(text: string): string | undefined {
  const first = (text.split('\n', 1)[0] ?? '').trim();
  return FORMATS.find(([prefix]) => first.startsWith(prefix))?.[1];
}

export function mergeUserData(userData: Uint8Array | undefined, managed: readonly UserDataPart[]): MergeResult {
  const user = userData ?? new Uint8Array();
  if (managed.length === 0) return { ok: true, userData: new Uint8Array(user) };
  const [only] = managed;
  if (user.length === 0 && managed.length === 1 && only) return { ok: true, userData: bytesOf(only.content) };
  if (user[0] === 0x1f && user[1] === 0x8b) {
    return { ok: false, reason: 'gzip user data cannot be combined with managed cloud-init configuration' };
  }
  const parsed = userParts(latin1(user));
  if (!Array.isArray(parsed)) return { ok: false, reason: parsed.reason };
  const parts: RawPart[] = [...parsed, ...managed.map(rawPart)];
  return { ok: true, userData: bytesOf(serialise(parts)) };
}

function rawPart(part: UserDataPart): RawPart {
  const headers: [string, string][] = [['Content-Type', part.contentType]];
  if (part.fileName !== undefined) headers.push(['Content-Disposition', `attachment; filename="${part.fileName}"`]);
  return { headers, body: part.content };
}

function userParts(text: string): RawPart[] | { reason: string } {
  if (text.length === 0) return [];
  const head = parseHead(text);
  const type = head && mediaType(header(head.headers, 'content-type') ?? '');
  if (head && type?.type.startsWith('multipart/')) {
    const boundary = type.params.boundary;
    if (boundary === undefined || boundary === '') return { reason: 'multipart user data has no boundary' };
    return splitMultipart(head.body, boundary) ?? { reason: 'multipart user data does not parse' };
  }
  const contentType = userDataContentType(text);
  if (contentType === undefined) {
    return { reason: 'user data must start with a cloud-init format line (e.g. #cloud-config or #!) or be multipart' };
  }
  return [{ headers: [['Content-Type', contentType]], body: text }];
}

const HEADER_LINE = /^[!-9;-~]+:/;

/** RFC 822 headers up to the first blank line, with folded lines unfolded; undefined when the text starts otherwise. */
function parseHead(text: string): { headers: [string, string][]; body: string } | undefined {
  const bare = /^\r?\n/.exec(text); // a part with no headers at all
  if (bare !== null) return { headers: [], body: text.slice(bare[0].length) };
  const end = /\r?\n\r?\n/.exec(text);
  const block = end === null ? text : text.slice(0, end.index);
  const body = end === null ? '' : text.slice(end.index + end[0].length);
  const headers: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    const last = headers.at(-1);
    if (/^[ \t]/.test(line) && last !== undefined) last[1] += ` ${line.trim()}`;
    else if (HEADER_LINE.test(line))
      headers.push([line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]);
    else return undefined;
  }
  return { headers, body };
}

const header = (headers: readonly (readonly [string, string])[], name: string): string | undefined =>
  headers.find(([n]) => n.toLowerCase() === name)?.[1];

function mediaType(value: string): { type: string; params: Record<string, string> } {
  const [type = '', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const param of rest) {
    const at = param.indexOf('=');
    if (at < 0) continue;
    const raw = param.slice(at + 1).trim();
    params[param.slice(0, at).trim().toLowerCase()] = raw.startsWith('"') ? raw.slice(1, raw.lastIndexOf('"')) : raw;
  }
  return { type: type.trim().toLowerCase(), params };
}

/** The parts between `--boundary` lines, up to `--boundary--`; undefined when the document is not well formed. */
function splitMultipart(body: string, boundary: string): RawPart[] | undefined {
  const delimiter = `--${boundary}`;
  const lines = body.split('\n');
  const parts: RawPart[] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    const bare = line.replace(/\r$/, '').trimEnd();
    if (bare === delimiter || bare === `${delimiter}--`) {
      if (current !== undefined) {
        // The line break before a delimiter belongs to the delimiter; the split took its LF, this drops its CR.
        const part = parseHead(current.join('\n').replace(/\r$/, ''));
        if (part === undefined) return undefined;
        parts.push(part);
      }
      if (bare !== delimiter) return parts;
      current = [];
    } else if (current !== undefined) current.push(line);
  }
  return undefined;
}

function serialise(parts: readonly RawPart[]): string {
  const boundary = boundaryFor(parts);
  const sections = parts.map(
    (p) => `--${boundary}\r\n${p.headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n${p.body}\r\n`,
  );
  return `Content-Type: multipart/mixed; boundary="${boundary}"\r\nMIME-Version: 1.0\r\n\r\n${sections.join('')}--${boundary}--\r\n`;
}

/** Derived from the content, so the same inputs give the same bytes; never a string any part contains. */
function boundaryFor(parts: readonly RawPart[]): string {
  const seed = createHash('sha256');
  for (const p of parts) seed.update(JSON.stringify(p.headers)).update(p.body, 'latin1');
  const base = seed.digest('hex');
  for (let attempt = 0; ; attempt++) {
    const boundary = `openregion-${createHash('sha256').update(`${base}${attempt}`).digest('hex').slice(0, 48)}`;
    if (!parts.some((p) => p.body.includes(`--${boundary}`))) return boundary;
  }
}
