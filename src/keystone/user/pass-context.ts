/** What every step of one pass works with: the order, where it lives, its ControlPlane and the clients. */
import type { Client } from '../../kube/client.ts';
import type { Secret } from '../../kube/object.ts';
import type { Logger } from '../../runtime/types.ts';
import type { ControlPlane } from '../apis/controlplane.ts';
import type { KeystoneUser } from '../apis/keystoneuser.ts';
import type { StoreVersions } from '../apis/store-versions.ts';
import { keystoneUserKind, type OrderRef } from '../order/names.ts';
import { planeFacts, type PlaneFacts } from './plane.ts';

export interface PassContext {
  readonly order: KeystoneUser;
  readonly ref: OrderRef;
  readonly cp: ControlPlane;
  readonly plane: PlaneFacts;
  /** The management cluster's client: every child but the delivered Secret lives there. */
  readonly management: Client;
  /** The order's cluster's client: the order, its status, finalizer and delivered Secret. */
  readonly orderClient: Client;
  readonly now: number;
  readonly randomBytes: (size: number) => Buffer;
  readonly log: Logger;
  /** The SecretStore version each cluster serves, as discovered. */
  readonly storeVersions: StoreVersions;
  /** The management cluster's cached Secrets of a namespace, once its cache has synced; undefined: ask the store. */
  readonly cachedSecrets?: ((namespace: string) => readonly Secret[] | undefined) | undefined;
}

export function orderRefOf(order: KeystoneUser, cluster: string): OrderRef {
  return { kind: keystoneUserKind, cluster, namespace: order.metadata.namespace ?? '', name: order.metadata.name };
}

/** spec.userName, or metadata.name when it is empty. */
export function effectiveUserName(order: KeystoneUser): string {
  const name = order.spec.userName;
  return name === undefined || name === '' ? order.metadata.name : name;
}

export function passContext(fields: Omit<PassContext, 'plane'>): PassContext {
  return { ...fields, plane: planeFacts(fields.cp) };
}
