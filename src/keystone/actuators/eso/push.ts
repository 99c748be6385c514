/**
 * Writes and deletes one remote key the way ESO's Vault provider does: a path someone else owns (no managed-by
 * metadata) is refused on push and left alone on delete; an unchanged value is not written again; metadata goes
 * before data, so a path never holds our data without our mark.
 */
import type { KvClient } from './kv.ts';
import { MANAGED_BY_KEY, MANAGED_BY_VALUE, sameJson } from './remote.ts';

/** The remote path exists and is not managed by external-secrets. */
export class NotManagedError extends Error {
  constructor() {
    super('secret not managed by external-secrets');
    this.name = 'NotManagedError';
  }
}

type PushResult = 'written' | 'unchanged' | 'skipped-exists';

export async function pushRemote(
  kv: KvClient,
  remoteKey: string,
  value: Readonly<Record<string, unknown>>,
  options: { readonly merge: boolean; readonly ifNotExists: boolean },
): Promise<PushResult> {
  const metadata = await kv.readMetadata(remoteKey);
  const existing = metadata === undefined ? undefined : await kv.readData(remoteKey);
  if (metadata !== undefined && existing !== undefined && options.ifNotExists) return 'skipped-exists';
  if (metadata !== undefined && metadata.customMetadata[MANAGED_BY_KEY] !== MANAGED_BY_VALUE) {
    throw new NotManagedError();
  }
  const next = options.merge ? { ...existing, ...value } : value;
  if (existing !== undefined && sameJson(existing, next)) return 'unchanged';
  await kv.writeMetadata(remoteKey, { ...metadata?.customMetadata, [MANAGED_BY_KEY]: MANAGED_BY_VALUE });
  await kv.writeData(remoteKey, next);
  return 'written';
}

type DeleteResult = 'deleted' | 'absent' | 'not-managed';

/** Removes the remote key, or only `property` from its map (the whole path when that empties it). */
export async function deleteRemote(kv: KvClient, remoteKey: string, property?: string): Promise<DeleteResult> {
  const metadata = await kv.readMetadata(remoteKey);
  if (metadata === undefined) return 'absent';
  if (metadata.customMetadata[MANAGED_BY_KEY] !== MANAGED_BY_VALUE) return 'not-managed';
  if (property !== undefined && property !== '') {
    const existing = await kv.readData(remoteKey);
    if (existing !== undefined && property in existing) {
      const rest = Object.fromEntries(Object.entries(existing).filter(([k]) => k !== property));
      if (Object.keys(rest).length > 0) {
        await kv.writeData(remoteKey, rest);
        return 'deleted';
      }
    } else if (existing !== undefined) {
      return 'absent';
    }
  }
  await kv.deleteData(remoteKey);
  await kv.deleteMetadata(remoteKey);
  return 'deleted';
}
