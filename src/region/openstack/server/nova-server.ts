/**
 * What the server decisions read from one Nova server response, and nothing else. Each reader answers one question
 * docs/spec/openstack-provider.md §Image rebuild asks of a fresh GetServer; the decision tables compose them.
 *
 * `OS-EXT-STS:task_state` and `OS-SRV-USG:launched_at` are policy-gated: a cloud that hides them sends neither, and a
 * hidden field reads exactly as Go's decoder reads it upstream, "at rest" and "never launched".
 * docs/spec/openstack-provider.md §Policy-gated fields names the consequence (a hidden task state leaves Nova's 409 as
 * the only guard; a hidden launched_at defers every image change and never parks R3′), so `hiddenServerFields` lets the
 * caller log it instead of guessing.
 */

/** The fields of a Nova server (`openstack/compute.ts` `Server`) the decisions read; a full Server fits. */
export interface NovaServerState {
  readonly status: string;
  readonly 'OS-EXT-STS:task_state'?: string | null;
  readonly 'OS-SRV-USG:launched_at'?: string | null;
  /** `{ id, links }`, `""` for a volume-booted server; typed loosely because a broken response is exactly the case R2 exists for. */
  readonly image?: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The image Nova reports the server on, lower-cased, or undefined when the ref is absent, empty or not a Glance image
 * id (a UUID). Every server this provider creates is image-booted, so undefined is abnormal (R2,
 * docs/spec/openstack-provider.md §Image rebuild).
 */
export function openstackServerImageID(server: Pick<NovaServerState, 'image'>): string | undefined {
  const image = server.image;
  if (typeof image !== 'object' || image === null || !('id' in image)) return undefined;
  const id = image.id;
  return typeof id === 'string' && UUID.test(id) ? id.toLowerCase() : undefined;
}

/** True when the spec's image id names the image Nova reports (Glance ids compare case-insensitively). */
export function sameImage(desiredImageID: string, ref: string): boolean {
  return desiredImageID.toLowerCase() === ref;
}

const taskState = (server: NovaServerState): string => server['OS-EXT-STS:task_state'] ?? '';

/**
 * A rebuild is running: Nova's rebuild_states family (rebuilding, rebuild_block_device_mapping, rebuild_spawning,
 * matched by prefix so a substate a newer Nova adds still reads as in flight) or the REBUILD status projected from
 * it. An unrelated task such as a user's reboot is not a rebuild.
 */
export function serverRebuildInFlight(server: NovaServerState): boolean {
  return server.status === 'REBUILD' || taskState(server).startsWith('rebuild');
}

/** Any task holds the server, so Nova would refuse a rebuild with a 409 (check_instance_state). */
export function serverTaskActive(server: NovaServerState): boolean {
  return taskState(server) !== '' || serverRebuildInFlight(server);
}

/** The server has booted at least once: Nova's launched_at, read fresh, never the monitor's latch. */
export function serverLaunched(server: Pick<NovaServerState, 'OS-SRV-USG:launched_at'>): boolean {
  const at = server['OS-SRV-USG:launched_at'];
  return typeof at === 'string' && at !== '';
}

type HiddenServerField = 'OS-EXT-STS:task_state' | 'OS-SRV-USG:launched_at';

/** The policy-gated fields absent from this response (not null: absent), for an operator warning. */
export function hiddenServerFields(server: NovaServerState): HiddenServerField[] {
  const fields: HiddenServerField[] = ['OS-EXT-STS:task_state', 'OS-SRV-USG:launched_at'];
  return fields.filter((field) => !(field in server));
}
