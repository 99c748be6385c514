/**
 * A Server's own Nova server (docs/adr/0034-server-identity-and-delete-blast-radius.md). The specification's lookup,
 * made safe: by exact display name in the identity's project (docs/spec/openstack-provider.md §Caveats: names are the
 * linkage), then by the linkage metadata every server this provider creates carries (`region:server_id`, or upstream's legacy
 * `serverID`), so a Nova server of the same name that another Server made is never taken for this one: two Servers of
 * one name each find, converge and delete exactly their own. A server whose display name changed behind the REST API
 * (a label edited in the store) is found through its port, whose device_id Nova sets to the server it was handed to.
 */
import * as nova from '../../../openstack/compute.ts';
import { ConsistencyError, NotFoundError } from '../../../openstack/errors.ts';
import { SystemMetadata } from '../names.ts';

/** What names a Server's Nova server: its id (the linkage) and its display name (the Nova name). */
interface ServerIdentity {
  readonly id: string;
  readonly name: string;
}

/** Nova's legacy key for the same linkage (docs/spec/upstream-region.md §Server metadata (Nova)). */
const LEGACY_SERVER_ID = 'serverID';

/** True when `server` carries `serverID` as its linkage: this provider made it for that Server. */
export function madeFor(server: Pick<nova.Server, 'metadata'>, serverID: string): boolean {
  const metadata = server.metadata as Readonly<Record<string, string | undefined>> | undefined;
  return (metadata?.[SystemMetadata.serverID] ?? metadata?.[LEGACY_SERVER_ID]) === serverID;
}

/** The one of `servers` made for `serverID`, or undefined; two are a consistency error, never a pick. */
export function ownServer<T extends Pick<nova.Server, 'id' | 'metadata'>>(
  servers: readonly T[],
  server: ServerIdentity,
): T | undefined {
  const own = servers.filter((s) => madeFor(s, server.id));
  if (own.length > 1)
    throw new ConsistencyError(
      'compute server',
      server.name,
      own.map((s) => s.id),
    );
  return own[0];
}

/**
 * The Server's Nova server, or undefined. `boundTo` is the device_id of the Server's port where the caller has it: a
 * server made for this Server but no longer under its display name is found there (one more read, only then).
 */
export async function findServer(
  compute: nova.ComputeClient,
  server: ServerIdentity,
  boundTo?: string,
): Promise<nova.Server | undefined> {
  return ownServer(await nova.serversNamed(compute, server.name), server) ?? boundServer(compute, server, boundTo);
}

/** The server the port is bound to (`boundTo`, its device_id), if it was made for this Server. */
export async function boundServer(
  compute: nova.ComputeClient,
  server: ServerIdentity,
  boundTo: string | undefined,
): Promise<nova.Server | undefined> {
  if (boundTo === undefined || boundTo === '') return undefined;
  try {
    const bound = await nova.getServer(compute, boundTo);
    return madeFor(bound, server.id) ? bound : undefined;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}
