/**
 * Ironic (microversion 1.11, pinned by the session): the node behind a baremetal server, so a Nova BUILD can be
 * told apart as Queued (waiting on hardware) or Building (deploying). Lookups go by instance UUID through the
 * node list: a project-scoped credential can list nodes but gets 404 on node detail.
 */
import { ConsistencyError } from './errors.ts';
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import { commaJoined, joined, toQuery, type QueryKeys } from './request.ts';
import type { ServiceClient } from './session.ts';

export type BaremetalClient = ServiceClient<'baremetal'>;

export interface Node {
  readonly uuid: string;
  readonly name: string | null;
  /**
   * `enroll`, `manageable`, `available`, `cleaning`, `clean wait`, `inspecting`, `deploying`, `wait call-back`,
   * `active`, `deploy failed`, `error`, … A string: the phase table in the provider maps the states it knows.
   */
  readonly provision_state: string;
  /** `power on`, `power off`, `rebooting`, … or null when unknown. */
  readonly power_state: string | null;
  readonly maintenance: boolean;
  readonly instance_uuid: string | null;
  /** The state a transition is heading for; null when none is in progress. Not in the plain list unless asked for. */
  readonly target_provision_state?: string | null;
  readonly last_error?: string | null;
  readonly driver?: string;
  /** API 1.21+: absent at the pinned 1.11 unless the session's pin is raised. */
  readonly resource_class?: string | null;
  /** API 1.37+: absent at the pinned 1.11 unless the session's pin is raised. */
  readonly traits?: readonly string[];
}

/** The fields node lookups ask for: everything the phase mapping and operator logs use that 1.11 can return. */
export const NODE_FIELDS: readonly string[] = [
  'uuid',
  'name',
  'instance_uuid',
  'provision_state',
  'target_provision_state',
  'power_state',
  'maintenance',
  'last_error',
  'driver',
];

interface NodeFilter {
  readonly instanceUuid?: string | undefined;
  /**
   * The fields to return (1.8+). The result type assumes at least the plain list's fields (uuid, name,
   * instance_uuid, provision_state, power_state, maintenance); ask for those when choosing fields.
   */
  readonly fields?: readonly string[] | undefined;
}

// Ironic takes `fields` as one comma-separated parameter, not a repeated one.
const nodeKeys: QueryKeys<NodeFilter> = { instanceUuid: 'instance_uuid', fields: commaJoined('fields') };

/** Nodes, following Ironic's absolute `next` URL across pages. */
export function listNodes(ironic: BaremetalClient, filter: NodeFilter = {}, options?: ListOptions): Promise<Node[]> {
  return listAll<Node>(
    ironic,
    {
      method: 'GET',
      path: '/nodes',
      query: toQuery(filter, nodeKeys),
    },
    pageStyleFor('baremetal', 'nodes'),
    options,
  );
}

/**
 * The node a Nova server (by its UUID) is deployed on, or undefined when Ironic has none (not yet scheduled, or
 * not a baremetal server). Two nodes claiming one instance is a consistency error.
 */
export async function getNodeByInstanceUuid(ironic: BaremetalClient, instanceUuid: string): Promise<Node | undefined> {
  const nodes = await listNodes(ironic, { instanceUuid, fields: NODE_FIELDS });
  // Ironic filters exactly, but a node reported for another instance must not be taken for this one.
  const matching = nodes.filter((n) => n.instance_uuid === instanceUuid);
  if (matching.length > 1) {
    throw new ConsistencyError(
      'baremetal node',
      instanceUuid,
      matching.map((n) => n.uuid),
    );
  }
  return matching[0];
}

/** One node by UUID or name. Needs node-detail visibility, which project-scoped credentials usually lack. */
export async function getNode(ironic: BaremetalClient, nodeIdent: string, fields?: readonly string[]): Promise<Node> {
  const { body } = await ironic.request<Node>({
    method: 'GET',
    path: '/nodes/{node_ident}',
    params: { node_ident: nodeIdent },
    query: { fields: joined(fields) },
  });
  return body;
}
