/** A region's inventory (images, flavors, external networks, volume classes): read once per region, as forms need it. */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import { query } from './api.ts';
import type { Flavor, ImageV2, VolumeClassV2 } from '../src/region/http/schemas/inventory.ts';

export interface Inventory {
  readonly images: readonly ImageV2[];
  readonly flavors: readonly Flavor[];
  readonly externalNetworks: readonly { id: string; name: string }[];
  readonly volumeClasses: readonly VolumeClassV2[];
}

export async function loadInventory(api: Api, regionID: string, organizationID: string): Promise<Inventory> {
  const base = `/api/v2/regions/${encodeURIComponent(regionID)}` as const;
  const q = query({ organizationID });
  const [images, flavors, externalNetworks, volumeClasses] = await Promise.all([
    api('GET', `${base}/images${q}`),
    api('GET', `${base}/flavors${q}`),
    api('GET', `${base}/externalnetworks${q}`),
    api('GET', `${base}/volumeclasses${q}`),
  ]);
  return { images, flavors, externalNetworks, volumeClasses };
}

export function useInventory(
  api: Api,
  regionID: string | undefined,
  organizationID: string,
): { inventory: Inventory | undefined; problem: unknown } {
  const [inventory, setInventory] = useState<Inventory | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  useEffect(() => {
    setInventory(undefined);
    if (regionID === undefined) return;
    loadInventory(api, regionID, organizationID).then(setInventory, setProblem);
  }, [api, regionID, organizationID]);
  return { inventory, problem };
}
