/**
 * IPv4 addresses and prefixes, as unsigned 32-bit numbers: the one place openregion does address arithmetic (a
 * region network's subnet layout, a load balancer's VIP check, the emulator's Neutron IPAM). Numbers, not bit
 * operators: JavaScript's `<<` and `&` are signed 32-bit, which turns 128.0.0.0 and above negative.
 */

/** A prefix with its host bits cleared: `10.0.0.5/24` is base 10.0.0.0, length 24. */
export interface Prefix {
  readonly base: number;
  readonly length: number;
}

/** `a.b.c.d` as a number, or undefined for anything else (four decimal octets, each at most 255). */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

export const formatIPv4 = (value: number): string =>
  [24, 16, 8, 0].map((shift) => String(Math.floor(value / 2 ** shift) % 256)).join('.');

/** `a.b.c.d/n` with its host bits cleared, as Neutron stores a CIDR; undefined without the `/n` or out of range. */
export function parsePrefix(text: string): Prefix | undefined {
  const [address = '', lengthText = '', extra] = text.split('/');
  const value = parseIPv4(address);
  if (value === undefined || extra !== undefined || !/^\d{1,2}$/.test(lengthText)) return undefined;
  const length = Number(lengthText);
  if (length > 32) return undefined;
  return { base: value - (value % 2 ** (32 - length)), length };
}

export const formatPrefix = (prefix: Prefix): string => `${formatIPv4(prefix.base)}/${String(prefix.length)}`;

/**
 * Whether `text` is a prefix written as Neutron and Kubernetes write one: its network address (no host bits set),
 * decimal octets without leading zeros. `10.0.0.5/24` and `010.000.000.000/24` are not; `10.0.0.0/24` is.
 */
export function isCanonicalPrefix(text: string): boolean {
  const prefix = parsePrefix(text);
  return prefix !== undefined && formatPrefix(prefix) === text;
}

/** How many addresses the prefix spans, network and broadcast addresses included. */
export const prefixSize = (prefix: Prefix): number => 2 ** (32 - prefix.length);

export const contains = (prefix: Prefix, address: number): boolean =>
  address >= prefix.base && address < prefix.base + prefixSize(prefix);

/** Whether the two prefixes share an address (one then contains the other). */
export const overlaps = (a: Prefix, b: Prefix): boolean =>
  a.base < b.base + prefixSize(b) && b.base < a.base + prefixSize(a);

/**
 * IPv4 space no tenant network may be numbered from (RFC 6890): "this network" 0.0.0.0/8, loopback 127.0.0.0/8,
 * link-local 169.254.0.0/16 (where the metadata service answers), multicast 224.0.0.0/4 and the reserved
 * 240.0.0.0/4, which holds the limited broadcast 255.255.255.255. Private, CGNAT and public space are fine.
 */
const UNUSABLE_PREFIXES: readonly { readonly prefix: Prefix; readonly name: string }[] = [
  { text: '0.0.0.0/8', name: '"this network"' },
  { text: '127.0.0.0/8', name: 'loopback' },
  { text: '169.254.0.0/16', name: 'link-local' },
  { text: '224.0.0.0/4', name: 'multicast' },
  { text: '240.0.0.0/4', name: 'reserved (and broadcast)' },
].map(({ text, name }) => ({ prefix: parsePrefix(text) as Prefix, name }));

/** The unusable range a prefix overlaps, by name, or undefined when it lies in usable unicast space. */
export function unusableRangeOf(prefix: Prefix): string | undefined {
  return UNUSABLE_PREFIXES.find((range) => overlaps(range.prefix, prefix))?.name;
}

/** Whether an address is a host of the prefix: inside it, and neither its network nor its broadcast address. */
export function isHostOf(prefix: Prefix, address: number): boolean {
  if (!contains(prefix, address)) return false;
  if (prefix.length >= 31) return true; // RFC 3021: a /31 has no network or broadcast address
  return address !== prefix.base && address !== prefix.base + prefixSize(prefix) - 1;
}
