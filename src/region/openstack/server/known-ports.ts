/**
 * What this process last made sure of about each server's port: its id and address, the groups and pairs it was
 * converged to, and its floating IP. A pass whose spec still asks for exactly that skips re-finding the port and
 * its floating IPs by name, and checks the memory against the one server read it makes anyway: the address must
 * still be on the server's network. Anything else (a different spec, a failed pass, a delete, a restart, a server
 * not found or not showing the address) forgets it, and the pass re-finds everything by name (ADR 0027).
 *
 * Held per region client set, so a region whose configuration or credentials change starts afresh. Nothing of it
 * is persisted: OpenStack stays the truth, re-found by deterministic names.
 */
import type { ServerAddress } from '../../../openstack/compute.ts';
import type { ServerInput } from '../../provider/inputs.ts';
import { networkName } from '../names.ts';
import type { UserIdentity } from '../realised.ts';
import { addressPairs } from './port.ts';

export interface KnownPort {
  readonly portID: string;
  readonly privateIP: string | undefined;
  readonly publicIP: string | undefined;
  /** The spec the port and its floating IP were converged for (portSpecOf). */
  readonly spec: string;
}

const held = new WeakMap<object, Map<string, KnownPort>>();

/** The known ports of one region client set, by identity project and server id. */
export class KnownPorts {
  readonly #ports: Map<string, KnownPort>;

  constructor(clients: object) {
    let ports = held.get(clients);
    if (ports === undefined) {
      ports = new Map();
      held.set(clients, ports);
    }
    this.#ports = ports;
  }

  /** The port as last converged, taken out: a pass puts it back only once it has succeeded. */
  take(identity: UserIdentity, server: ServerInput): KnownPort | undefined {
    const key = keyOf(identity, server);
    const known = this.#ports.get(key);
    this.#ports.delete(key);
    return known?.spec === portSpecOf(server) ? known : undefined;
  }

  remember(identity: UserIdentity, server: ServerInput, port: Omit<KnownPort, 'spec'>): void {
    this.#ports.set(keyOf(identity, server), { ...port, spec: portSpecOf(server) });
  }

  forget(identity: UserIdentity, server: ServerInput): void {
    this.#ports.delete(keyOf(identity, server));
  }
}

const keyOf = (identity: UserIdentity, server: ServerInput): string => `${identity.projectID}/${server.id}`;

/** What the port and its floating IP are converged from: the network, the groups, the pairs, a public IP or not. */
const portSpecOf = (server: ServerInput): string =>
  JSON.stringify([server.networkID, [...server.securityGroupIDs].sort(), addressPairs(server), server.publicIP]);

/** Whether Nova shows `address` as a fixed address of the server on its network: the port is still attached. */
export function attachedAt(
  addresses: Readonly<Record<string, readonly ServerAddress[]>> | undefined,
  networkID: string,
  address: string | undefined,
): boolean {
  if (address === undefined) return false;
  return (addresses?.[networkName(networkID)] ?? []).some((a) => a.addr === address);
}
