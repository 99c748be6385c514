/**
 * What a read reports about state, derived from status alone (pure): the provisioning axis from the reconciler's
 * Available condition, the health axis from the monitor's Healthy condition, a server's lifecycle from Active. A
 * server reads `provisioning` while an image change is unsettled (a rebuild marker, or Nova not yet seen on the
 * spec's image), however its last pass ended. Condition messages are cause-neutral by contract, so they are shown.
 */
import { findCondition } from '../../kube/conditions.ts';
import type { Condition, KubeObject } from '../../kube/object.ts';
import { conditionTypes, labels, type Server } from '../apis/index.ts';
import {
  PROVISIONING_DETAIL_REASONS,
  type HealthStatus,
  type ProjectScopedResourceReadMetadata,
  type ProvisioningStatus,
} from './schemas/common.ts';
import { defined } from '../../util/defined.ts';

export const annotations = {
  description: 'unikorn-cloud.org/description',
  creator: 'unikorn-cloud.org/creator',
  modifier: 'unikorn-cloud.org/modifier',
  modified: 'unikorn-cloud.org/modified',
} as const;

const PROVISIONING_REASONS = ['Provisioning', 'DependencyNotReady'];
const ERROR_REASONS = ['Errored', 'DependencyFailed', 'DependencyNotFound', 'Cancelled'];
const DETAIL_REASONS: ReadonlySet<string> = new Set(PROVISIONING_DETAIL_REASONS);

const conditionsOf = (object: KubeObject): readonly Condition[] | undefined =>
  (object['status'] as { conditions?: Condition[] } | undefined)?.conditions;

export function provisioningStatusOf(object: KubeObject): ProvisioningStatus {
  if (object.metadata.deletionTimestamp !== undefined) return 'deprovisioning';
  const available = findCondition(conditionsOf(object), conditionTypes.available);
  if (available === undefined) return 'pending';
  if (available.status === 'True') return reconciled(object, available) ? 'provisioned' : 'provisioning';
  if (ERROR_REASONS.includes(available.reason)) return 'error';
  if (available.reason === 'Deprovisioning') return 'deprovisioning';
  if (PROVISIONING_REASONS.includes(available.reason)) return 'provisioning';
  return 'provisioning';
}

/** Whether the condition describes the current spec: a spec edit the reconciler has not seen yet is provisioning. */
function reconciled(object: KubeObject, condition: Condition): boolean {
  const { generation } = object.metadata;
  return (
    condition.observedGeneration === undefined || generation === undefined || condition.observedGeneration >= generation
  );
}

/**
 * An image change the server has not settled: a live rebuild marker, the rebuild-accepted stamp (Active
 * Rebuilding), or Nova last seen on another image.
 */
function imageChangeUnsettled(server: Server): boolean {
  const desired = server.spec.image?.id;
  const rebuild = server.status?.rebuild;
  if (rebuild !== undefined && rebuild.state !== 'Failed') return true;
  if (findCondition(server.status?.conditions, conditionTypes.active)?.reason === 'Rebuilding') return true;
  const observed = server.status?.observed?.image;
  return desired !== undefined && observed !== undefined && observed !== desired;
}

export function serverProvisioningStatusOf(server: Server): ProvisioningStatus {
  const base = provisioningStatusOf(server);
  return base === 'provisioned' && imageChangeUnsettled(server) ? 'provisioning' : base;
}

/** What a change not yet settled is, for any kind: the spec was edited and its controller has not caught up. */
const SPEC_CHANGE_MESSAGE = 'a change to the specification is being applied';

/**
 * What is changing on a server that reads provisioning over a provisioned pass: its image, its volume attachments, or
 * otherwise its specification; never an image change it is not making.
 */
function serverChangeMessage(server: Server): string {
  if (imageChangeUnsettled(server)) return 'an image change is being applied';
  const wanted = new Set((server.spec.volumes ?? []).map((v) => v.id));
  const rows = server.status?.volumes ?? [];
  const attached = new Set(rows.filter((r) => r.provisioningStatus === 'Provisioned').map((r) => r.id));
  const volumesMove = [...wanted].some((id) => !attached.has(id)) || rows.some((r) => !wanted.has(r.id));
  return volumesMove ? 'a volume attachment change is being applied' : SPEC_CHANGE_MESSAGE;
}

/** A server's read metadata: its provisioning axis and, while a change is unsettled, what that change is. */
export function serverReadMetadataOf(server: Server): ProjectScopedResourceReadMetadata {
  return readMetadataOf(server, serverProvisioningStatusOf(server), serverChangeMessage(server));
}

export function healthStatusOf(object: KubeObject): HealthStatus {
  const healthy = findCondition(conditionsOf(object), conditionTypes.healthy);
  if (healthy === undefined) return 'unknown';
  if (healthy.status === 'True') return 'healthy';
  if (healthy.reason === 'Errored') return 'error';
  if (healthy.reason === 'Degraded') return 'degraded';
  return 'unknown';
}

/** The Active reason as the v2 powerState; Rebuilding reads Building, Error has no phase. */
export function powerStateOf(
  server: Server,
): 'Pending' | 'Queued' | 'Building' | 'Running' | 'Stopping' | 'Stopped' | undefined {
  const reason = findCondition(server.status?.conditions, conditionTypes.active)?.reason;
  switch (reason) {
    case 'Pending':
    case 'Queued':
    case 'Building':
    case 'Running':
    case 'Stopping':
    case 'Stopped':
      return reason;
    case 'Rebuilding':
      return 'Building';
    default:
      return undefined;
  }
}

const label = (object: KubeObject, key: string): string => object.metadata.labels?.[key] ?? '';

/** The v2 read metadata of a project-scoped resource. */
export function readMetadataOf(
  object: KubeObject,
  provisioning: ProvisioningStatus = provisioningStatusOf(object),
  changing = SPEC_CHANGE_MESSAGE,
): ProjectScopedResourceReadMetadata {
  const meta = object.metadata;
  const notes = meta.annotations ?? {};
  const conditions = conditionsOf(object);
  const available = findCondition(conditions, conditionTypes.available);
  const healthy = findCondition(conditions, conditionTypes.healthy);
  const tags = (object['spec'] as { tags?: { name: string; value: string }[] } | undefined)?.tags;
  const provisioningDetail =
    provisioning === 'provisioning' && available?.status === 'True'
      ? { reason: 'Provisioning' as const, message: changing }
      : available !== undefined && DETAIL_REASONS.has(available.reason)
        ? { reason: available.reason as 'Provisioning', message: available.message }
        : undefined;
  const healthReason = healthy?.status === 'True' ? 'Healthy' : healthy?.reason === 'Degraded' ? 'Degraded' : 'Unknown';
  return {
    id: meta.name,
    name: label(object, labels.name),
    ...defined({ description: notes[annotations.description] }),
    ...(tags === undefined || tags.length === 0 ? {} : { tags }),
    creationTime: meta.creationTimestamp ?? new Date(0).toISOString(),
    ...defined({
      createdBy: notes[annotations.creator],
      modifiedTime: notes[annotations.modified],
      modifiedBy: notes[annotations.modifier],
      deletionTime: meta.deletionTimestamp,
    }),
    provisioningStatus: provisioning,
    ...defined({ provisioningStatusDetail: provisioningDetail }),
    healthStatus: healthStatusOf(object),
    ...(healthy === undefined ? {} : { healthStatusDetail: { reason: healthReason, message: healthy.message } }),
    organizationId: label(object, labels.organization),
    projectId: label(object, labels.project),
  };
}
