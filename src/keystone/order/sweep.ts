/**
 * The teardown's one action: list the order's children in the ControlPlane's namespace, delete them in the order
 * `rank` gives, then the Secret delivered beside the order. Errors are collected rather than thrown, because with
 * the ControlPlane gone the finalizer is released regardless (teardownOutcome decides).
 */
import type { Client } from '../../kube/client.ts';
import { isKubeNotFound } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { builtin } from '../../kube/resource-type.ts';
import { childLabels, type OrderRef } from './names.ts';
import { plannedDeletes } from './decide-teardown.ts';

interface SweepInput {
  /** The management cluster's client: the children live in the ControlPlane's namespace there. */
  readonly management: Client;
  /** The order's cluster's client: the delivered Secret lives beside the order. */
  readonly orderClient: Client;
  readonly ref: OrderRef;
  readonly controlPlaneNamespace: string;
  /** Every kind the order creates children of; the rank orders the deletes across kinds. */
  readonly types: readonly ResourceType[];
  readonly rank: (ref: OrderRef, name: string) => readonly [number, number];
  /** The delivered Secret's name and the order's uid: it is deleted only when the order is its controller. */
  readonly delivered: { readonly name: string; readonly orderUid: string | undefined };
}

interface SweepReport {
  /** `<kind>/<name>` of every delete issued, in order. */
  readonly issued: readonly string[];
  readonly errors: readonly unknown[];
}

export function childSelector(ref: OrderRef): string {
  return Object.entries(childLabels(ref))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

export async function sweepOrderChildren(input: SweepInput): Promise<SweepReport> {
  const { management, ref } = input;
  const issued: string[] = [];
  const errors: unknown[] = [];
  const listed: { type: ResourceType; object: KubeObject }[] = [];
  for (const type of input.types) {
    try {
      const list = await management.list(type, {
        namespace: input.controlPlaneNamespace,
        labelSelector: childSelector(ref),
      });
      listed.push(...list.items.map((object) => ({ type, object })));
    } catch (error) {
      errors.push(error);
    }
  }
  const byObject = new Map(listed.map((l) => [l.object, l.type]));
  const ordered = plannedDeletes(
    ref,
    listed.map((l) => l.object),
    input.rank,
  );
  for (const object of ordered) {
    const type = byObject.get(object);
    if (type === undefined) continue;
    await remove(management, type, input.controlPlaneNamespace, object.metadata.name, issued, errors);
  }
  try {
    const secret = await input.orderClient.get(builtin.secret, ref.namespace, input.delivered.name);
    const controlled = (secret.metadata.ownerReferences ?? []).some(
      (owner) => owner.controller === true && owner.uid === input.delivered.orderUid,
    );
    if (controlled)
      await remove(input.orderClient, builtin.secret, ref.namespace, input.delivered.name, issued, errors);
  } catch (error) {
    if (!isKubeNotFound(error)) errors.push(error);
  }
  return { issued, errors };
}

async function remove(
  client: Client,
  type: ResourceType,
  namespace: string,
  name: string,
  issued: string[],
  errors: unknown[],
): Promise<void> {
  try {
    await client.delete(type, namespace, name);
    issued.push(`${type.kind}/${name}`);
  } catch (error) {
    if (!isKubeNotFound(error)) errors.push(error);
  }
}
