/**
 * The KeystoneUser pass: resolve the order's cluster, read the order, tear it down or run the gates, provision the
 * user, deliver its credentials, and write the status through the order's cluster. It records no Events: the
 * management cluster's recorder would write them into a namespace of the wrong cluster for a target's order.
 */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { getOptional, type Client } from '../../kube/client.ts';
import type { ConditionInput } from '../../kube/conditions.ts';
import type { Instrumenter } from '../../runtime/metrics.ts';
import type { ReconcileContext, Reconciler, Request, Result } from '../../runtime/types.ts';
import { controlPlaneType, type ControlPlane } from '../apis/controlplane.ts';
import { keystoneUserType, ROTATION_INTERVAL_BOUNDS } from '../apis/keystoneuser.ts';
import { StoreVersions } from '../apis/store-versions.ts';
import {
  clusterNameGate,
  decideAdmission,
  gateConditions,
  resolveControlPlaneRef,
  type GateDecision,
} from '../order/decide-admission.ts';
import { passResult } from '../order/result.ts';
import { ForeignObjectError } from './children.ts';
import {
  CONDITION_DELIVERY_READY,
  CONDITION_USER_READY,
  FIELD_MANAGER,
  KEYSTONE_USER_FINALIZER,
  ORDER_CONDITION_TYPES,
  reasons,
  SUB_RECONCILER_DELIVERY,
  SUB_RECONCILER_PROVISION,
  truncateMessage,
} from './constants.ts';
import { deliverCredentials, type DeliveryOutcome } from './delivery.ts';
import { orderRefOf, passContext, type PassContext } from './pass-context.ts';
import { provisionUser, type ProvisionOutcome } from './provision.ts';
import { nextStatus, sameStatus, type StatusFields } from './status.ts';
import { ignoreRows, type RowObserver, type Step } from './rows.ts';
import { reconcileDelete } from './teardown.ts';

export interface KeystoneUserReconcilerDeps {
  /** The management cluster's client. */
  readonly management: Client;
  /** A request's cluster name to that cluster's client; '' is the management cluster. */
  readonly resolve: (cluster: string) => Client | undefined;
  readonly instrumenter: Instrumenter;
  /** The clock the password schedule reads; the pass's clock when absent (upstream's Now field). */
  readonly now?: (() => number) | undefined;
  /** The source of new passwords. */
  readonly randomBytes?: ((size: number) => Buffer) | undefined;
  /** Told the row each step of a pass took. */
  readonly rows?: RowObserver | undefined;
  /** Remembers the SecretStore version each cluster serves; a fresh one (no memory) when absent. */
  readonly storeVersions?: StoreVersions | undefined;
  /** The management cluster's cached Secrets (the manager's cache), for the sweep of superseded passwords. */
  readonly cachedSecrets?: PassContext['cachedSecrets'];
}

export const NOT_PROVISIONED_MESSAGE = 'the user is not provisioned yet; nothing is delivered';

export function keystoneUserReconciler(deps: KeystoneUserReconcilerDeps): Reconciler {
  const withMemory = { ...deps, storeVersions: deps.storeVersions ?? new StoreVersions() };
  return (req, ctx) => reconcileKeystoneUser(withMemory, req, ctx);
}

export async function reconcileKeystoneUser(
  deps: KeystoneUserReconcilerDeps,
  req: Request,
  ctx: ReconcileContext,
): Promise<Result> {
  const orderClient = deps.resolve(req.cluster);
  if (orderClient === undefined) {
    // Deregistered between the event and the pass: nothing can be read there.
    ctx.log.info({ cluster: req.cluster }, 'the order\u2019s cluster does not resolve; skipped');
    return {};
  }
  const order = await getOptional(orderClient, keystoneUserType, req.namespace, req.name);
  if (order === undefined) return {};
  const now = deps.now?.() ?? ctx.clock.now();
  const row = (step: Step, taken: string) => {
    ctx.log.debug({ step, row: taken }, 'decision');
    (deps.rows ?? ignoreRows)(step, taken);
  };
  const ref = orderRefOf(order, req.cluster);
  const controlPlaneKey = resolveControlPlaneRef(ref.namespace, order.spec.controlPlaneRef);
  if (order.metadata.deletionTimestamp !== undefined) {
    return reconcileDelete({ order, ref, controlPlaneKey, management: deps.management, orderClient, now }, ctx, (r) => {
      row('teardown', r);
    });
  }
  const generation = order.metadata.generation;
  /** Writes the status when it changed; true when it did. */
  const writeStatus = async (conditions: readonly ConditionInput[], fields: StatusFields): Promise<boolean> => {
    const status = nextStatus(order.status, conditions, fields, generation, now);
    if (sameStatus(order.status, status)) return false;
    await orderClient.update(
      keystoneUserType,
      { ...order, status },
      { subresource: 'status', fieldManager: FIELD_MANAGER },
    );
    return true;
  };
  /** A condition that changed as an Event naming the row that decided it (`describe` shows the order's trail). */
  const eventChanged = async (condition: ConditionInput, row: string) => {
    const before = order.status?.conditions?.find((c) => c.type === condition.type);
    if (
      before?.status === condition.status &&
      before.reason === condition.reason &&
      before.message === condition.message
    )
      return;
    const warning = row === 'Error' || /Error|Failed|Invalid/.test(condition.reason);
    await ctx.events?.record(
      order,
      warning ? 'Warning' : 'Normal',
      condition.reason,
      `${condition.message} (row ${row})`,
    );
  };
  const gateEnd = async (gate: GateDecision): Promise<Result> => {
    row('admission', gate.row);
    if (gate.row === 'Admitted') return {};
    if (gate.row === 'InstallFinalizer') {
      const finalizers = [...(order.metadata.finalizers ?? []), KEYSTONE_USER_FINALIZER];
      await orderClient.update(
        keystoneUserType,
        { ...order, metadata: { ...order.metadata, finalizers } },
        { fieldManager: FIELD_MANAGER },
      );
      return gate.result;
    }
    const conditions = gateConditions(ORDER_CONDITION_TYPES, gate.condition, generation);
    if (await writeStatus(conditions, {})) {
      const [first] = conditions;
      if (first !== undefined) await eventChanged(first, `admission:${gate.row}`);
    }
    return gate.result;
  };

  const early = clusterNameGate(ref);
  if (early !== undefined) return gateEnd(early);
  let cp: ControlPlane | undefined;
  try {
    cp = await getOptional(deps.management, controlPlaneType, controlPlaneKey.namespace, controlPlaneKey.name);
  } catch (error) {
    throw new Error(`fetching ControlPlane ${controlPlaneKey.namespace}/${controlPlaneKey.name}: ${String(error)}`, {
      cause: error,
    });
  }
  const gate = decideAdmission({
    order: ref,
    controlPlaneKey,
    controlPlane: cp,
    hasFinalizer: (order.metadata.finalizers ?? []).includes(KEYSTONE_USER_FINALIZER),
    durations: [{ value: order.spec.rotation?.interval, bounds: ROTATION_INTERVAL_BOUNDS }],
  });
  if (gate.row !== 'Admitted' || cp === undefined) return gateEnd(gate);
  row('admission', gate.row);

  const pass = passContext({
    order,
    ref,
    cp,
    management: deps.management,
    orderClient,
    now,
    randomBytes: deps.randomBytes ?? nodeRandomBytes,
    log: ctx.log,
    storeVersions: deps.storeVersions ?? new StoreVersions(),
    cachedSecrets: deps.cachedSecrets,
  });
  const failures: unknown[] = [];
  const provision = await deps.instrumenter
    .instrument(SUB_RECONCILER_PROVISION, () => provisionUser(pass))
    .catch((error: unknown): ProvisionOutcome => {
      if (!(error instanceof ForeignObjectError)) failures.push(error);
      return failedStep(reasons.serviceAccountError, error);
    });
  row('provision', provision.row);
  let delivery: DeliveryOutcome;
  if (!provision.converged) {
    delivery = {
      row: 'D0-NotProvisioned',
      converged: false,
      condition: { status: 'False', reason: reasons.waitingForServiceAccounts, message: NOT_PROVISIONED_MESSAGE },
      result: {},
      status: {},
    };
    row('delivery', delivery.row);
  } else {
    const gen = provision.status.passwordGeneration ?? order.status?.passwordGeneration ?? 1;
    delivery = await deps.instrumenter
      .instrument(SUB_RECONCILER_DELIVERY, () => deliverCredentials(pass, gen))
      .catch((error: unknown): DeliveryOutcome => {
        if (!(error instanceof ForeignObjectError)) failures.push(error);
        return failedStep(reasons.deliveryError, error);
      });
    row('delivery', delivery.row);
  }
  const conditions: ConditionInput[] = [
    { type: CONDITION_USER_READY, ...provision.condition, ...observed(generation) },
    { type: CONDITION_DELIVERY_READY, ...delivery.condition, ...observed(generation) },
  ];
  try {
    if (await writeStatus(conditions, { ...provision.status, ...delivery.status })) {
      const [user, delivered] = conditions;
      if (user !== undefined) await eventChanged(user, `provision:${provision.row}`);
      if (delivered !== undefined) await eventChanged(delivered, `delivery:${delivery.row}`);
    }
  } catch (error) {
    failures.push(error);
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, 'the KeystoneUser pass failed');
  return passResult(ref.cluster, delivery.converged, [provision.result, delivery.result]);
}

const observed = (generation: number | undefined) =>
  generation === undefined ? {} : { observedGeneration: generation };

/** A step that threw: its condition says so with the error's text (API errors, never a secret). */
function failedStep(reason: string, error: unknown): ProvisionOutcome & DeliveryOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    row: 'Error',
    converged: false,
    condition: { status: 'False', reason, message: truncateMessage(message) },
    result: {},
    status: {},
  };
}
