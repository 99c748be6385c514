/**
 * The Nova metadata a server is created with: a control-plane lookup aid and an in-guest linkage surface (the
 * metadata service shows it to the guest). The keys themselves live in names.ts: the legacy camelCase keys
 * (frozen), the namespaced keys, user tags `{service}.{domain}/{local-name}` mapped to `{service}:{local_name}`, and
 * the system keys written last so no tag can override them.
 *
 * What this file adds is Nova's own limits: its API schema accepts keys matching `^[a-zA-Z0-9-_:. ]{1,255}$` and
 * values of at most 255 characters, and refuses the whole create otherwise. A user tag outside them is left out
 * (and named, for the operator log) rather than failing a create the user cannot see the reason for; a system value
 * outside them is a programming error, since ids are ours.
 */
import type { ServerInput } from '../../provider/inputs.ts';
import { serverMetadata, tagMetadataKey } from '../names.ts';

export const NOVA_METADATA_KEY = /^[a-zA-Z0-9-_:. ]{1,255}$/;
export const NOVA_METADATA_MAX_VALUE = 255;

interface DroppedTag {
  /** The tag's name (user text; its value is not repeated here). */
  readonly name: string;
  readonly reason: 'key' | 'value';
}

interface NovaServerMetadata {
  readonly metadata: Record<string, string>;
  /** User tags left out because Nova would refuse them. */
  readonly dropped: readonly DroppedTag[];
}

/** Python's len, which Nova's schema counts in: code points, not UTF-16 units. */
const length = (text: string): number => Array.from(text).length;

export function novaServerMetadata(
  server: Pick<ServerInput, 'id' | 'organizationID' | 'projectID' | 'regionID' | 'tags'>,
): NovaServerMetadata {
  const dropped: DroppedTag[] = [];
  const tags = server.tags.filter((tag) => {
    const key = tagMetadataKey(tag.name);
    if (key === undefined) return false; // not in the namespaced form: never written, not an error
    if (!NOVA_METADATA_KEY.test(key)) dropped.push({ name: tag.name, reason: 'key' });
    else if (length(tag.value) > NOVA_METADATA_MAX_VALUE) dropped.push({ name: tag.name, reason: 'value' });
    else return true;
    return false;
  });
  const metadata = serverMetadata(
    {
      serverID: server.id,
      organizationID: server.organizationID,
      projectID: server.projectID,
      regionID: server.regionID,
    },
    tags,
  );
  for (const [key, value] of Object.entries(metadata)) {
    if (!NOVA_METADATA_KEY.test(key) || length(value) > NOVA_METADATA_MAX_VALUE) {
      throw new RangeError(`server metadata ${key} exceeds Nova's limits`);
    }
  }
  return { metadata, dropped };
}
