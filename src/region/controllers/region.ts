/**
 * The Region's status, as `serve` sees the region: a Ready condition that says whether the region's inventory could
 * be read with its credentials, and how much of it there is (flavors, external networks, volume classes), re-read
 * every inventory period. The operator writes the spec; this controller is the one writer of `status.conditions`.
 * Messages are cause-neutral; why a read failed goes to the operator log only.
 */
import { conditionUnchanged, setCondition, type ConditionInput } from '../../kube/conditions.ts';
import type { Client } from '../../kube/client.ts';
import { ignoreNotFound } from '../../kube/errors.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { Reconciler } from '../../runtime/types.ts';
import { regionType, type Region } from '../apis/region.ts';
import type { CommonProvider, NetworkProvider, ProviderLookup } from '../provider/contract.ts';

const REGION_CONTROLLER = 'region';
export const READY_CONDITION = 'Ready';

/** What the controller reads of a region: its exported inventory. */
type RegionInventory = Pick<CommonProvider, 'flavors' | 'volumeClasses'> &
  Pick<NetworkProvider, 'listExternalNetworks'>;

interface RegionStatusOptions {
  /** How often the inventory is re-read and the condition refreshed. */
  readonly periodMs: number;
}

const count = (n: number, one: string, many: string) => `${String(n)} ${n === 1 ? one : many}`;

/** The Ready condition for a read inventory, or for a read that failed. */
export function readyCondition(
  counts: { flavors: number; externalNetworks: number; volumeClasses: number } | undefined,
  generation: number | undefined,
): ConditionInput {
  const observed = generation === undefined ? {} : { observedGeneration: generation };
  if (counts === undefined) {
    return {
      type: READY_CONDITION,
      status: 'False',
      reason: 'InventoryUnavailable',
      message: "the region's inventory could not be read with its credentials",
      ...observed,
    };
  }
  return {
    type: READY_CONDITION,
    status: 'True',
    reason: 'InventoryRead',
    message: [
      count(counts.flavors, 'flavor', 'flavors'),
      count(counts.externalNetworks, 'external network', 'external networks'),
      count(counts.volumeClasses, 'volume class', 'volume classes'),
    ].join(', '),
    ...observed,
  };
}

/** One pass: read the region's inventory with its credentials, and write Ready when it changed. */
export function regionStatusReconciler(
  client: Client,
  lookup: ProviderLookup<RegionInventory>,
  options: RegionStatusOptions,
): Reconciler {
  return async (req, ctx) => {
    const region = await ignoreNotFound(client.get(regionType, req.namespace, req.name));
    if (region?.spec.provider !== 'openstack' || region.metadata.deletionTimestamp !== undefined) return {};
    const call = { signal: ctx.signal };
    let counts: { flavors: number; externalNetworks: number; volumeClasses: number } | undefined;
    try {
      const inventory = await lookup(req.name, ctx.signal);
      counts = {
        flavors: (await inventory.flavors(call)).length,
        externalNetworks: (await inventory.listExternalNetworks(call)).length,
        volumeClasses: (await inventory.volumeClasses(call)).length,
      };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      ctx.log.warn({ err: error }, 'region inventory could not be read');
    }
    await writeReady(client, region, readyCondition(counts, region.metadata.generation), ctx.clock.now());
    return { requeueAfterMs: options.periodMs };
  };
}

export function registerRegionController(
  manager: Manager,
  client: Client,
  lookup: ProviderLookup<RegionInventory>,
  options: RegionStatusOptions,
): Controller {
  return manager
    .controller(REGION_CONTROLLER)
    .for(regionType, { clusters: 'management' })
    .complete(regionStatusReconciler(client, lookup, options));
}

async function writeReady(client: Client, region: Region, condition: ConditionInput, now: number): Promise<void> {
  if (conditionUnchanged(region.status?.conditions, condition)) return;
  const conditions = setCondition(region.status?.conditions, condition, new Date(now));
  await client.update(regionType, { ...region, status: { ...region.status, conditions } }, { subresource: 'status' });
}
