/**
 * provisionUser: UserReady in the six steps of docs/spec/keystoneuser-reconciler.md §User provisioning. Each step reads
 * what its decision needs (decide-provision.ts, the schedule in order/decide-schedule.ts) and performs the one action
 * the row names; the K-ORC User does the Keystone work.
 */
import { ignoreNotFound } from '../../kube/errors.ts';
import { builtin } from '../../kube/resource-type.ts';
import type { Result } from '../../runtime/types.ts';
import { korcUserType } from '../apis/korc.ts';
import { keystoneApplicationCredentialType } from '../apis/orders.ts';
import { isOrderChild, keystoneUserChildNames, passwordGenerationOf } from '../order/names.ts';
import { decideReservedName } from '../order/decide-reserved.ts';
import { shortestRequeue } from '../order/result.ts';
import {
  decidePasswordGeneration,
  heldRotationNote,
  nextPasswordRotation,
  scheduleRequeue,
  scheduleState,
  stampRotation,
  type GenerationDecision,
} from '../order/decide-schedule.ts';
import { childSelector } from '../order/sweep.ts';
import { assertOwnChild, deleteOwnChild, encodeData, ensureOrderChild, listOptional } from './children.ts';
import { getOptional } from '../../kube/client.ts';
import { PASSWORD_GENERATION_ANNOTATION, reasons, UNLATCHED_AT_ANNOTATION } from './constants.ts';
import type { StatusFields } from './status.ts';
import { effectiveUserName, type PassContext } from './pass-context.ts';
import { unlatch } from './unlatch.ts';
import {
  decideProbe,
  decideSecretStore,
  decideUserState,
  provisionedMessage,
  type StepEnd,
} from './decide-provision.ts';
import { defined } from '../../util/defined.ts';

export interface ProvisionOutcome extends StepEnd {
  readonly converged: boolean;
  /** Status fields this pass sets (userID, passwordGeneration, the rotation times). */
  readonly status: StatusFields;
}

const ended = (end: StepEnd, status: StatusFields = {}): ProvisionOutcome => ({
  ...end,
  converged: false,
  status,
});

export async function provisionUser(pass: PassContext): Promise<ProvisionOutcome> {
  const { order, ref, plane, management } = pass;
  const userName = effectiveUserName(order);
  const names = keystoneUserChildNames(ref);

  // 1. A name the ControlPlane creates in its admin domain itself is never provisioned.
  const reserved = decideReservedName({
    userName,
    adminUserName: plane.adminUserName,
    adminDomainName: plane.adminDomainName,
  });
  if (reserved.row === 'ReservedName') {
    return ended({ row: 'P1-ReservedName', condition: { status: 'False', ...reserved }, result: {} });
  }

  // 2. The secret store must be ready, or the password could not be backed up; its version is discovered.
  const { kind, name } = plane.store;
  const store = await pass.storeVersions.read(management, kind, plane.namespace, name);
  const storeEnd = decideSecretStore(
    { ...plane.store, namespace: plane.namespace },
    store.kind === 'unserved' ? 'unserved' : store.kind === 'found' ? store.store.status?.conditions : undefined,
  );
  if (storeEnd !== undefined) return ended(storeEnd);

  // 3. The collision probe, dropped once the managed User exists.
  const existing = await getOptional(management, korcUserType, plane.namespace, names.user);
  assertOwnChild(ref, korcUserType, existing);
  if (existing !== undefined) {
    await deleteOwnChild(management, korcUserType, ref, plane.namespace, names.probe);
  } else {
    const probe = await ensureOrderChild(management, korcUserType, ref, {
      apiVersion: 'openstack.k-orc.cloud/v1alpha1',
      kind: 'User',
      metadata: { name: names.probe, namespace: plane.namespace },
      spec: {
        managementPolicy: 'unmanaged',
        cloudCredentialsRef: plane.probeCredentials,
        import: { filter: { name: userName, domainRef: plane.domainRef } },
      },
    });
    const probed = decideProbe(probe, { userName, domainName: plane.adminDomainName, external: plane.external });
    if (probed.row !== 'P3-ProbeAbsent') return ended(probed);
    await deleteOwnChild(management, korcUserType, ref, plane.namespace, names.probe);
  }

  // 4. The password schedule, its hold and its anchor.
  const interval = order.spec.rotation?.interval;
  const status = order.status ?? {};
  const schedule = scheduleState(interval, status.lastPasswordRotation, pass.now);
  const pointedRef = existing?.spec.resource?.passwordRef;
  const genInput = {
    specGeneration: order.spec.passwordGeneration,
    statusGeneration: status.passwordGeneration,
    pointedGeneration: pointedRef === undefined ? undefined : passwordGenerationOf(ref, pointedRef),
    schedule,
  };
  let decision: GenerationDecision = decidePasswordGeneration({ ...genInput, deletingCredentials: undefined });
  if (decision.row === 'CheckHolds') {
    const credentials = await listOptional(pass.orderClient, keystoneApplicationCredentialType, ref.namespace);
    const deleting = credentials
      .filter((c) => c.spec.userRef.name === ref.name && c.metadata.deletionTimestamp !== undefined)
      .map((c) => c.metadata.name);
    decision = decidePasswordGeneration({ ...genInput, deletingCredentials: deleting });
  }
  if (decision.row === 'CheckHolds') throw new Error('the schedule asked for its holds twice');
  const generation = decision.generation;
  pass.log.debug({ row: decision.row, generation }, 'password generation');

  // 5. The managed User, pointing at the password Secret of the generation.
  const passwordName = names.password(generation);
  const password = await getOptional(management, builtin.secret, plane.namespace, passwordName);
  assertOwnChild(ref, builtin.secret, password);
  if (password === undefined) {
    await ensureOrderChild(management, builtin.secret, ref, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: passwordName, namespace: plane.namespace },
      type: 'Opaque',
      data: encodeData({ password: pass.randomBytes(32).toString('base64url') }),
    });
  }
  const repointed = pointedRef !== passwordName;
  const user = await ensureOrderChild(management, korcUserType, ref, {
    apiVersion: 'openstack.k-orc.cloud/v1alpha1',
    kind: 'User',
    metadata: {
      name: names.user,
      namespace: plane.namespace,
      annotations: { [PASSWORD_GENERATION_ANNOTATION]: String(generation) },
    },
    spec: {
      managementPolicy: 'managed',
      cloudCredentialsRef: plane.managedCredentials,
      resource: { name: userName, domainRef: plane.domainRef, passwordRef: passwordName },
    },
  });
  // Generations start at 1: below the first there is nothing to delete, and no list of the namespace's Secrets.
  if (generation > 1 && user.status?.resource?.appliedPasswordRef === passwordName) {
    await deleteSuperseded(pass, generation);
  }

  // 6. What K-ORC reports on the User.
  const stamp = stampRotation({
    repointed,
    newlyApplied: false,
    lastPasswordRotation: status.lastPasswordRotation,
    now: pass.now,
  });
  const reached: StatusFields = {
    ...defined({ userID: user.status?.id }),
  };
  const state = decideUserState({
    user,
    passwordRef: passwordName,
    generation,
    external: plane.external,
    now: pass.now,
    lastUnlatched: user.metadata.annotations?.[UNLATCHED_AT_ANNOTATION],
  });
  const note = decision.row === 'Held' ? heldRotationNote(decision.holders, ref.namespace) : '';
  const held: Result = decision.row === 'Held' ? scheduleRequeue(decision, undefined, pass.now) : {};
  const times = (last: string) => ({
    lastPasswordRotation: last,
    nextPasswordRotation: nextPasswordRotation(interval, last) ?? null,
  });
  if (state.row === 'P6-Unlatch') {
    const end = await unlatch(pass, user);
    return ended(
      { ...end, result: shortestRequeue(end.result, held) },
      { ...reached, ...times(stamp.lastPasswordRotation) },
    );
  }
  if (state.row !== 'P6-Provisioned') {
    const end = { ...state, condition: { ...state.condition, message: state.condition.message + note } };
    return ended(
      { ...end, result: shortestRequeue(end.result, held) },
      { ...reached, ...times(stamp.lastPasswordRotation) },
    );
  }
  const applied = stampRotation({
    repointed,
    newlyApplied: generation > (status.passwordGeneration ?? 0),
    lastPasswordRotation: status.lastPasswordRotation,
    now: pass.now,
  });
  const next = nextPasswordRotation(interval, applied.lastPasswordRotation);
  return {
    row: 'P6-Provisioned',
    converged: true,
    condition: {
      status: 'True',
      reason: reasons.userProvisioned,
      message: provisionedMessage(userName, plane.adminDomainName, generation) + note,
    },
    result: scheduleRequeue(decision, next, pass.now),
    status: { ...reached, passwordGeneration: generation, ...times(applied.lastPasswordRotation) },
  };
}

/**
 * Deletes the order's password Secrets of generations below the one K-ORC has applied. They are found in the
 * manager's cache when there is one, as controller-runtime's client reads: the store would read (and decrypt) every
 * Secret of the namespace on every pass. One the cache has not seen yet wakes the order when it does.
 */
async function deleteSuperseded(pass: PassContext, generation: number): Promise<void> {
  const { management, ref, plane } = pass;
  const secrets =
    pass.cachedSecrets?.(plane.namespace) ??
    (await management.list(builtin.secret, { namespace: plane.namespace, labelSelector: childSelector(ref) })).items;
  for (const secret of secrets) {
    const g = passwordGenerationOf(ref, secret.metadata.name);
    if (g === undefined || g >= generation || !isOrderChild(ref, secret)) continue;
    await ignoreNotFound(management.delete(builtin.secret, plane.namespace, secret.metadata.name));
  }
}
