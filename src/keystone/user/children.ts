/**
 * The I/O every step shares: read an object that may be absent, and write an order's child in the ControlPlane's
 * namespace without ever taking over a live object of that name that is not the order's child.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import { ignoreNotFound, isKubeNotFound } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { childLabels, isOrderChild, type OrderRef } from '../order/names.ts';
import { FIELD_MANAGER } from './constants.ts';

/** A list that reads an unserved kind (no CRD installed on that cluster) as empty. */
export async function listOptional<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  namespace: string,
): Promise<T[]> {
  return (await ignoreNotFound(client.list(type, { namespace })))?.items ?? [];
}

/** A live object of a child's name that the order did not create. */
export class ForeignObjectError extends Error {
  constructor(kind: string, namespace: string, name: string) {
    super(`refusing to adopt pre-existing ${kind} ${namespace}/${name}: it was not created by this order`);
    this.name = 'ForeignObjectError';
  }
}

/** Refuses `live` when it exists and is not the order's child (labels and prefix). */
export function assertOwnChild(ref: OrderRef, type: ResourceType, live: KubeObject | undefined): void {
  if (live !== undefined && !isOrderChild(ref, live)) {
    throw new ForeignObjectError(type.kind, live.metadata.namespace ?? '', live.metadata.name);
  }
}

/**
 * Applies `desired` (labels added) with forced ownership, after a live read that refuses a foreign object of the
 * name. Returns the object the server holds afterwards.
 */
export async function ensureOrderChild<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  ref: OrderRef,
  desired: KubeObject,
): Promise<T> {
  const namespace = desired.metadata.namespace ?? '';
  assertOwnChild(ref, type, await getOptional(client, type, namespace, desired.metadata.name));
  const labelled: KubeObject = {
    ...desired,
    metadata: { ...desired.metadata, labels: { ...desired.metadata.labels, ...childLabels(ref) } },
  };
  return client.apply(type, labelled, { fieldManager: FIELD_MANAGER, force: true });
}

/** Deletes an object when present and the order's child; true when a delete was issued. */
export async function deleteOwnChild(
  client: Client,
  type: ResourceType,
  ref: OrderRef,
  namespace: string,
  name: string,
): Promise<boolean> {
  const live = await getOptional(client, type, namespace, name);
  if (live === undefined || !isOrderChild(ref, live)) return false;
  try {
    await client.delete(type, namespace, name);
    return true;
  } catch (error) {
    if (isKubeNotFound(error)) return false;
    throw error;
  }
}

/** A Secret's `data` value, decoded. */
export function secretValue(secret: KubeObject | undefined, key: string): string | undefined {
  const data = secret?.['data'];
  if (typeof data !== 'object' || data === null) return undefined;
  const encoded = (data as Record<string, unknown>)[key];
  return typeof encoded === 'string' ? Buffer.from(encoded, 'base64').toString('utf8') : undefined;
}

/** `data` of a Secret from plain strings. */
export function encodeData(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
}
