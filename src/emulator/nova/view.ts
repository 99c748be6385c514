/** Nova's JSON views of servers and flavors, by microversion, caller and policy switches. */
import { isAdmin, type AuthContext } from '../auth.ts';
import { isoSeconds, type JsonObject } from '../json.ts';
import { HOST, PREFIX, type NovaApi } from './api.ts';
import { atLeast, type Microversion } from './microversion.ts';
import { statusOf, type NFlavor, type NServer } from './state.ts';

interface ViewOptions {
  readonly auth: AuthContext;
  readonly mv: Microversion;
  /** List responses omit `fault`; by-id reads carry it. */
  readonly list: boolean;
}

export function serverView(api: NovaApi, server: NServer, options: ViewOptions): JsonObject {
  const { auth, mv, list } = options;
  const origin = api.ctx.origin();
  const admin = isAdmin(auth);
  const status = statusOf(server);
  const addresses: Record<string, unknown[]> = {};
  for (const nic of server.nics) {
    (addresses[nic.networkName] ??= []).push({
      version: nic.version,
      addr: nic.addr,
      'OS-EXT-IPS:type': 'fixed',
      'OS-EXT-IPS-MAC:mac_addr': nic.mac,
    });
  }
  const f = server.flavor;
  const view: JsonObject = {
    id: server.id,
    name: server.name,
    status,
    tenant_id: server.projectId,
    user_id: server.userId,
    metadata: { ...server.metadata },
    hostId: server.vmState === 'building' && server.taskState === 'scheduling' ? '' : hostID(server),
    image:
      server.imageRef === ''
        ? ''
        : { id: server.imageRef, links: [{ rel: 'bookmark', href: `${origin}/compute/images/${server.imageRef}` }] },
    flavor: atLeast(mv, 47)
      ? {
          vcpus: f.vcpus,
          ram: f.ram,
          disk: f.disk,
          ephemeral: f.ephemeral,
          swap: f.swap,
          original_name: f.name,
          extra_specs: { ...f.extraSpecs },
        }
      : { id: f.id, links: [{ rel: 'bookmark', href: `${origin}/compute/flavors/${f.id}` }] },
    created: isoSeconds(server.createdAt),
    updated: isoSeconds(server.updatedAt),
    addresses,
    accessIPv4: '',
    accessIPv6: '',
    links: [
      { rel: 'self', href: `${origin}${PREFIX}/servers/${server.id}` },
      { rel: 'bookmark', href: `${origin}/compute/servers/${server.id}` },
    ],
    'OS-DCF:diskConfig': 'MANUAL',
    'OS-EXT-AZ:availability_zone': server.vmState === 'building' ? '' : 'nova',
    config_drive: '',
    key_name: server.keyName,
    'OS-SRV-USG:launched_at': server.launchedAt === null ? null : isoMicrosNoZone(server.launchedAt),
    'OS-SRV-USG:terminated_at': null,
    'OS-EXT-STS:task_state': server.taskState,
    'OS-EXT-STS:vm_state': server.vmState,
    'OS-EXT-STS:power_state': server.powerState,
    'os-extended-volumes:volumes_attached': server.attachments.map((a) => ({
      id: a.volumeId,
      delete_on_termination: a.deleteOnTermination,
    })),
  };
  if (status === 'ACTIVE' || status === 'BUILD') view.progress = status === 'ACTIVE' ? 100 : 0;
  if (server.nics.length > 0) view.security_groups = [{ name: 'default' }];
  if (admin) {
    view['OS-EXT-SRV-ATTR:host'] = server.vmState === 'building' ? null : server.host;
    view['OS-EXT-SRV-ATTR:hypervisor_hostname'] = server.vmState === 'building' ? null : server.host;
    view['OS-EXT-SRV-ATTR:instance_name'] = `instance-${server.id.slice(0, 8)}`;
    if (atLeast(mv, 3)) view['OS-EXT-SRV-ATTR:user_data'] = server.userData;
  }
  if (atLeast(mv, 3) && (admin || atLeast(mv, 90))) view['OS-EXT-SRV-ATTR:hostname'] = server.hostname;
  if (atLeast(mv, 9)) view.locked = server.locked;
  if (atLeast(mv, 73)) view.locked_reason = null;
  if (atLeast(mv, 19)) view.description = server.description;
  if (atLeast(mv, 26)) view.tags = [...server.tags];
  if (atLeast(mv, 63)) view.trusted_image_certificates = null;
  if (atLeast(mv, 71)) view.server_groups = server.groupId === undefined ? [] : [server.groupId];
  if (atLeast(mv, 16) && admin) view.host_status = 'UP';
  if (!list && server.fault) {
    view.fault = {
      code: server.fault.code,
      created: isoSeconds(server.fault.created),
      message: server.fault.message,
      ...(admin ? { details: server.fault.details } : {}),
    };
  }
  // Operator policy switches: what a project member no longer sees (admins still do).
  if (!admin && api.state.policy.hideTaskState) delete view['OS-EXT-STS:task_state'];
  if (!admin && api.state.policy.hideLaunchedAt) delete view['OS-SRV-USG:launched_at'];
  return view;
}

/** Nova's `hostId`: a per-project hash of the host, so tenants can tell co-location without seeing host names. */
function hostID(server: NServer): string {
  let h = 0;
  for (const ch of `${server.projectId}${HOST}`) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(8, '0').repeat(7);
}

/** Nova's usage timestamps: `2026-01-01T00:00:00.000000`, without a zone. */
const isoMicrosNoZone = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000');

export function flavorView(api: NovaApi, flavor: NFlavor, mv: Microversion): JsonObject {
  const origin = api.ctx.origin();
  return {
    id: flavor.id,
    name: flavor.name,
    ram: flavor.ram,
    disk: flavor.disk,
    swap: atLeast(mv, 75) ? flavor.swap : flavor.swap === 0 ? '' : flavor.swap,
    'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral,
    'OS-FLV-DISABLED:disabled': false,
    vcpus: flavor.vcpus,
    'os-flavor-access:is_public': flavor.isPublic,
    rxtx_factor: 1.0,
    links: [
      { rel: 'self', href: `${origin}${PREFIX}/flavors/${flavor.id}` },
      { rel: 'bookmark', href: `${origin}/compute/flavors/${flavor.id}` },
    ],
    ...(atLeast(mv, 55) ? { description: flavor.description } : {}),
    ...(atLeast(mv, 61) ? { extra_specs: { ...flavor.extraSpecs } } : {}),
  };
}
