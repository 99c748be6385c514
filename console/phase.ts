/**
 * The one word a server's row leads with, from what the API reads: its lifecycle (the monitor's observation of the
 * instance) where there is one, "rebuilding" for an instance being built again after an update (an image change:
 * the API reads a rebuild as Building), else its provisioning status.
 */
import type { ServerV2Read } from '../src/region/http/schemas/server.ts';

export type ServerPhase =
  | 'deleting'
  | 'error'
  | 'rebuilding'
  | 'building'
  | 'pending'
  | 'queued'
  | 'running'
  | 'stopping'
  | 'stopped'
  | 'provisioning'
  | 'provisioned';

type Readable = {
  metadata: Pick<
    ServerV2Read['metadata'],
    'deletionTime' | 'provisioningStatus' | 'modifiedTime' | 'provisioningStatusDetail'
  >;
  status: Pick<ServerV2Read['status'], 'powerState'>;
};

const IMAGE_CHANGE = 'an image change is being applied';

export function serverPhase(server: Readable): ServerPhase {
  const { metadata, status } = server;
  if (metadata.deletionTime !== undefined || metadata.provisioningStatus === 'deprovisioning') return 'deleting';
  if (metadata.provisioningStatus === 'error') return 'error';
  if (metadata.provisioningStatusDetail?.message === IMAGE_CHANGE) return 'rebuilding';
  switch (status.powerState) {
    case 'Building':
      return metadata.modifiedTime === undefined ? 'building' : 'rebuilding';
    case 'Pending':
      return 'pending';
    case 'Queued':
      return 'queued';
    case 'Running':
      return 'running';
    case 'Stopping':
      return 'stopping';
    case 'Stopped':
      return 'stopped';
    default:
      return metadata.provisioningStatus === 'provisioned' ? 'provisioned' : 'provisioning';
  }
}
