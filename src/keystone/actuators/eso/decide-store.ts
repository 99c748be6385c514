/**
 * SecretStore validation as ESO's store controller does it, for the stores the bundled actuator serves: a store is
 * Ready once its provider is one this actuator can use and its token is accepted. The KeystoneUser reconciler
 * gates on that readiness (SecretStoreNotReady), so without a real ESO nothing else would set it.
 */
import type { Condition } from '../../../kube/object.ts';
import { setCondition } from '../../../kube/conditions.ts';
import type { SecretStore } from '../../apis/eso.ts';

/** ESO revalidates a store every five minutes. */
export const STORE_REVALIDATE_MS = 300_000;
/**
 * A KV that is not answering yet (not listening, sealed, starting: no answer or a 5xx) is looked at again this soon:
 * at start the store and its server come up together, and five minutes of SecretStoreNotReady would hold every order.
 */
export const STORE_RETRY_MS = 5_000;

export type StoreCheck =
  | { readonly kind: 'valid' }
  /** The provider block is not one this actuator serves (or its token Secret is missing). */
  | { readonly kind: 'invalid-config'; readonly detail: string }
  /** The server refused the token. */
  | { readonly kind: 'validation-failed'; readonly detail: string }
  /** The server could not be reached, or answered that it cannot serve now (5xx): transient. */
  | { readonly kind: 'unreachable'; readonly detail: string };

type StoreRow =
  | { readonly row: 'S1-valid'; readonly reason: 'Valid'; readonly message: 'store validated' }
  | {
      readonly row: 'S2-invalid-config';
      readonly reason: 'InvalidProviderConfig';
      readonly message: 'unable to validate store';
    }
  | {
      readonly row: 'S3-validation-failed' | 'S3′-unreachable';
      readonly reason: 'ValidationFailed';
      readonly message: 'unable to validate store';
    };

type StoreDecision = StoreRow & {
  /** When to validate again: ESO's five minutes, or soon while the server is not answering. */
  readonly requeueAfterMs: number;
};

/** The row for a check; an unreachable server reads as ESO's ValidationFailed, but is retried soon. */
export function decideStore(check: StoreCheck): StoreDecision {
  const revalidate = STORE_REVALIDATE_MS;
  switch (check.kind) {
    case 'valid':
      return { row: 'S1-valid', reason: 'Valid', message: 'store validated', requeueAfterMs: revalidate };
    case 'invalid-config':
      return {
        row: 'S2-invalid-config',
        reason: 'InvalidProviderConfig',
        message: 'unable to validate store',
        requeueAfterMs: revalidate,
      };
    case 'validation-failed':
      return {
        row: 'S3-validation-failed',
        reason: 'ValidationFailed',
        message: 'unable to validate store',
        requeueAfterMs: revalidate,
      };
    case 'unreachable':
      return {
        row: 'S3′-unreachable',
        reason: 'ValidationFailed',
        message: 'unable to validate store',
        requeueAfterMs: STORE_RETRY_MS,
      };
  }
}

/** The store's status after a check: Ready with the row's reason, and the capabilities ESO reports for Vault. */
export function storeStatus(
  store: SecretStore,
  decision: StoreDecision,
  now: number,
): NonNullable<SecretStore['status']> {
  const conditions: Omit<Condition, 'observedGeneration'>[] = setCondition(
    store.status?.conditions,
    {
      type: 'Ready',
      status: decision.row === 'S1-valid' ? 'True' : 'False',
      reason: decision.reason,
      message: decision.message,
    },
    new Date(now),
  );
  return { ...store.status, conditions, capabilities: 'ReadWrite' };
}
