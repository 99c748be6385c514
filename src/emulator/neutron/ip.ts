/** Neutron's IPAM over the shared IPv4 arithmetic: its CIDR spelling and the first free address of a pool. */
import { formatIPv4, parseIPv4, parsePrefix, prefixSize, type Prefix } from '../../util/ipv4.ts';

/** A CIDR as Neutron reads one: host bits cleared (`10.0.0.5/24` → `10.0.0.0/24`), a bare address as a /32. */
export const parseCidr = (text: string): Prefix | undefined => parsePrefix(text.includes('/') ? text : `${text}/32`);

interface Pool {
  readonly start: string;
  readonly end: string;
}

/** Neutron's default pool: every host address but the gateway (network and broadcast excluded). */
export function defaultPools(cidr: Prefix, gateway: number | undefined): Pool[] {
  const first = cidr.base + 1;
  const last = cidr.base + prefixSize(cidr) - 2;
  if (last < first) return [];
  if (gateway === undefined || gateway < first || gateway > last) {
    return [{ start: formatIPv4(first), end: formatIPv4(last) }];
  }
  const pools: Pool[] = [];
  if (gateway > first) pools.push({ start: formatIPv4(first), end: formatIPv4(gateway - 1) });
  if (gateway < last) pools.push({ start: formatIPv4(gateway + 1), end: formatIPv4(last) });
  return pools;
}

/** The lowest address of `pools` not in `used`, or undefined when the pools are exhausted. */
export function firstFree(pools: readonly Pool[], used: ReadonlySet<string>): string | undefined {
  for (const pool of pools) {
    const start = parseIPv4(pool.start);
    const end = parseIPv4(pool.end);
    if (start === undefined || end === undefined) continue;
    for (let a = start; a <= end; a++) {
      const text = formatIPv4(a);
      if (!used.has(text)) return text;
    }
  }
  return undefined;
}
