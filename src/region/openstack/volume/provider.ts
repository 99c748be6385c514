/**
 * The contract's VolumeProvider for one region: volumes and attachments run as the identity's own user in its
 * project, with the credentials its OpenstackIdentity record holds. No record, or one without a project, user and
 * password, means the identity was never realised: a delete or detach is then done (nothing can exist, since every
 * volume is made as that user), and a create or attach waits for the identity (transient, not the user's fault).
 */
import type { Logger } from 'pino';
import type { Client } from '../../../kube/client.ts';
import type { VolumeProvider } from '../../provider/contract.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { IdentityRecords } from '../identity/record.ts';
import { realisedForCreate } from '../realised.ts';
import type { RegionContext } from '../registry.ts';
import { attachVolume, detachVolume } from './attachment.ts';
import { createVolume, deleteVolume, type VolumeDeps } from './lifecycle.ts';

interface VolumeProviderDeps {
  /** Where OpenstackIdentity records are kept. */
  readonly kube: Client;
  readonly log?: Logger | undefined;
}

export function volumeProviderFor(region: RegionContext, deps: VolumeProviderDeps): VolumeProvider {
  const records = new IdentityRecords(deps.kube, region.namespace);
  const volumeDeps = (signal: AbortSignal): VolumeDeps => ({
    clients: region.clients,
    signal,
    observe: (operation, row) => deps.log?.debug({ operation, row }, 'volume row'),
  });
  const workload = (identity: IdentityInput) => records.withUser(identity.id);
  const forCreate = async (identity: IdentityInput) => realisedForCreate(await workload(identity), identity.id);

  return {
    createVolume: async (ctx, identity, volume) =>
      createVolume(volumeDeps(ctx.signal), await forCreate(identity), volume),
    deleteVolume: async (ctx, identity, volume) =>
      deleteVolume(volumeDeps(ctx.signal), await workload(identity), volume),
    attachVolume: async (ctx, identity, server, volume) =>
      attachVolume(volumeDeps(ctx.signal), await forCreate(identity), server, volume),
    detachVolume: async (ctx, identity, server, volume) =>
      detachVolume(volumeDeps(ctx.signal), await workload(identity), server, volume),
  };
}
