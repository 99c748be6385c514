/**
 * Server actions: rebuild (compare-and-swap on the task state; the new image ref and `rebuilding` committed
 * together before the 202), reboot, stop, start, createImage, console output, the admin's reset-state, and remote
 * consoles.
 */
import { isAdmin } from '../auth.ts';
import { novaFault } from '../faults.ts';
import { json, noContent, type EmuRequest } from '../http.ts';
import { isObject, numberAt, objectAt, stringAt, stringMapAt } from '../json.ts';
import { badRequest, conflict, PREFIX, serverFor, touch, type NovaApi, type NovaCall } from './api.ts';
import { atLeast } from './microversion.ts';
import { requireImageFits } from './servers.ts';
import type { NServer } from './state.ts';
import { serverView } from './view.ts';

/** Nova's check_instance_state: the action runs only from these vm_states, and only with no task running. */
function requireState(server: NServer, action: string, vmStates: readonly NServer['vmState'][]): void {
  if (server.taskState !== null) {
    throw conflict(`Cannot '${action}' instance ${server.id} while it is in task_state ${server.taskState}`);
  }
  if (!vmStates.includes(server.vmState)) {
    throw conflict(`Cannot '${action}' instance ${server.id} while it is in vm_state ${server.vmState}`);
  }
}

function requireUnlocked(server: NServer, call: NovaCall): void {
  if (server.locked && !isAdmin(call.auth)) throw novaFault(409, `Instance ${server.id} is locked`);
}

/** Whether the flavor puts the server on an Ironic node (custom resource class, no VCPU). */
const isBaremetal = (server: NServer): boolean =>
  Object.keys(server.flavor.extraSpecs).some((k) => k.startsWith('resources:CUSTOM_')) &&
  server.flavor.extraSpecs['resources:VCPU'] === '0';

export function registerActions(api: NovaApi): void {
  api.route('POST', '/servers/{server_id}/action', (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    if (!isObject(req.body)) throw badRequest('Malformed request body');
    const [action] = Object.keys(req.body);
    switch (action) {
      case 'rebuild':
        return rebuild(api, server, req, call);
      case 'reboot':
        return reboot(api, server, req, call);
      case 'os-stop':
        requireUnlocked(server, call);
        requireState(server, 'stop', ['active', 'error']);
        return powerChange(api, server, 'powering-off', 'stopped', 4);
      case 'os-start':
        requireUnlocked(server, call);
        requireState(server, 'start', ['stopped']);
        return powerChange(api, server, 'powering-on', 'active', 1);
      case 'createImage':
        return createImage(api, server, req, call);
      case 'os-getConsoleOutput':
        return consoleOutput(server, req);
      case 'os-resetState':
        return resetState(api, server, req, call);
      default:
        throw badRequest(`There is no such action: ${action ?? ''}`);
    }
  });

  api.route('POST', '/servers/{server_id}/remote-consoles', (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    const wanted = objectAt(req.body, 'remote_console');
    const protocol = stringAt(wanted, 'protocol') ?? 'vnc';
    const type = stringAt(wanted, 'type') ?? 'novnc';
    if (!api.ctx.config.novaConsoles || protocol !== 'vnc' || type !== 'novnc') {
      throw badRequest(`Unavailable console type ${type}.`);
    }
    if (server.vmState !== 'active') throw conflict(`Instance ${server.id} is not ready`);
    const token = api.ctx.newID();
    return json({
      remote_console: { protocol, type, url: `${api.ctx.origin()}/vnc_auto.html?path=%3Ftoken%3D${token}` },
    });
  });
}

/** The admin's reset-state: the vm_state it names (active or error), no task, nothing else touched. */
function resetState(api: NovaApi, server: NServer, req: EmuRequest, call: NovaCall) {
  if (!isAdmin(call.auth)) {
    throw novaFault(403, "Policy doesn't allow os_compute_api:os-admin-actions:reset_state to be performed.");
  }
  const state = stringAt(objectAt(req.body, 'os-resetState'), 'state');
  if (state !== 'active' && state !== 'error') {
    throw badRequest(
      'Invalid input for field/attribute state. Value: ' +
        String(state) +
        ". 'state' must be one of ['active', 'error']",
    );
  }
  touch(api, server);
  server.vmState = state;
  server.taskState = null;
  return noContent(202);
}

function rebuild(api: NovaApi, server: NServer, req: EmuRequest, call: NovaCall) {
  const body = objectAt(req.body, 'rebuild');
  requireUnlocked(server, call);
  // The compare-and-swap: a task holding the server (a first rebuild included) refuses before anything changes.
  requireState(server, 'rebuild', ['active', 'stopped', 'error']);
  const imageRef = stringAt(body, 'imageRef') ?? '';
  const image = api.lookups.images.find(call.auth, imageRef);
  if (!image) throw badRequest('Cannot find image for rebuild');
  if (image.status !== 'active') throw badRequest(`Image ${imageRef} is not active.`);
  if (server.imageRef !== '') requireImageFits(server.flavor, image);
  const injected = api.state.takeFailure('rebuild');
  if (injected?.mode === 'sync') throw novaFault(injected.status, injected.message);

  touch(api, server);
  server.imageRef = imageRef;
  server.taskState = 'rebuilding';
  const name = stringAt(body, 'name');
  if (name !== undefined) server.name = name;
  const metadata = stringMapAt(body, 'metadata');
  if (metadata) server.metadata = metadata;
  // At 2.93 Nova asks the driver to reimage the boot volume too; Ironic's driver refuses, asynchronously.
  const ironicRefuses = atLeast(call.mv, 93) && isBaremetal(server);
  api.later(server, 'nova.rebuild', {
    failure: injected
      ? { status: injected.status, message: injected.message }
      : ironicRefuses
        ? {
            status: 500,
            message: `Virt driver does not support reimage_boot_volume: the ironic driver cannot rebuild instance ${server.id}.`,
          }
        : null,
  });
  return json({ server: serverView(api, server, { ...call, list: false }) }, 202);
}

/** A rebuild (or evacuation) completes: ACTIVE and running, launched afresh. */
export function finishRebuild(api: NovaApi, server: NServer): void {
  touch(api, server);
  server.vmState = 'active';
  server.taskState = null;
  server.powerState = 1;
  server.launchedAt = api.ctx.clock.now();
}

function reboot(api: NovaApi, server: NServer, req: EmuRequest, call: NovaCall) {
  const type = stringAt(objectAt(req.body, 'reboot'), 'type');
  if (type !== 'SOFT' && type !== 'HARD')
    throw badRequest(`Invalid input for field/attribute type. Value: ${String(type)}.`);
  requireUnlocked(server, call);
  requireState(server, 'reboot', type === 'SOFT' ? ['active'] : ['active', 'stopped', 'error']);
  return powerChange(api, server, type === 'SOFT' ? 'rebooting' : 'rebooting_hard', 'active', 1);
}

function powerChange(api: NovaApi, server: NServer, task: string, vmState: NServer['vmState'], power: number) {
  touch(api, server);
  server.taskState = task;
  api.later(server, 'nova.power', { vmState, powerState: power });
  return json(undefined, 202);
}

function createImage(api: NovaApi, server: NServer, req: EmuRequest, call: NovaCall) {
  const body = objectAt(req.body, 'createImage');
  const name = stringAt(body, 'name');
  if (!name) throw badRequest("Invalid input for field/attribute name. Value: None. None is not of type 'string'");
  requireState(server, 'createImage', ['active', 'stopped']);
  const properties: Record<string, string> = {
    ...(stringMapAt(body, 'metadata') ?? {}),
    image_type: 'snapshot',
    instance_uuid: server.id,
    base_image_ref: server.imageRef,
    owner_project_name: '',
    user_id: call.auth.userId,
  };
  const imageID = api.lookups.images.snapshot(call.auth, name, properties);
  touch(api, server);
  server.taskState = 'image_snapshot';
  api.later(server, 'nova.snapshot', { imageId: imageID });
  const origin = api.ctx.origin();
  return atLeast(call.mv, 45)
    ? json({ image_id: imageID }, 202)
    : json(undefined, 202, { Location: `${origin}${PREFIX}/images/${imageID}` });
}

function consoleOutput(server: NServer, req: EmuRequest) {
  if (server.vmState === 'building') throw conflict(`Instance ${server.id} is not ready`);
  const options = objectAt(req.body, 'os-getConsoleOutput');
  const raw = options?.length;
  const length = typeof raw === 'string' ? Number(raw) : numberAt(options, 'length');
  if (length !== undefined && (!Number.isInteger(length) || length < -1)) {
    throw badRequest('Invalid input for field/attribute length.');
  }
  const lines = server.consoleLog;
  const kept = length === undefined || length === -1 ? lines : lines.slice(Math.max(0, lines.length - length));
  return json({ output: kept.map((l) => `${l}\n`).join('') });
}
