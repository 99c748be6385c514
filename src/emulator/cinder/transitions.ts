/**
 * Cinder's asynchronous work as timeline transitions: a create ends `available` (or `error`), a delete removes
 * the volume, an attach or detach completes. Each applies only while the volume is still on the course (`op`) it
 * was on when the work was accepted, and is data, so a persistent emulator finishes it after a restart.
 */
import type { ServiceContext } from '../context.ts';
import type { CinderApi } from './api.ts';
import { dropAttachment } from './attachments.ts';
import type { CinderLater, CinderState, CinderTransition, CinderTransitions, CVolume } from './state.ts';
import { setStatus } from './volumes.ts';

const DEFAULT_DELAY_MS: Readonly<Record<CinderTransition, number>> = {
  'cinder.create': 50,
  'cinder.delete': 50,
  'cinder.attach': 30,
  'cinder.detach': 30,
};

const APPLY: {
  readonly [K in CinderTransition]: (api: CinderApi, volume: CVolume, payload: CinderTransitions[K]) => void;
} = {
  'cinder.create': (api, volume, { status }) => {
    setStatus(api, volume, status);
  },
  'cinder.delete': (api, volume) => {
    api.state.volumes.delete(volume.id);
  },
  'cinder.attach': (api, volume, { attachmentId: attachmentID }) => {
    const record = api.state.attachments.get(attachmentID);
    if (!record) return;
    record.status = 'attached';
    record.attachedAt = api.ctx.clock.now();
    setStatus(api, volume, 'in-use');
  },
  'cinder.detach': (api, _volume, { attachmentId: attachmentID }) => {
    const record = api.state.attachments.get(attachmentID);
    if (record) dropAttachment(api, record);
  },
};

/** Defines Cinder's transitions on the timeline; `api` is read when one applies. */
export function defineCinderTransitions(ctx: ServiceContext, state: CinderState, api: () => CinderApi): CinderLater {
  interface Entry {
    readonly id: string;
    readonly op: number;
    readonly payload: unknown;
  }
  const schedules = new Map<CinderTransition, (at: number, entry: Entry) => void>();
  for (const kind of Object.keys(APPLY) as CinderTransition[]) {
    const apply = APPLY[kind] as (api: CinderApi, volume: CVolume, payload: unknown) => void;
    schedules.set(
      kind,
      ctx.timeline.define<Entry>(kind, ({ id, op, payload }) => {
        const volume = state.volumes.get(id);
        if (volume?.op === op) apply(api(), volume, payload);
      }),
    );
  }
  return (volume, kind, payload) => {
    schedules.get(kind)?.(ctx.clock.now() + ctx.delay(kind, DEFAULT_DELAY_MS[kind]), {
      id: volume.id,
      op: volume.op,
      payload,
    });
  };
}
