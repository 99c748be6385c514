/** What Nova's route modules share: state, lookups, time, and routing with authentication and microversions. */
import { mayAccessProject, type AuthContext } from '../auth.ts';
import type { ServiceContext } from '../context.ts';
import { novaFault } from '../faults.ts';
import type { EmuRequest, EmuResponse, Method } from '../http.ts';
import type { Lookups } from '../lookups.ts';
import type { Microversion } from './microversion.ts';
import type { Later, NovaState, NServer } from './state.ts';

export const PREFIX = '/compute/v2.1';
/** The one compute host the emulator has, and its hypervisor node. */
export const HOST = 'emulator-compute';

export interface NovaCall {
  readonly auth: AuthContext;
  readonly mv: Microversion;
}

type NovaHandler = (req: EmuRequest, call: NovaCall) => EmuResponse | Promise<EmuResponse>;

export interface NovaApi {
  readonly state: NovaState;
  readonly ctx: ServiceContext;
  readonly lookups: Lookups;
  readonly route: (method: Method, path: string, handler: NovaHandler) => void;
  /** Finishes a transition after its named delay if the server is still on the course it is on now. */
  readonly later: Later;
  /** Removes a server and what it holds (ports, attachments, group membership). */
  readonly purge: (server: NServer) => void;
}

export const notFound = (message: string) => novaFault(404, message);
export const badRequest = (message: string) => novaFault(400, message);
export const conflict = (message: string) => novaFault(409, message);
export const forbidden = (action: string) => novaFault(403, `Policy doesn't allow ${action} to be performed.`);

/** The server if the caller may see it: its own project's, or any for an admin; 404 otherwise, as Nova hides them. */
export function serverFor(api: NovaApi, call: NovaCall, id: string): NServer {
  const server = api.state.servers.get(id);
  if (!server || !mayAccessProject(call.auth, server.projectId)) {
    throw notFound(`Instance ${id} could not be found.`);
  }
  return server;
}

export function touch(api: NovaApi, server: NServer): void {
  server.updatedAt = api.ctx.clock.now();
  server.op++;
}

function faultOf(api: NovaApi, code: number, message: string): NServer['fault'] {
  return {
    code,
    message,
    created: api.ctx.clock.now(),
    details: `Traceback (most recent call last):\n  File "nova/compute/manager.py", in _do_build_and_run_instance\nnova.exception: ${message}\n`,
  };
}

/** Puts a server in ERROR with a fault, ending whatever task it had. */
export function fail(api: NovaApi, server: NServer, code: number, message: string): void {
  touch(api, server);
  server.vmState = 'error';
  server.taskState = null;
  server.fault = faultOf(api, code, message);
}
