/** Cinder's records: volumes, their attachment records, volume types and quota sets. */

export interface CAttachment {
  readonly id: string;
  readonly volumeId: string;
  readonly projectId: string;
  /** The Nova server; Cinder allows a reservation without one. */
  readonly instance: string | null;
  status: 'reserved' | 'attaching' | 'attached' | 'detaching';
  device: string | null;
  attachedAt: number | null;
}

export interface CVolume {
  readonly id: string;
  readonly projectId: string;
  readonly userId: string;
  name: string | null;
  description: string | null;
  size: number;
  readonly typeId: string;
  readonly availabilityZone: string;
  status: string;
  metadata: Record<string, string>;
  readonly createdAt: number;
  updatedAt: number | null;
  readonly multiattach: boolean;
  /**
   * Bumped by every change of course, so a transition scheduled for an earlier course (a create finishing after
   * a control put the volume in error) does not apply.
   */
  op: number;
}

export interface CType {
  readonly id: string;
  name: string;
  description: string | null;
  isPublic: boolean;
  extraSpecs: Record<string, string>;
}

/** Cinder's configured quota defaults (cinder.conf `[DEFAULT] quota_*`). */
const QUOTA_DEFAULTS: Readonly<Record<string, number>> = {
  volumes: 10,
  per_volume_gigabytes: -1,
  snapshots: 10,
  gigabytes: 1000,
  backups: 10,
  backup_gigabytes: 1000,
  groups: 10,
};

export class CinderState {
  readonly volumes = new Map<string, CVolume>();
  readonly attachments = new Map<string, CAttachment>();
  readonly types = new Map<string, CType>();
  readonly quotas = new Map<string, Record<string, number>>();
  /** Failures a control asked for: the next creates end in `error`. */
  failNextCreates = 0;

  clear(): void {
    this.volumes.clear();
    this.attachments.clear();
    this.types.clear();
    this.quotas.clear();
    this.failNextCreates = 0;
  }

  typeByRef(ref: string): CType | undefined {
    return this.types.get(ref) ?? [...this.types.values()].find((t) => t.name === ref);
  }

  /** The full quota set of a project: the defaults, a per-type trio for every type, then what an admin set. */
  quotaSet(projectID: string): Record<string, number> {
    const set: Record<string, number> = { ...QUOTA_DEFAULTS };
    for (const t of this.types.values()) {
      for (const k of ['volumes', 'gigabytes', 'snapshots']) set[`${k}_${t.name}`] = -1;
    }
    return { ...set, ...this.quotas.get(projectID) };
  }
}

/** What each transition carries besides the volume. */
export interface CinderTransitions {
  'cinder.create': { readonly status: 'available' | 'error' };
  'cinder.delete': Readonly<Record<string, never>>;
  'cinder.attach': { readonly attachmentId: string };
  'cinder.detach': { readonly attachmentId: string };
}
export type CinderTransition = keyof CinderTransitions;

/** Schedules a transition of `volume` after its named delay. */
export type CinderLater = <K extends CinderTransition>(volume: CVolume, kind: K, payload: CinderTransitions[K]) => void;
