/**
 * Clearing K-ORC's latched transport error. K-ORC treats a dial error on a write as terminal and stops retrying;
 * removing its Progressing condition (with the resourceVersion read, so a newer K-ORC write is never overwritten)
 * makes it try again, and the annotation paces the next clear.
 */
import { isKubeConflict, isKubeNotFound } from '../../kube/errors.ts';
import { korcConditions, korcUserType, type KorcUser } from '../apis/korc.ts';
import { KORC_REQUEUE_AFTER_MS } from '../order/result.ts';
import { FIELD_MANAGER, reasons, UNLATCHED_AT_ANNOTATION } from './constants.ts';
import type { PassContext } from './pass-context.ts';
import type { StepEnd } from './decide-provision.ts';

/** Clears K-ORC's latched transport error, so it retries: drop Progressing, then stamp when. */
export async function unlatch(pass: PassContext, user: KorcUser): Promise<StepEnd> {
  const { management, plane } = pass;
  const conditions = (user.status?.conditions ?? []).filter((c) => c.type !== korcConditions.progressing);
  try {
    await management.patch(
      korcUserType,
      plane.namespace,
      user.metadata.name,
      {
        type: 'merge',
        patch: { metadata: { resourceVersion: user.metadata.resourceVersion }, status: { conditions } },
      },
      { subresource: 'status', fieldManager: FIELD_MANAGER },
    );
    await management.patch(
      korcUserType,
      plane.namespace,
      user.metadata.name,
      { type: 'merge', patch: { metadata: { annotations: { [UNLATCHED_AT_ANNOTATION]: rfc3339(pass.now) } } } },
      { fieldManager: FIELD_MANAGER },
    );
  } catch (error) {
    if (!isKubeNotFound(error) && !isKubeConflict(error) && !deferrable(error)) {
      return {
        row: 'P6-UnlatchFailed',
        condition: {
          status: 'False',
          reason: reasons.transportErrorRetryFailed,
          message: `could not clear K-ORC's latched transport error on the user: ${(error as Error).message}`,
        },
        result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
      };
    }
  }
  return {
    row: 'P6-Unlatched',
    condition: {
      status: 'False',
      reason: reasons.waitingForServiceAccounts,
      message: 'K-ORC could not reach Keystone; its latched error is cleared and it retries',
    },
    result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
  };
}

/** Throttling, a server error or a timeout: try again on a later pass rather than fail. */
function deferrable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && (code === 429 || code >= 500);
}

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
