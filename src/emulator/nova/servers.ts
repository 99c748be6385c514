/**
 * Servers: create (BUILD → ACTIVE after `nova.build`, or ERROR when the scheduler finds no host or a failure was
 * injected), list with Nova's filters (the name filter is a regular expression) and `servers_links` paging, show,
 * update and delete.
 */
import { hasRole, isAdmin } from '../auth.ts';
import { novaFault } from '../faults.ts';
import { json, noContent, type EmuRequest } from '../http.ts';
import { arrayAt, isObject, objectAt, stringAt, stringMapAt, stringsOf } from '../json.ts';
import type { ImageFacts, ServerNic } from '../lookups.ts';
import { badRequest, fail, HOST, PREFIX, serverFor, touch, type NovaApi, type NovaCall } from './api.ts';
import { atLeast } from './microversion.ts';
import { statusOf, type NFlavor, type NServer } from './state.ts';
import { serverView } from './view.ts';

/** Nova's `[api] max_limit`. */
const MAX_LIMIT = 1000;
const NO_VALID_HOST = 'No valid host was found. There are not enough hosts available.';

export function registerServers(api: NovaApi): void {
  const { route } = api;
  route('POST', '/servers', (req, call) => create(api, req, call));
  route('GET', '/servers', (req, call) => {
    const { page, links } = list(api, req, call, '/servers');
    const origin = api.ctx.origin();
    const servers = page.map((s) => ({
      id: s.id,
      name: s.name,
      links: [
        { rel: 'self', href: `${origin}${PREFIX}/servers/${s.id}` },
        { rel: 'bookmark', href: `${origin}/compute/servers/${s.id}` },
      ],
    }));
    return json({ servers, ...links });
  });
  route('GET', '/servers/detail', (req, call) => {
    const { page, links } = list(api, req, call, '/servers/detail');
    return json({ servers: page.map((s) => serverView(api, s, { ...call, list: true })), ...links });
  });
  route('GET', '/servers/{server_id}', (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    return json({ server: serverView(api, server, { ...call, list: false }) });
  });
  route('PUT', '/servers/{server_id}', (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    const body = objectAt(req.body, 'server');
    const name = stringAt(body, 'name');
    if (name !== undefined) server.name = name;
    if (body && 'description' in body) server.description = stringAt(body, 'description') ?? null;
    const hostname = stringAt(body, 'hostname');
    if (hostname !== undefined) server.hostname = hostname;
    server.updatedAt = api.ctx.clock.now();
    return json({ server: serverView(api, server, { ...call, list: false }) });
  });
  route('DELETE', '/servers/{server_id}', (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    if (server.locked && !isAdmin(call.auth)) throw novaFault(409, `Instance ${server.id} is locked`);
    touch(api, server);
    server.taskState = 'deleting';
    api.later(server, 'nova.delete', {});
    return noContent();
  });
}

function create(api: NovaApi, req: EmuRequest, call: NovaCall) {
  const { state, ctx, lookups } = api;
  const { auth, mv } = call;
  const body = objectAt(req.body, 'server');
  if (!body) throw badRequest("Invalid input for field/attribute server. Value: None. None is not of type 'object'");
  const name = stringAt(body, 'name');
  if (name === undefined || name.length === 0 || name.length > 255) {
    throw badRequest("Invalid input for field/attribute name. Value: None. None is not of type 'string'");
  }
  const flavorRef = stringAt(body, 'flavorRef') ?? '';
  const flavor = state.flavors.get(flavorRef.split('/').pop() ?? '');
  if (!flavor) throw badRequest(`Flavor ${flavorRef} could not be found.`);
  const bootVolume = (arrayAt(body, 'block_device_mapping_v2') ?? []).some(
    (b) => isObject(b) && b.boot_index === 0 && (b.source_type === 'volume' || b.destination_type === 'volume'),
  );
  const imageRef = stringAt(body, 'imageRef') ?? '';
  if (imageRef === '' && !bootVolume)
    throw badRequest(
      'Block Device Mapping is Invalid: Boot sequence for the instance and image/block device mapping combination is not valid.',
    );
  if (imageRef !== '') {
    const image = lookups.images.find(auth, imageRef);
    if (!image) throw badRequest(`Image ${imageRef} could not be found.`);
    if (image.status !== 'active') throw badRequest(`Image ${imageRef} is not active.`);
    if (!bootVolume) requireImageFits(flavor, image);
  }
  const networks = body.networks;
  if (networks === undefined && atLeast(mv, 37)) {
    throw badRequest("Invalid input for field/attribute server. Value: ... 'networks' is a required property");
  }
  const keyName = stringAt(body, 'key_name') ?? null;
  if (keyName !== null && !state.keypairs.some((k) => k.userId === auth.userId && k.name === keyName)) {
    throw badRequest('Invalid key_name provided.');
  }
  const hints = objectAt(req.body, 'os:scheduler_hints');
  const groupID = stringAt(hints, 'group');
  const group = groupID === undefined ? undefined : state.groups.get(groupID);
  if (groupID !== undefined && !group) throw badRequest(`Invalid server group ${groupID}: not found.`);
  const projectID = auth.projectId ?? '';
  const destination = stringAt(body, 'hypervisor_hostname');
  // deploy/policies/nova.yaml: admin, or a manager of the project the server is created in. Any host name is taken:
  // the emulator models no hypervisor list (an Ironic cloud has one per node).
  if (destination !== undefined && !isAdmin(auth) && !hasRole(auth, 'manager'))
    throw novaFault(403, "Policy doesn't allow compute:servers:create:requested_destination to be performed.");
  quotaCheck(api, projectID, flavor);
  const metadata = stringMapAt(body, 'metadata') ?? {};
  if (
    Object.keys(metadata).length > state.quota(projectID, 'metadata_items') &&
    state.quota(projectID, 'metadata_items') >= 0
  ) {
    throw novaFault(403, 'Quota exceeded for metadata_items.');
  }
  const injected = state.takeFailure('create');
  if (injected?.mode === 'sync') throw novaFault(injected.status, injected.message);

  const now = ctx.clock.now();
  const id = ctx.newID();
  // `none` plugs nothing; so does `auto` for now, since no registered service offers auto-allocated topology.
  const nics: ServerNic[] = [];
  if (Array.isArray(networks)) {
    try {
      for (const n of networks as unknown[]) {
        nics.push(
          lookups.networks.plug(
            auth,
            {
              serverId: id,
              networkId: stringAt(n, 'uuid'),
              portId: stringAt(n, 'port'),
              fixedIp: stringAt(n, 'fixed_ip'),
            },
            (what) => badRequest(`${what} could not be found.`),
          ),
        );
      }
    } catch (error) {
      lookups.networks.unplug(id);
      throw error;
    }
  }
  const server: NServer = {
    id,
    name,
    projectId: projectID,
    userId: auth.userId,
    vmState: 'building',
    taskState: 'scheduling',
    powerState: 0,
    imageRef,
    flavor: { ...flavor, extraSpecs: { ...flavor.extraSpecs } },
    host: HOST,
    hostname: stringAt(body, 'hostname') ?? sanitizeHostname(name),
    metadata,
    tags: stringsOf(arrayAt(body, 'tags')),
    keyName,
    userData: stringAt(body, 'user_data') ?? null,
    createdAt: now,
    updatedAt: now,
    launchedAt: null,
    fault: undefined,
    locked: false,
    description: stringAt(body, 'description') ?? null,
    nics,
    attachments: [],
    groupId: group?.id,
    consoleLog: [],
    op: 0,
  };
  state.servers.set(id, server);
  group?.members.push(id);
  api.later(server, 'nova.build', {
    failure: injected ? { status: injected.status, message: injected.message } : null,
  });
  const origin = ctx.origin();
  return json(
    {
      server: {
        id,
        links: [
          { rel: 'self', href: `${origin}${PREFIX}/servers/${id}` },
          { rel: 'bookmark', href: `${origin}/compute/servers/${id}` },
        ],
        'OS-DCF:diskConfig': 'MANUAL',
        security_groups: [{ name: 'default' }],
        adminPass: ctx.newID().replaceAll('-', '').slice(0, 12),
      },
    },
    202,
  );
}

/** A build finishes: ACTIVE and booted, or ERROR when the scheduler finds no host. */
export function finishBuild(api: NovaApi, server: NServer): void {
  if (!schedulable(api, server)) {
    fail(api, server, 500, NO_VALID_HOST);
    return;
  }
  touch(api, server);
  server.vmState = 'active';
  server.taskState = null;
  server.powerState = 1;
  server.launchedAt = api.ctx.clock.now();
  server.consoleLog.push(...bootLog(server));
}

/** What Nova's scheduler would decide: custom resources and traits need Placement; anti-affinity needs hosts. */
function schedulable(api: NovaApi, server: NServer): boolean {
  const resources: Record<string, number> = {};
  const traits: Record<string, 'required' | 'forbidden'> = {};
  for (const [key, value] of Object.entries(server.flavor.extraSpecs)) {
    if (key.startsWith('resources:')) resources[key.slice(10)] = Number(value);
    if (key.startsWith('trait:') && (value === 'required' || value === 'forbidden')) traits[key.slice(6)] = value;
  }
  if (!api.lookups.placement.canHost(resources, traits)) return false;
  const group = server.groupId === undefined ? undefined : api.state.groups.get(server.groupId);
  if (group?.policy === 'anti-affinity') {
    // One compute host: a second live member has nowhere to go.
    const others = group.members.filter((m) => m !== server.id && api.state.servers.get(m)?.vmState === 'active');
    if (others.length > 0) return false;
  }
  return true;
}

/**
 * Nova's _validate_flavor_image_nostatus, for a server whose root disk comes from the flavor: the image's min_ram and
 * min_disk must fit (a 0 GB flavor disk is not checked). Create and rebuild both refuse with these 400s.
 */
export function requireImageFits(flavor: NFlavor, image: ImageFacts): void {
  if (flavor.ram < image.minRam) throw badRequest("Flavor's memory is too small for requested image.");
  const gib = 1024 ** 3;
  if (flavor.disk !== 0 && image.minDisk > flavor.disk) {
    throw badRequest(
      `Flavor's disk is smaller than the minimum size specified in image metadata. Flavor disk is ${String(flavor.disk * gib)} bytes, minimum size is ${String(image.minDisk * gib)} bytes.`,
    );
  }
}

function quotaCheck(api: NovaApi, projectID: string, flavor: NFlavor): void {
  const mine = [...api.state.servers.values()].filter((s) => s.projectId === projectID);
  const checks: ['instances' | 'cores' | 'ram', number, number][] = [
    ['instances', 1, mine.length],
    ['cores', flavor.vcpus, mine.reduce((n, s) => n + s.flavor.vcpus, 0)],
    ['ram', flavor.ram, mine.reduce((n, s) => n + s.flavor.ram, 0)],
  ];
  for (const [name, requested, used] of checks) {
    const limit = api.state.quota(projectID, name);
    if (limit >= 0 && used + requested > limit) {
      throw novaFault(
        403,
        `Quota exceeded for ${name}: Requested ${String(requested)}, but already used ${String(used)} of ${String(limit)} ${name}`,
      );
    }
  }
}

function sanitizeHostname(name: string): string {
  const host = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
  return host.length > 0 ? host : 'server';
}

function bootLog(server: NServer): string[] {
  return [
    `[    0.000000] Linux version 6.1.0-emulator (openregion emulator)`,
    `[    1.234567] cloud-init: booting ${server.hostname}`,
    `${server.hostname} login: `,
  ];
}

/**
 * Python's `re.search` on the name, case-insensitively as MariaDB's REGEXP compares; an invalid pattern matches
 * nothing (Nova's database would refuse it).
 */
function nameMatcher(pattern: string): (name: string) => boolean {
  try {
    const re = new RegExp(pattern, 'i');
    return (name) => re.test(name);
  } catch {
    return () => false;
  }
}

function list(api: NovaApi, req: EmuRequest, call: NovaCall, path: string) {
  const q = req.query;
  const admin = isAdmin(call.auth);
  const allTenants = admin && q.has('all_tenants') && !['0', 'false', 'False'].includes(q.get('all_tenants') ?? '');
  const projectFilter = q.get('project_id') ?? q.get('tenant_id');
  const name = q.get('name');
  const matchName = name === null ? undefined : nameMatcher(name);
  const status = q.get('status')?.toUpperCase();
  const image = q.get('image');
  const flavor = q.get('flavor');
  const split = (key: string) =>
    q
      .get(key)
      ?.split(',')
      .filter((t) => t.length > 0);
  const tags = split('tags');
  const tagsAny = split('tags-any');
  const notTags = split('not-tags');
  const notTagsAny = split('not-tags-any');
  const since = q.get('changes-since');
  const sinceMs = since === null ? undefined : Date.parse(since);
  if (sinceMs !== undefined && Number.isNaN(sinceMs)) throw badRequest(`Invalid filter field: changes-since.`);
  const matches = [...api.state.servers.values()]
    .filter((s) => {
      if (allTenants) {
        if (projectFilter !== null && s.projectId !== projectFilter) return false;
      } else if (s.projectId !== call.auth.projectId) {
        return false;
      }
      if (matchName && !matchName(s.name)) return false;
      if (status !== undefined && statusOf(s) !== status) return false;
      if (image !== null && s.imageRef !== image) return false;
      if (flavor !== null && s.flavor.id !== flavor) return false;
      if (tags && !tags.every((t) => s.tags.includes(t))) return false;
      if (tagsAny && !tagsAny.some((t) => s.tags.includes(t))) return false;
      if (notTags && notTags.every((t) => s.tags.includes(t))) return false;
      if (notTagsAny?.some((t) => s.tags.includes(t))) return false;
      return sinceMs === undefined || s.updatedAt >= sinceMs;
    })
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  const limit = Math.min(Number(q.get('limit') ?? MAX_LIMIT), MAX_LIMIT);
  if (!Number.isInteger(limit) || limit < 0) throw badRequest('limit must be a non-negative integer');
  const marker = q.get('marker');
  let start = 0;
  if (marker !== null) {
    const at = matches.findIndex((s) => s.id === marker);
    if (at < 0) throw badRequest(`marker [${marker}] not found`);
    start = at + 1;
  }
  const page = matches.slice(start, start + limit);
  const last = page.at(-1);
  // Nova links to a next page whenever a page is full, even when it happens to be the last.
  if (!last || page.length < limit) return { page, links: {} };
  const next = new URLSearchParams(q);
  next.set('limit', String(limit));
  next.set('marker', last.id);
  return {
    page,
    links: { servers_links: [{ rel: 'next', href: `${api.ctx.origin()}${PREFIX}${path}?${next.toString()}` }] },
  };
}
