/**
 * The contract's VolumeProvider for one region: volumes and attachments run as the identity's own user in its
 * project, with the credentials its OpenstackIdentity record holds. No record, or one without a project, user and
 * password, means the identity was never realised: a delete or detach is then done (nothing can exist, since every
 * volume is made as that user), and a create or attach waits for the identity (transient, not the user's fault).
 */
import type { Logger } from 'pino';
import type { Client } from '../../../kube/client.ts';
import type { VolumeProvider } from '../../provider/contract.ts';
import { ResourceKind, TransientError } from '../../provider/errors.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { identityCredentialsOf, IdentityRecords } from '../identity/record.ts';
import type { RegionContext } from '../registry.ts';
import { attachVolume, detachVolume } from './attachment.ts';
import { createVolume, deleteVolume, type VolumeDeps, type WorkloadIdentity } from './lifecycle.ts';

export interface VolumeProviderDeps {
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
  const workload = async (identity: IdentityInput): Promise<WorkloadIdentity | undefined> => {
    const record = await records.get(identity.id);
    const credentials = record === undefined ? undefined : identityCredentialsOf(record);
    return credentials === undefined
      ? undefined
      : { identityID: identity.id, projectID: credentials.projectID, credentials };
  };
  const forCreate = async (identity: IdentityInput): Promise<WorkloadIdentity> => {
    const found = await workload(identity);
    if (found === undefined) {
      throw new TransientError(`identity ${identity.id} has no provider project yet`, {
        resource: ResourceKind.Identity,
      });
    }
    return found;
  };

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
