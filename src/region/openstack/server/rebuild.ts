/**
 * The image rows on an existing server (docs/spec/openstack-provider.md §Image rebuild): decide from the one fresh read
 * this pass made, take the one action the row names. Only R4″ acts, with the image-only rebuild; its answer is read by
 * decide-rebuild.ts. The decision is logged with its row; a cloud hiding task_state or launched_at is warned about,
 * since the rows then degrade exactly as docs/spec/openstack-provider.md §Policy-gated fields describes (the 409 is the
 * only guard; every image change defers and R3′ never parks).
 */
import * as nova from '../../../openstack/compute.ts';
import type { ServerYield } from '../../provider/contract.ts';
import { toOperatorLog } from '../../provider/messages.ts';
import type { Done, Park } from '../../provider/outcome.ts';
import { decideServerImage, imageRowOutcome } from './decide-image.ts';
import { hiddenServerFields } from './nova-server.ts';
import { decideRebuildResponse, serverRebuildRequest, type RebuildResult } from './decide-rebuild.ts';
import type { IdentityClient } from '../principals.ts';
import type { ServerDeps } from './deps.ts';

export async function convergeServerImage(
  deps: ServerDeps,
  compute: IdentityClient<'compute'>,
  server: nova.Server,
  desiredImageID: string | undefined,
): Promise<Done<undefined> | ServerYield | Park> {
  const hidden = hiddenServerFields(server);
  if (hidden.length > 0) deps.log.warn({ serverID: server.id, hidden }, 'nova hides fields the image rows read');
  const decision = decideServerImage(desiredImageID, server);
  deps.log.debug({ serverID: server.id, row: decision.row, action: decision.action }, 'image row');
  deps.observeRow(decision.row);
  if (decision.action !== 'submit') return imageRowOutcome(decision.row);

  deps.signal.throwIfAborted();
  let result: RebuildResult;
  try {
    await nova.rebuildServer(compute, server.id, serverRebuildRequest(desiredImageID ?? ''));
    result = { accepted: true };
  } catch (error) {
    if (deps.signal.aborted) throw error;
    result = { accepted: false, error };
  }
  const response = decideRebuildResponse(result);
  deps.log.info({ serverID: server.id, row: response.row }, 'rebuild submitted');
  deps.observeRow(response.row);
  if (response.row === 'R4″/retry') {
    deps.log.error({ serverID: server.id, provider: toOperatorLog(response.error) }, 'rebuild rejected; retrying');
  }
  return response.outcome;
}
