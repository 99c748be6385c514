/** URL paths of the Kubernetes REST API: the core group under /api/v1, every other group under /apis/group/version. */
import type { ResourceType } from '../resource-type.ts';

function groupVersionPath(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
}

/**
 * The collection (no name) or object path. A namespaced kind without a namespace addresses all namespaces
 * (list and watch only); a cluster-scoped kind ignores the namespace.
 */
export function resourcePath(
  type: ResourceType,
  namespace: string | undefined,
  name?: string,
  subresource?: 'status',
): string {
  let path = groupVersionPath(type);
  if (type.namespaced && namespace !== undefined && namespace !== '') {
    path += `/namespaces/${encodeURIComponent(namespace)}`;
  }
  path += `/${type.plural}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}
