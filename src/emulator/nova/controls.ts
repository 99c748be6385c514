/**
 * Nova's controls: what a real cloud shows only by accident, on demand. A failure injected into the next create
 * or rebuild; foreign operations (a rebuild onto another image, an evacuation, a delete out of band, a server put
 * in ERROR and recovered); the policy switches that hide task_state and launched_at from project members.
 */
import { controlError } from '../controls.ts';
import { json, noContent, type EmuRequest } from '../http.ts';
import { booleanAt, numberAt, stringAt } from '../json.ts';
import { fail, touch, type NovaApi } from './api.ts';
import type { InjectedFailure, NServer } from './state.ts';
import { defined } from '../../util/defined.ts';

export class NovaControls {
  readonly #api: NovaApi;

  constructor(api: NovaApi) {
    this.#api = api;
  }

  /** The next create or rebuild fails: `sync` answers `status` at once, `async` accepts and then goes ERROR. */
  failNext(failure: Partial<InjectedFailure> & Pick<InjectedFailure, 'operation'>): void {
    const mode = failure.mode ?? 'async';
    this.#api.state.failures.push({
      operation: failure.operation,
      mode,
      status: failure.status ?? 500,
      message:
        failure.message ??
        (mode === 'sync'
          ? 'Unexpected API Error.'
          : `Injected ${failure.operation} failure: the compute host refused it.`),
    });
  }

  /**
   * Someone else rebuilt the server onto `imageRef`: the ref moves and a rebuild runs, whatever task was running.
   * With `fail`, the redeploy fails as Nova's does: ERROR, the ref left on the target.
   */
  foreignRebuild(serverID: string, imageRef: string, options: { readonly fail?: boolean } = {}): void {
    const server = this.#server(serverID);
    touch(this.#api, server);
    server.imageRef = imageRef;
    server.taskState = 'rebuilding';
    this.#api.later(server, 'nova.rebuild', {
      failure: options.fail === true ? { status: 500, message: 'Injected failure: the foreign rebuild failed.' } : null,
    });
  }

  /** An operator evacuated the server to another host: a rebuild on the same image, launched afresh there. */
  evacuate(serverID: string, host = 'emulator-compute-2'): void {
    const server = this.#server(serverID);
    touch(this.#api, server);
    server.taskState = 'rebuilding';
    server.host = host;
    this.#api.later(server, 'nova.rebuild', { failure: null });
  }

  /** The server disappears now, as if deleted by someone else. */
  deleteOutOfBand(serverID: string): void {
    this.#api.purge(this.#server(serverID));
  }

  /** The server goes ERROR with a fault, ending any task. */
  putInError(serverID: string, message = 'Injected failure: the instance went ERROR.', code = 500): void {
    fail(this.#api, this.#server(serverID), code, message);
  }

  /** An operator recovers the server (reset-state to active): ACTIVE again, the old fault left stale. */
  recover(serverID: string): void {
    const server = this.#server(serverID);
    touch(this.#api, server);
    server.vmState = 'active';
    server.taskState = null;
    server.powerState = 1;
  }

  setPolicy(policy: { readonly hideTaskState?: boolean; readonly hideLaunchedAt?: boolean }): void {
    const current = this.#api.state.policy;
    current.hideTaskState = policy.hideTaskState ?? current.hideTaskState;
    current.hideLaunchedAt = policy.hideLaunchedAt ?? current.hideLaunchedAt;
  }

  #server(id: string): NServer {
    const server = this.#api.state.servers.get(id);
    if (!server) throw controlError(404, `no server ${id}`);
    return server;
  }

  /** The same controls under `/_emulator/nova/`. */
  register(): void {
    const { control } = this.#api.ctx;
    const id = (req: EmuRequest) => req.params.server_id ?? '';
    control.add('POST', '/nova/fail-next', (req) => {
      const operation = stringAt(req.body, 'operation');
      const mode = stringAt(req.body, 'mode');
      if (operation !== 'create' && operation !== 'rebuild') throw controlError(400, 'operation: create | rebuild');
      if (mode !== undefined && mode !== 'sync' && mode !== 'async') throw controlError(400, 'mode: sync | async');
      const status = numberAt(req.body, 'status');
      const message = stringAt(req.body, 'message');
      this.failNext({
        operation,
        // A spread of its own: `defined` would widen mode's sync | async to string.
        ...(mode === undefined ? {} : { mode }),
        ...defined({ status, message }),
      });
      return noContent();
    });
    control.add('POST', '/nova/servers/{server_id}/foreign-rebuild', (req) => {
      const imageRef = stringAt(req.body, 'imageRef');
      if (imageRef === undefined) throw controlError(400, 'expected {"imageRef": …}');
      this.foreignRebuild(id(req), imageRef, { fail: booleanAt(req.body, 'fail') === true });
      return noContent();
    });
    control.add('POST', '/nova/servers/{server_id}/evacuate', (req) => {
      this.evacuate(id(req), stringAt(req.body, 'host'));
      return noContent();
    });
    control.add('POST', '/nova/servers/{server_id}/delete', (req) => {
      this.deleteOutOfBand(id(req));
      return noContent();
    });
    control.add('POST', '/nova/servers/{server_id}/error', (req) => {
      this.putInError(id(req), stringAt(req.body, 'message'), numberAt(req.body, 'code'));
      return noContent();
    });
    control.add('POST', '/nova/servers/{server_id}/recover', (req) => {
      this.recover(id(req));
      return noContent();
    });
    control.add('PUT', '/nova/policy', (req) => {
      const hideTaskState = booleanAt(req.body, 'hideTaskState');
      const hideLaunchedAt = booleanAt(req.body, 'hideLaunchedAt');
      this.setPolicy({
        ...defined({ hideTaskState, hideLaunchedAt }),
      });
      return json({ ...this.#api.state.policy });
    });
  }
}
