/**
 * Nova's asynchronous work as timeline transitions: a build, a rebuild (ours, a foreign one, an evacuation), a
 * power change, a snapshot and a delete finish after their named delay, and only while the server is still on the
 * course (`op`) it was on when the work was accepted. Each transition is data (the server's id, its course and a
 * payload), so a persistent emulator finishes after a restart what it accepted before.
 */
import type { ServiceContext } from '../context.ts';
import { fail, touch, type NovaApi } from './api.ts';
import { finishRebuild } from './actions.ts';
import { finishBuild } from './servers.ts';
import type { Later, NovaState, NovaTransition, NovaTransitions, NServer } from './state.ts';

/** Each transition's delay unless the emulator's config names another (the bench reads the build's). */
export const DEFAULT_DELAY_MS: Readonly<Record<NovaTransition, number>> = {
  'nova.build': 50,
  'nova.rebuild': 100,
  'nova.power': 30,
  'nova.snapshot': 50,
  'nova.delete': 20,
};

const APPLY: { readonly [K in NovaTransition]: (api: NovaApi, server: NServer, payload: NovaTransitions[K]) => void } =
  {
    'nova.build': (api, server, { failure }) => {
      if (failure) fail(api, server, failure.status, failure.message);
      else finishBuild(api, server);
    },
    'nova.rebuild': (api, server, { failure }) => {
      if (failure) fail(api, server, failure.status, failure.message);
      else finishRebuild(api, server);
    },
    'nova.power': (api, server, { vmState, powerState }) => {
      touch(api, server);
      server.vmState = vmState;
      server.taskState = null;
      server.powerState = powerState;
    },
    'nova.snapshot': (api, server, { imageId: imageID }) => {
      touch(api, server);
      server.taskState = null;
      api.lookups.images.finishSnapshot(imageID);
    },
    'nova.delete': (api, server) => {
      api.purge(server);
    },
  };

/** Defines Nova's transitions on the timeline; `api` is read when one applies. */
export function defineNovaTransitions(ctx: ServiceContext, state: NovaState, api: () => NovaApi): Later {
  interface Entry {
    readonly id: string;
    readonly op: number;
    readonly payload: unknown;
  }
  const schedules = new Map<NovaTransition, (at: number, entry: Entry) => void>();
  for (const kind of Object.keys(APPLY) as NovaTransition[]) {
    const apply = APPLY[kind] as (api: NovaApi, server: NServer, payload: unknown) => void;
    schedules.set(
      kind,
      ctx.timeline.define<Entry>(kind, ({ id, op, payload }) => {
        const server = state.servers.get(id);
        if (server?.op === op) apply(api(), server, payload);
      }),
    );
  }
  return (server, kind, payload) => {
    schedules.get(kind)?.(ctx.clock.now() + ctx.delay(kind, DEFAULT_DELAY_MS[kind]), {
      id: server.id,
      op: server.op,
      payload,
    });
  };
}
