/** IPv4 arithmetic for Neutron's IPAM: CIDRs, overlap, containment and the first free address of a pool. */

export interface Cidr {
  /** The network address as an unsigned 32-bit number. */
  readonly base: number;
  readonly prefix: number;
}

export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export const formatIpv4 = (value: number): string =>
  [24, 16, 8, 0].map((shift) => String(Math.floor(value / 2 ** shift) % 256)).join('.');

/** A CIDR with its host bits cleared (`10.0.0.5/24` → `10.0.0.0/24`, as Neutron stores it); a bare address is /32. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefixText = '32', extra] = text.split('/');
  if (extra !== undefined || !/^\d{1,2}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const value = parseIpv4(address);
  if (value === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  return { base: value - (value % size), prefix };
}

export const cidrSize = (cidr: Cidr): number => 2 ** (32 - cidr.prefix);
export const formatCidr = (cidr: Cidr): string => `${formatIpv4(cidr.base)}/${String(cidr.prefix)}`;
export const contains = (cidr: Cidr, address: number): boolean =>
  address >= cidr.base && address < cidr.base + cidrSize(cidr);
export const overlaps = (a: Cidr, b: Cidr): boolean => a.base < b.base + cidrSize(b) && b.base < a.base + cidrSize(a);

export interface Pool {
  readonly start: string;
  readonly end: string;
}

/** Neutron's default pool: every host address but the gateway (network and broadcast excluded). */
export function defaultPools(cidr: Cidr, gateway: number | undefined): Pool[] {
  const first = cidr.base + 1;
  const last = cidr.base + cidrSize(cidr) - 2;
  if (last < first) return [];
  if (gateway === undefined || gateway < first || gateway > last) {
    return [{ start: formatIpv4(first), end: formatIpv4(last) }];
  }
  const pools: Pool[] = [];
  if (gateway > first) pools.push({ start: formatIpv4(first), end: formatIpv4(gateway - 1) });
  if (gateway < last) pools.push({ start: formatIpv4(gateway + 1), end: formatIpv4(last) });
  return pools;
}

/** The lowest address of `pools` not in `used`, or undefined when the pools are exhausted. */
export function firstFree(pools: readonly Pool[], used: ReadonlySet<string>): string | undefined {
  for (const pool of pools) {
    const start = parseIpv4(pool.start);
    const end = parseIpv4(pool.end);
    if (start === undefined || end === undefined) continue;
    for (let a = start; a <= end; a++) {
      const text = formatIpv4(a);
      if (!used.has(text)) return text;
    }
  }
  return undefined;
}
