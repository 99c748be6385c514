/**
 * Where the control plane may connect on a tenant's behalf (an image URL it was given): only to the public
 * internet, unless an operator allows more (a private mirror). The address is classified by ipaddr.js, which parses
 * every spelling a URL or a resolver can produce (`0x7f000001`, `2130706433`, `127.1`, `::ffff:127.0.0.1`), and the
 * check is made where the socket is opened: the name is resolved once, every address it resolves to is checked, and
 * the connection goes to the checked address. A second lookup cannot answer differently (DNS rebinding), and each
 * redirect opens its own connection through the same check.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** The operator's allow-list: prefixes a tenant's URL may reach although they are not public (a private mirror). */
export interface DestinationPolicy {
  readonly allow: readonly string[];
}

export const PUBLIC_ONLY: DestinationPolicy = { allow: [] };

/** Parses an allow-list entry (`10.1.2.0/24`, `fd00::/8`, or one address); throws on anything else. */
export function parseAllowed(text: string): Cidr {
  const trimmed = text.trim();
  if (trimmed.includes('/')) return ipaddr.parseCIDR(trimmed);
  const address = ipaddr.parse(trimmed);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/**
 * Why a connection to `address` (an IP literal in any spelling ipaddr.js parses) is refused, or undefined when it
 * may be made: anything but public unicast (loopback, link-local and the metadata address in it, private, CGNAT,
 * multicast, broadcast, reserved, unspecified, unique-local, IPv4-mapped and the other IPv4-in-IPv6 forms) unless
 * the operator allowed it. Pure.
 */
export function destinationRefusal(address: string, policy: DestinationPolicy): string | undefined {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return `not an IP address: ${address}`;
  }
  // An IPv4-mapped IPv6 address is the IPv4 address for the allow-list; it is still refused by default.
  const plain = ipaddr.process(address);
  const allowed = policy.allow.map(parseAllowed);
  if (allowed.some((cidr) => matches(parsed, cidr) || matches(plain, cidr))) return undefined;
  const range = parsed.range();
  return range === 'unicast' ? undefined : `${parsed.toString()} is ${range}, not public`;
}

function matches(address: Address, [base, length]: Cidr): boolean {
  return address.kind() === base.kind() && address.match(base, length);
}

/** Every address a name resolves to (the system resolver by default; tests answer for names of their own). */
export type Resolve = (host: string) => Promise<readonly string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The first checked address of `hostname` (a name or a literal, bracketed for IPv6), or why there is none. */
export async function checkedAddress(
  hostname: string,
  policy: DestinationPolicy,
  resolve: Resolve = systemResolve,
): Promise<{ address: string } | { refusal: string }> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: readonly string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return { refusal: `${host} does not resolve: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  // Every address the name has must be allowed: a name that also points inside is refused outright.
  for (const address of addresses) {
    const refusal = destinationRefusal(address, policy);
    if (refusal !== undefined) return { refusal: `${host}: ${refusal}` };
  }
  const [first] = addresses;
  return first === undefined ? { refusal: `${host} has no address` } : { address: first };
}

/** Thrown (as the fetch's cause) when the policy refuses a destination; its message is for the operator's log. */
class DestinationRefused extends Error {
  override readonly name = 'DestinationRefused';
}

/**
 * An undici dispatcher whose every connection (the first and each redirect's) is made to an address the policy
 * allows, resolved once: the socket is opened to that address, the TLS name stays the URL's host.
 */
export function guardedAgent(
  policy: DestinationPolicy,
  options: { connectTimeoutMs?: number; resolve?: Resolve } = {},
): Agent {
  const connect = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
  return new Agent({
    connect: (opts, callback) => {
      checkedAddress(opts.hostname, policy, options.resolve).then(
        (checked) => {
          if ('refusal' in checked) {
            callback(new DestinationRefused(checked.refusal), null);
            return;
          }
          // Node never looks an IP literal up again; the certificate is still checked against the URL's host.
          connect({ ...opts, hostname: checked.address }, callback);
        },
        (error: unknown) => {
          callback(error instanceof Error ? error : new Error(String(error)), null);
        },
      );
    },
  });
}
