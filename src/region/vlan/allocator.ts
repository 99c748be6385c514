/**
 * The VLAN allocator's I/O: reads the region's VLANAllocation record, asks the pure decisions (decide-allocation.ts,
 * decide-release.ts) what to write, and writes it with the resourceVersion it read. Optimistic concurrency is the only
 * lock: a lost race (ConflictError, or AlreadyExists when two allocators create the record at once) re-reads and
 * decides again, a bounded number of times, so any number of allocator instances may share one record.
 *
 * Lifecycle contract for the network provider: allocate before creating the Neutron network and keep the ID when
 * that create fails (the retry reuses it); free only after Neutron confirms the network is gone.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import { isKubeAlreadyExists, isKubeConflict, isKubeNotFound } from '../../kube/errors.ts';
import { API_VERSION } from '../apis/shared.ts';
import { vlanAllocationName } from '../openstack/names.ts';
import { vlanAllocationType, type VLANAllocation, type VLANAllocationEntry } from '../apis/vlan-allocation.ts';
import {
  decideAllocation,
  decideReallocation,
  type AllocationDecision,
  type VlanSegment,
} from './decide-allocation.ts';
import { decideRelease } from './decide-release.ts';

/** Region.spec.openstack.network.providerNetworks, as far as the allocator reads it. */
interface ProviderNetworksConfig {
  readonly physicalNetwork: string;
  readonly vlan?: { readonly segments?: readonly VlanSegment[] | undefined } | undefined;
}

export interface VlanAllocatorOptions {
  readonly client: Client;
  /** Where the region service keeps its records. */
  readonly namespace: string;
  readonly regionName: string;
  readonly providerNetworks: ProviderNetworksConfig;
  /** Read-decide-write rounds before giving up with VlanContentionError. */
  readonly maxAttempts?: number;
  readonly fieldManager?: string;
}

/** What a Neutron provider-network segment needs. */
interface VlanAssignment {
  readonly physicalNetwork: string;
  readonly segmentationID: number;
}

/** Every allowed ID is in use; nothing was written. */
export class VlanExhaustedError extends Error {
  constructor(readonly region: string) {
    super(`no free VLAN ID in region ${region}`);
    this.name = 'VlanExhaustedError';
  }
}

/** The record holds several IDs for one network: someone edited it by hand. */
export class VlanConsistencyError extends Error {
  constructor(
    readonly network: string,
    readonly ids: readonly number[],
  ) {
    super(`network ${network} holds several VLAN IDs (${ids.join(', ')})`);
    this.name = 'VlanConsistencyError';
  }
}

/** Every attempt lost an optimistic-concurrency race: transient, the caller retries with backoff. */
export class VlanContentionError extends Error {
  constructor(attempts: number, options?: ErrorOptions) {
    super(`VLAN allocation record still contended after ${attempts} attempts`, options);
    this.name = 'VlanContentionError';
  }
}

const DEFAULT_MAX_ATTEMPTS = 10;

export class VlanAllocator {
  readonly #client: Client;
  readonly #namespace: string;
  readonly #name: string;
  readonly #region: string;
  readonly #config: ProviderNetworksConfig;
  readonly #maxAttempts: number;
  readonly #fieldManager: string;

  constructor(options: VlanAllocatorOptions) {
    this.#client = options.client;
    this.#namespace = options.namespace;
    this.#region = options.regionName;
    this.#name = vlanAllocationName(options.regionName);
    this.#config = options.providerNetworks;
    this.#maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.#fieldManager = options.fieldManager ?? 'openregion-vlan-allocator';
  }

  /** The network's VLAN: the one it already holds, else the lowest free allowed ID, recorded before returning. */
  allocate(network: string): Promise<VlanAssignment> {
    return this.#assign(network, (allocations) => decideAllocation(this.#config.vlan?.segments, allocations, network));
  }

  /** Moves the network off `taken`, an ID Neutron says another network holds, to the lowest other free ID. */
  reallocate(network: string, taken: number): Promise<VlanAssignment> {
    return this.#assign(network, (allocations) =>
      decideReallocation(this.#config.vlan?.segments, allocations, network, taken),
    );
  }

  async #assign(
    network: string,
    decide: (allocations: readonly VLANAllocationEntry[]) => AllocationDecision,
  ): Promise<VlanAssignment> {
    const id = await this.#converge((record) => {
      const decision = decide(record?.spec.allocations ?? []);
      switch (decision.kind) {
        case 'existing':
          return { done: decision.id };
        case 'exhausted':
          throw new VlanExhaustedError(this.#region);
        case 'inconsistent':
          throw new VlanConsistencyError(network, decision.ids);
        case 'allocate':
          return { write: decision.allocations, then: decision.id };
      }
    });
    return { physicalNetwork: this.#config.physicalNetwork, segmentationID: id };
  }

  /** Frees the network's VLAN (call only once Neutron confirms the delete); idempotent. Returns the IDs freed. */
  async free(network: string): Promise<readonly number[]> {
    return this.#converge((record) => {
      if (record === undefined) return { done: [] };
      const decision = decideRelease(record.spec.allocations, network);
      return decision.kind === 'absent' ? { done: [] } : { write: decision.allocations, then: decision.ids };
    });
  }

  /** The network's VLAN if it holds one, without writing. */
  async lookup(network: string): Promise<number | undefined> {
    const record = await this.#read();
    return record?.spec.allocations.find((a) => a.physicalNetworkID === network)?.id;
  }

  async #converge<T>(
    decide: (record: VLANAllocation | undefined) => { done: T } | { write: readonly VLANAllocationEntry[]; then: T },
  ): Promise<T> {
    let lastRace: unknown;
    for (let attempt = 0; attempt < this.#maxAttempts; attempt++) {
      const record = await this.#read();
      const step = decide(record);
      if ('done' in step) return step.done;
      try {
        await this.#write(record, step.write);
        return step.then;
      } catch (error) {
        // Someone else wrote (or created) the record since we read it: decide again from the fresh state.
        if (!isKubeConflict(error) && !isKubeAlreadyExists(error) && !isKubeNotFound(error)) throw error;
        lastRace = error;
      }
    }
    throw new VlanContentionError(this.#maxAttempts, { cause: lastRace });
  }

  #read(): Promise<VLANAllocation | undefined> {
    return getOptional(this.#client, vlanAllocationType, this.#namespace, this.#name);
  }

  async #write(record: VLANAllocation | undefined, allocations: readonly VLANAllocationEntry[]): Promise<void> {
    const options = { fieldManager: this.#fieldManager };
    if (record === undefined) {
      const fresh: VLANAllocation = {
        apiVersion: API_VERSION,
        kind: vlanAllocationType.kind,
        metadata: { name: this.#name, namespace: this.#namespace },
        spec: { allocations: [...allocations] },
      };
      await this.#client.create(vlanAllocationType, fresh, options);
      return;
    }
    // The read's resourceVersion rides along: the update fails with ConflictError if anyone wrote in between.
    await this.#client.update(
      vlanAllocationType,
      { ...record, spec: { ...record.spec, allocations: [...allocations] } },
      options,
    );
  }
}
