/**
 * Fail-fast user data checks at the API (as upstream, docs/spec/upstream-region.md §Upstream changes): the payload must
 * be something cloud-init reads, since the provider merges managed parts into it and a payload it cannot merge would
 * only fail later, on the server. The reasons are fixed text safe to show.
 */

const FORMATS = [
  '## template: jinja',
  '#cloud-config-archive',
  '#cloud-config',
  '#cloud-boothook',
  '#include-once',
  '#include',
  '#part-handler',
  '#!',
];

/** Undefined when the base64 payload is acceptable user data, else why not. */
export function userDataProblem(base64: string): string | undefined {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) return undefined;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip-compressed user data cannot be combined with managed parts';
  const text = bytes.toString('latin1');
  const first = (text.split('\n', 1)[0] ?? '').trim();
  if (FORMATS.some((prefix) => first.startsWith(prefix))) return undefined;
  if (/^content-type:\s*multipart\//im.test(text.slice(0, 4096)) || /^mime-version:/i.test(first)) {
    return /boundary=/i.test(text.slice(0, 4096)) ? undefined : 'the multipart user data names no boundary';
  }
  return 'user data must start with a cloud-init format line such as #cloud-config or #!';
}
