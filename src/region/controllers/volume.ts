/**
 * The Volume controller (docs/spec/openstack-provider.md §Cinder Volume create/delete): once the service-principal
 * Identity the Volume names is Available, it drives the provider's VolumeProvider create; its delete always goes to the
 * provider, which treats a never-realised identity as proof that no Cinder volume exists, so deletion delegates
 * unconditionally. Attachments are not this controller's: they are Server.spec.volumes, driven by the server side,
 * which claims a Volume (spec.claimRef and a reference finalizer) before attaching it; like any reference, the claim
 * holds the Volume's deletion until the server has detached it and released it.
 */
import type { Client } from '../../kube/client.ts';
import { quantityBytes } from '../../kube/quantity.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { or } from '../../runtime/predicates.ts';
import { labels, referencesOf } from '../apis/shared.ts';
import { volumeType, type Volume } from '../apis/volume.ts';
import type { ProviderLookup, VolumeProvider } from '../provider/contract.ts';
import type { VolumeInput } from '../provider/inputs.ts';
import { referencesGate } from './decide.ts';
import { ownershipOf } from './ownership.ts';
import type { RegistrationOptions } from './metrics.ts';
import { provisionerReconciler, type Provisioner } from './provisioner.ts';
import { IDENTITY_INDEX, byIdentity, referenceReleased, specOrDeletionChanged } from './watches.ts';
import { workloadController, workloadProvisioner } from './workload.ts';

export const VOLUME_CONTROLLER = 'region-volume';

const GiB = 2 ** 30;
/** Cinder sizes are whole GiB: a size between two is rounded up, so the volume is never smaller than asked. */
export function sizeGiBOf(quantity: string | number): number | undefined {
  const bytes = quantityBytes(quantity);
  return bytes === undefined || bytes <= 0 ? undefined : Math.ceil(bytes / GiB);
}

/** The provider's input, or undefined when the Volume's labels cannot name its owner (or its size is no size). */
export function volumeInputOf(volume: Volume): VolumeInput | undefined {
  const ownership = ownershipOf(volume);
  const sizeGiB = sizeGiBOf(volume.spec.size);
  if (ownership === undefined || sizeGiB === undefined) return undefined;
  return {
    ...ownership,
    id: volume.metadata.name,
    networkID: volume.spec.networkID ?? volume.metadata.labels?.[labels.networkID] ?? '',
    volumeClassID: volume.spec.volumeClassID,
    sizeGiB,
    tags: (volume.spec.tags ?? []).map((t) => ({ name: t.name, value: t.value })),
  };
}

export function volumeProvisioner(
  client: Client,
  lookup: ProviderLookup<VolumeProvider>,
): Provisioner<Volume, VolumeProvider, undefined> {
  const workload = workloadProvisioner(client, lookup, {
    type: volumeType,
    inputOf: volumeInputOf,
    create: (provider, ctx, identity, input) => provider.createVolume(ctx, identity, input),
    delete: (provider, ctx, identity, input) => provider.deleteVolume(ctx, identity, input),
  });
  return { ...workload, holdDeletion: (volume) => Promise.resolve(referencesGate(referencesOf(volume))) };
}

/** Registers the identity index on Volumes that the identity cascade reads, as networks do. */
export function registerVolumeController(
  manager: Manager,
  lookup: ProviderLookup<VolumeProvider>,
  { controller: options = {}, observe }: RegistrationOptions = {},
): Controller {
  manager.index(volumeType, IDENTITY_INDEX, byIdentity);
  return workloadController(manager, VOLUME_CONTROLLER, volumeType, [or(specOrDeletionChanged, referenceReleased)])
    .withOptions(options)
    .complete(provisionerReconciler(manager, (client) => volumeProvisioner(client, lookup), observe));
}
