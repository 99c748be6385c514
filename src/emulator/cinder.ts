/**
 * Cinder v3 as the dev cloud runs it (Zed, API up to 3.70, one fake backend `devcloud@fake#fake` in zone nova):
 * volumes, volume types, quota sets, availability zones and the attachments API. It installs the volume lookup,
 * so Nova attaches and detaches volumes here, and offers controls to put a volume in error.
 */
import type { AuthContext } from './auth.ts';
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { controlError } from './controls.ts';
import { novaFault } from './faults.ts';
import { json, noContent } from './http.ts';
import type { Lookups, VolumeFacts, VolumeLookup } from './lookups.ts';
import { numberAt, stringAt } from './json.ts';
import { recordsOf, refill } from './records.ts';
import { cinderRoute, MAX_MINOR, PREFIX, type CinderApi } from './cinder/api.ts';
import { registerAttachments } from './cinder/attachments.ts';
import { CinderState, type CVolume } from './cinder/state.ts';
import { defaultType, registerTypes } from './cinder/types.ts';
import { defineCinderTransitions } from './cinder/transitions.ts';
import { registerVolumes, setStatus, volumeFor } from './cinder/volumes.ts';

export class Cinder implements EmulatedService, VolumeLookup {
  readonly name = 'cinder';
  readonly state = new CinderState();
  readonly #api: CinderApi;

  constructor(ctx: ServiceContext) {
    this.#api = {
      state: this.state,
      ctx,
      route: cinderRoute(ctx),
      later: defineCinderTransitions(ctx, this.state, () => this.#api),
    };
    const version = () => ({
      id: 'v3.0',
      status: 'CURRENT',
      version: `3.${String(MAX_MINOR)}`,
      min_version: '3.0',
      updated: '2023-08-31T00:00:00Z',
      links: [{ rel: 'self', href: `${ctx.origin()}${PREFIX}/` }],
    });
    ctx.router.add('GET', '/volume', () => json({ versions: [version()] }, 300));
    ctx.router.add('GET', PREFIX, () => json({ versions: [version()] }));
    registerVolumes(this.#api);
    registerTypes(this.#api);
    registerAttachments(this.#api);
    this.#registerControls();
    defaultType(this.#api);
  }

  reset(): void {
    this.state.clear();
    defaultType(this.#api);
  }

  records(): unknown {
    return recordsOf(this.state, ['volumes', 'attachments', 'types', 'quotas', 'failNextCreates']);
  }

  restore(records: unknown): void {
    refill(this.state, records);
  }

  dump(): unknown {
    return {
      volumes: [...this.state.volumes.values()],
      attachments: [...this.state.attachments.values()],
      types: [...this.state.types.values()],
      quotas: Object.fromEntries(this.state.quotas),
      failNextCreates: this.state.failNextCreates,
    };
  }

  /** Control: the next `count` volume creates end in `error` instead of `available`. */
  failNextCreates(count = 1): void {
    this.state.failNextCreates += count;
  }

  /** Control: the volume goes `error` now (an out-of-band backend failure), cancelling any transition under way. */
  putInError(volumeID: string, status = 'error'): void {
    setStatus(this.#api, this.#volume(volumeID), status);
  }

  // ------------------------------------------------------------------------------------------ VolumeLookup (Nova)
  find(auth: AuthContext, volumeID: string): VolumeFacts | undefined {
    try {
      const v = volumeFor(this.#api, auth, volumeID);
      return { id: v.id, status: v.status, projectId: v.projectId };
    } catch {
      return undefined;
    }
  }

  attach(volumeID: string, serverID: string, attachmentID: string, device: string): void {
    const volume = this.state.volumes.get(volumeID);
    if (!volume) return;
    this.state.attachments.set(attachmentID, {
      id: attachmentID,
      volumeId: volumeID,
      projectId: volume.projectId,
      instance: serverID,
      status: 'attaching',
      device,
      attachedAt: null,
    });
    setStatus(this.#api, volume, 'attaching');
    this.#api.later(volume, 'cinder.attach', { attachmentId: attachmentID });
  }

  detach(volumeID: string, serverID: string): void {
    const volume = this.state.volumes.get(volumeID);
    const record = [...this.state.attachments.values()].find((a) => a.volumeId === volumeID && a.instance === serverID);
    if (!volume || !record) return;
    record.status = 'detaching';
    setStatus(this.#api, volume, 'detaching');
    this.#api.later(volume, 'cinder.detach', { attachmentId: record.id });
  }

  #volume(id: string): CVolume {
    const volume = this.state.volumes.get(id);
    if (!volume) throw controlError(404, `no volume ${id}`);
    return volume;
  }

  /** The controls under `/_emulator/cinder/`. */
  #registerControls(): void {
    const { control } = this.#api.ctx;
    control.add('POST', '/cinder/fail-next', (req) => {
      this.failNextCreates(numberAt(req.body, 'count') ?? 1);
      return noContent();
    });
    control.add('POST', '/cinder/volumes/{volume_id}/error', (req) => {
      this.putInError(req.params.volume_id ?? '', stringAt(req.body, 'status'));
      return noContent();
    });
  }
}

export const cinderModule: ServiceModule<Cinder> = {
  name: 'cinder',
  prefix: '/volume',
  // Both names the dev cloud registers, with the project id Keystone fills in for a project-scoped token.
  catalog: [
    { type: 'block-storage', name: 'cinder', path: `${PREFIX}/%(project_id)s` },
    { type: 'volumev3', name: 'cinderv3', path: `${PREFIX}/%(project_id)s` },
  ],
  fault: novaFault,
  create: (ctx: ServiceContext, lookups: Lookups) => {
    const cinder = new Cinder(ctx);
    lookups.volumes = cinder;
    return cinder;
  },
};
