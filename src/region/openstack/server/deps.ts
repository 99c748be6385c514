/**
 * What the server provider calls share: the region's clients and configuration, the injected clock and logger, and the
 * identity a call runs as. Servers, ports and floating IPs are the identity's own (its user, scoped to its project,
 * docs/spec/upstream-region.md §Trust / scoping); the privileged client (region credentials bound to that project) is
 * used only for what needs the manager's powers there: pinned creation, the Placement preflight and the Ironic lookup.
 */
import type { Logger } from 'pino';
import type { RegionOpenstack } from '../../apis/region.ts';
import type { Clock } from '../../../util/clock.ts';
import type { IdentityClient, RegionClientSet } from '../principals.ts';
import type { UserIdentity } from '../realised.ts';

export interface ServerDeps {
  readonly clients: RegionClientSet;
  /** `Region.spec.openstack`. */
  readonly config: RegionOpenstack;
  readonly clock: Clock;
  readonly log: Logger;
  /** Told each decision-table row a call took (the image rows, the rebuild answer): for a counter. */
  readonly observeRow: (row: string) => void;
  readonly signal: AbortSignal;
}

/** The identity's own client for `service`, in its project. */
export function identityClient<S extends 'compute' | 'network'>(
  deps: Pick<ServerDeps, 'clients'>,
  identity: UserIdentity,
  service: S,
): IdentityClient<S> {
  return deps.clients.identity(identity.credentials).client(service);
}

/** Whether region configuration marks the flavor baremetal (Ironic is then consulted during BUILD). */
export function baremetalFlavor(config: RegionOpenstack, flavorID: string): boolean {
  return config.compute?.flavors?.metadata?.some((m) => m.id === flavorID && m.baremetal === true) ?? false;
}
