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

export type StoreCheck =
  | { readonly kind: 'valid' }
  /** The provider block is not one this actuator serves (or its token Secret is missing). */
  | { readonly kind: 'invalid-config'; readonly detail: string }
  /** The server refused the token or could not be reached. */
  | { readonly kind: 'validation-failed'; readonly detail: string };

type StoreDecision =
  | { readonly row: 'S1-valid'; readonly reason: 'Valid'; readonly message: 'store validated' }
  | {
      readonly row: 'S2-invalid-config';
      readonly reason: 'InvalidProviderConfig';
      readonly message: 'unable to validate store';
    }
  | {
      readonly row: 'S3-validation-failed';
      readonly reason: 'ValidationFailed';
      readonly message: 'unable to validate store';
    };

export function decideStore(check: StoreCheck): StoreDecision {
  switch (check.kind) {
    case 'valid':
      return { row: 'S1-valid', reason: 'Valid', message: 'store validated' };
    case 'invalid-config':
      return { row: 'S2-invalid-config', reason: 'InvalidProviderConfig', message: 'unable to validate store' };
    case 'validation-failed':
      return { row: 'S3-validation-failed', reason: 'ValidationFailed', message: 'unable to validate store' };
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
