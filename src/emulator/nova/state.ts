/** Nova's records: servers, flavors, keypairs, server groups, quotas, and the failures a test injected. */
import type { ServerNic } from '../lookups.ts';

export interface NFlavor {
  readonly id: string;
  readonly name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly swap: number;
  readonly ephemeral: number;
  readonly isPublic: boolean;
  readonly description: string | null;
  extraSpecs: Record<string, string>;
}

interface NFault {
  readonly code: number;
  readonly message: string;
  readonly created: number;
  readonly details: string;
}

export interface NAttachment {
  readonly volumeId: string;
  readonly attachmentId: string;
  readonly bdmId: string;
  readonly device: string;
  readonly tag: string | null;
  readonly deleteOnTermination: boolean;
}

export interface NServer {
  readonly id: string;
  name: string;
  readonly projectId: string;
  readonly userId: string;
  vmState: 'building' | 'active' | 'stopped' | 'error' | 'deleted';
  taskState: string | null;
  powerState: number;
  /** The image ref; `''` for a server booted from a volume. */
  imageRef: string;
  readonly flavor: NFlavor;
  host: string;
  hostname: string;
  metadata: Record<string, string>;
  tags: string[];
  readonly keyName: string | null;
  /** The create request's user data, base64 as sent; rebuild keeps it (no user_data is ever taken from one). */
  readonly userData: string | null;
  readonly createdAt: number;
  updatedAt: number;
  launchedAt: number | null;
  fault: NFault | undefined;
  locked: boolean;
  description: string | null;
  readonly nics: ServerNic[];
  readonly attachments: NAttachment[];
  readonly groupId: string | undefined;
  readonly consoleLog: string[];
  /**
   * Bumped by every change of course (an action accepted, a control applied): a scheduled transition applies
   * only while the server is still on the course it was scheduled for.
   */
  op: number;
}

export interface NKeypair {
  readonly name: string;
  readonly userId: string;
  readonly publicKey: string;
  readonly fingerprint: string;
  readonly type: string;
  readonly createdAt: number;
}

export interface NServerGroup {
  readonly id: string;
  readonly name: string;
  readonly policy: string;
  readonly rules: Record<string, number>;
  readonly projectId: string;
  readonly userId: string;
  readonly members: string[];
}

export type QuotaName =
  'instances' | 'cores' | 'ram' | 'key_pairs' | 'metadata_items' | 'server_groups' | 'server_group_members';

/** Nova's `[quota]` defaults. */
export const DEFAULT_QUOTAS: Readonly<Record<QuotaName, number>> = {
  instances: 10,
  cores: 20,
  ram: 51200,
  key_pairs: 100,
  metadata_items: 128,
  server_groups: 10,
  server_group_members: 10,
};

/** A failure a test injected into the next create or rebuild. */
export interface InjectedFailure {
  readonly operation: 'create' | 'rebuild';
  /** `sync`: the API answers `status` and changes nothing; `async`: accepted, then ERROR with the fault. */
  readonly mode: 'sync' | 'async';
  readonly status: number;
  readonly message: string;
}

/** Policy switches a cloud's operator may flip: fields a project member no longer sees. */
interface NovaPolicy {
  hideTaskState: boolean;
  hideLaunchedAt: boolean;
}

export class NovaState {
  readonly servers = new Map<string, NServer>();
  readonly flavors = new Map<string, NFlavor>();
  readonly keypairs: NKeypair[] = [];
  readonly groups = new Map<string, NServerGroup>();
  readonly quotas = new Map<string, Partial<Record<QuotaName, number>>>();
  failures: InjectedFailure[] = [];
  readonly policy: NovaPolicy = { hideTaskState: false, hideLaunchedAt: false };

  clear(): void {
    this.servers.clear();
    this.flavors.clear();
    this.keypairs.length = 0;
    this.groups.clear();
    this.quotas.clear();
    this.failures = [];
    this.policy.hideTaskState = false;
    this.policy.hideLaunchedAt = false;
  }

  quota(projectID: string, name: QuotaName): number {
    return this.quotas.get(projectID)?.[name] ?? DEFAULT_QUOTAS[name];
  }

  /** Takes the injected failure for the next `operation`, if any. */
  takeFailure(operation: InjectedFailure['operation']): InjectedFailure | undefined {
    const at = this.failures.findIndex((f) => f.operation === operation);
    if (at < 0) return undefined;
    const [failure] = this.failures.splice(at, 1);
    return failure;
  }
}

/** Nova's API status: vm_state projected through task_state (nova/api/openstack/common.py). */
export function statusOf(server: NServer): string {
  switch (server.vmState) {
    case 'building':
      return 'BUILD';
    case 'error':
      return 'ERROR';
    case 'deleted':
      return 'DELETED';
    case 'stopped':
      return 'SHUTOFF';
    case 'active':
      switch (server.taskState) {
        case 'rebuilding':
        case 'rebuild_block_device_mapping':
        case 'rebuild_spawning':
          return 'REBUILD';
        case 'rebooting':
          return 'REBOOT';
        case 'rebooting_hard':
          return 'HARD_REBOOT';
        default:
          return 'ACTIVE';
      }
  }
}

/** A failure the transition ends in instead of its success: the fault's code and message. */
interface Refusal {
  readonly status: number;
  readonly message: string;
}

/** What each transition carries besides the server. */
export interface NovaTransitions {
  'nova.build': { readonly failure: Refusal | null };
  'nova.rebuild': { readonly failure: Refusal | null };
  'nova.power': { readonly vmState: NServer['vmState']; readonly powerState: number };
  'nova.snapshot': { readonly imageId: string };
  'nova.delete': Readonly<Record<string, never>>;
}
export type NovaTransition = keyof NovaTransitions;

/** Schedules a transition of `server` after its named delay. */
export type Later = <K extends NovaTransition>(server: NServer, kind: K, payload: NovaTransitions[K]) => void;
