/**
 * deliverCredentials: DeliveryReady in the six steps of docs/spec/keystoneuser-reconciler.md §Credential delivery. The
 * password of the generation Keystone holds goes into a source Secret, is backed up to OpenBao by ESO through a
 * PushSecret, and is delivered beside the order by a forced server-side apply, which is also the repair of an edited or
 * deleted delivered Secret.
 */
import { controllerReference } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { pushSecretType } from '../apis/eso.ts';
import { deliveredSecretName, keystoneUserChildNames, orderLabelKeys, orderRemoteKey } from '../order/names.ts';
import { KORC_REQUEUE_AFTER_MS } from '../order/result.ts';
import { assertOwnChild, encodeData, ensureOrderChild, secretValue } from './children.ts';
import { getOptional } from '../../kube/client.ts';
import { DELIVERED_KEYS, FIELD_MANAGER, reasons } from './constants.ts';
import {
  buildUserCloudsYaml,
  deliveredMessage,
  deliveryRefused,
  NOT_PUBLISHED_MESSAGE,
  pushFresh,
  pushHash,
  pushStamp,
  refusedMessage,
  sourceSecretData,
} from './decide-delivery.ts';
import type { StatusFields } from './status.ts';
import { effectiveUserName, type PassContext } from './pass-context.ts';
import { resolveAuthUrl } from './plane.ts';
import type { StepEnd } from './decide-provision.ts';

export interface DeliveryOutcome extends StepEnd {
  readonly converged: boolean;
  readonly status: StatusFields;
}

const waiting = (row: string, reason: string, message: string, requeueAfterMs?: number): DeliveryOutcome => ({
  row,
  converged: false,
  condition: { status: 'False', reason, message },
  result: requeueAfterMs === undefined ? {} : { requeueAfterMs },
  status: {},
});

/** The remote key leaf of a KeystoneUser's backup. */
const REMOTE_KEY_LEAF = 'credentials';

export async function deliverCredentials(pass: PassContext, generation: number): Promise<DeliveryOutcome> {
  const { order, ref, plane, management } = pass;
  const names = keystoneUserChildNames(ref);

  // 1. The auth URL for the order's cluster.
  const auth = resolveAuthUrl(pass.cp, ref.cluster);
  if (auth.row === 'D1-NotPublished') return waiting(auth.row, reasons.keystoneNotPublished, NOT_PUBLISHED_MESSAGE);

  // 2. The password of the generation Keystone holds.
  const passwordSecret = await getOptional(management, builtin.secret, plane.namespace, names.password(generation));
  assertOwnChild(ref, builtin.secret, passwordSecret);
  const password = secretValue(passwordSecret, 'password');
  if (password === undefined || password === '') {
    return waiting(
      'D2-NoPassword',
      reasons.waitingForServiceAccounts,
      `the password of generation ${generation} is not available yet`,
      KORC_REQUEUE_AFTER_MS,
    );
  }

  // 3. The source Secret: the clouds.yaml without project keys, the password and the individual auth fields.
  const cloud = {
    cloudName: plane.cloudName,
    authUrl: auth.url,
    userName: effectiveUserName(order),
    password,
    userDomainName: plane.adminDomainName,
    region: plane.region,
    endpointType: auth.endpointType,
  };
  const cloudsYaml = buildUserCloudsYaml(cloud);
  await ensureOrderChild(management, builtin.secret, ref, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names.source, namespace: plane.namespace },
    type: 'Opaque',
    data: encodeData(sourceSecretData(cloud, cloudsYaml)),
  });

  // 4. The PushSecret, stamped with the document's hash; fresh only once ESO pushed since the stamp.
  const hash = pushHash(cloudsYaml);
  const live = await getOptional(management, pushSecretType, plane.namespace, names.backup);
  const remoteKey = orderRemoteKey(plane.namespace, ref, REMOTE_KEY_LEAF);
  const pushed = await ensureOrderChild(management, pushSecretType, ref, {
    apiVersion: 'external-secrets.io/v1alpha1',
    kind: 'PushSecret',
    metadata: { name: names.backup, namespace: plane.namespace, annotations: pushStamp(live, hash) },
    spec: {
      deletionPolicy: 'Delete',
      secretStoreRefs: [{ name: plane.store.name, kind: plane.store.kind }],
      selector: { secret: { name: names.source } },
      // ESO's CRDs default conversionStrategy, and spec.data is an atomic list: applied without it, the list differs
      // from the stored one, which kube-apiserver before 1.24 answers with a write of the managedFields time alone,
      // a watch event, another pass and another apply, for as long as the passes are a second apart (ADR 0047).
      data: [{ match: { remoteRef: { remoteKey } }, conversionStrategy: 'None' }],
    },
  });
  if (!pushFresh(pushed, hash)) {
    return waiting(
      'D4-BackupNotSynced',
      reasons.backupNotSynced,
      `PushSecret ${JSON.stringify(names.backup)} has not yet backed up the current credentials to ${remoteKey}`,
      KORC_REQUEUE_AFTER_MS,
    );
  }

  // 5. The delivered Secret beside the order, after a live read that refuses one the order does not control.
  const secretName = deliveredSecretName(order.metadata.name);
  const delivered = await getOptional(pass.orderClient, builtin.secret, ref.namespace, secretName);
  if (deliveryRefused(delivered, order.metadata.uid)) {
    return waiting('D5-Refused', reasons.deliveryRefused, refusedMessage(secretName, ref.namespace, ref.cluster));
  }
  const keys = orderLabelKeys(ref.kind);
  const applied = await pass.orderClient.apply(
    builtin.secret,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secretName,
        namespace: ref.namespace,
        labels: { [keys.name]: ref.name, [keys.namespace]: ref.namespace },
        ownerReferences: [controllerReference(order)],
      },
      type: 'Opaque',
      data: encodeData({ 'clouds.yaml': cloudsYaml, password }),
    },
    { fieldManager: FIELD_MANAGER, force: true },
  );

  // 6. The apply response carries the password, or the delivery is not done.
  if (secretValue(applied, 'password') !== password) {
    return waiting(
      'D6-NotApplied',
      reasons.waitingForServiceAccounts,
      `the delivered Secret ${JSON.stringify(secretName)} does not hold the current password yet`,
      KORC_REQUEUE_AFTER_MS,
    );
  }
  return {
    row: 'D6-Delivered',
    converged: true,
    condition: {
      status: 'True',
      reason: reasons.delivered,
      message: deliveredMessage(secretName, ref.namespace, ref.cluster),
    },
    result: {},
    status: { secretName, secretKeys: [...DELIVERED_KEYS] },
  };
}
