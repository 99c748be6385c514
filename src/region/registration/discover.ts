/**
 * What a region would export, read with the region's own credentials inside its project: flavors, external
 * networks and volume types, so the operator can write the Region's selectors from real IDs.
 */
import { listFlavors } from '../../openstack/compute.ts';
import { listNetworks } from '../../openstack/network.ts';
import { listVolumeTypes } from '../../openstack/blockstorage.ts';
import type { Session } from '../../openstack/session.ts';

interface Inventory {
  readonly flavors: readonly { id: string; name: string; vcpus: number; ramMiB: number; diskGiB: number }[];
  readonly externalNetworks: readonly { id: string; name: string }[];
  readonly volumeTypes: readonly { id: string; name: string }[];
}

export async function discoverInventory(session: Session<'project'>): Promise<Inventory> {
  const [flavors, networks, types] = await Promise.all([
    listFlavors(session.client('compute')),
    listNetworks(session.client('network'), { routerExternal: true }),
    listVolumeTypes(session.client('block-storage')),
  ]);
  const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);
  return {
    flavors: flavors
      .map((f) => ({ id: f.id, name: f.name, vcpus: f.vcpus, ramMiB: f.ram, diskGiB: f.disk }))
      .sort(byName),
    externalNetworks: networks.map((n) => ({ id: n.id, name: n.name })).sort(byName),
    volumeTypes: types.map((t) => ({ id: t.id, name: t.name })).sort(byName),
  };
}

/** A plain-text listing, one section per kind, with the selector each feeds. */
export function renderInventory(inventory: Inventory): string {
  const section = (title: string, rows: readonly string[]) =>
    `${title}\n${rows.length === 0 ? '  (none)\n' : rows.map((r) => `  ${r}\n`).join('')}`;
  return [
    section(
      'flavors (spec.openstack.compute.flavors.selector.ids):',
      inventory.flavors.map(
        (f) => `${f.id}  ${f.name}  ${String(f.vcpus)} vCPU, ${String(f.ramMiB)} MiB, ${String(f.diskGiB)} GiB`,
      ),
    ),
    section(
      'external networks (spec.openstack.network.externalNetworks.selector.ids):',
      inventory.externalNetworks.map((n) => `${n.id}  ${n.name}`),
    ),
    section(
      'volume types (spec.openstack.blockStorage.volumeClasses.selector.ids):',
      inventory.volumeTypes.map((t) => `${t.id}  ${t.name}`),
    ),
  ].join('');
}
