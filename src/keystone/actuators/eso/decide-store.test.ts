import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SecretStore } from '../../apis/eso.ts';
import { decideStore, STORE_RETRY_MS, STORE_REVALIDATE_MS, storeStatus } from './decide-store.ts';

const NOW = Date.UTC(2026, 0, 1, 12);
const store: SecretStore = {
  apiVersion: 'external-secrets.io/v1',
  kind: 'SecretStore',
  metadata: { name: 's', namespace: 'ns' },
  spec: { provider: { vault: {} } },
};

describe('SecretStore validation rows', () => {
  it('S1-valid: Ready True, Valid, "store validated", ReadWrite', () => {
    const decision = decideStore({ kind: 'valid' });
    assert.equal(decision.row, 'S1-valid');
    assert.deepEqual(storeStatus(store, decision, NOW), {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Valid',
          message: 'store validated',
          lastTransitionTime: '2026-01-01T12:00:00Z',
        },
      ],
      capabilities: 'ReadWrite',
    });
  });

  it('S2-invalid-config and S3-validation-failed: Ready False with ESO reasons and a cause-neutral message', () => {
    const invalid = decideStore({ kind: 'invalid-config', detail: 'only the vault provider is supported' });
    const failed = decideStore({ kind: 'validation-failed', detail: 'HTTP 403' });
    assert.deepEqual(
      [invalid.row, invalid.reason, invalid.message],
      ['S2-invalid-config', 'InvalidProviderConfig', 'unable to validate store'],
    );
    assert.deepEqual([failed.row, failed.reason], ['S3-validation-failed', 'ValidationFailed']);
    assert.equal(storeStatus(store, failed, NOW).conditions?.[0]?.status, 'False');
  });

  it("S3′-unreachable: ESO's ValidationFailed, but looked at again soon rather than in five minutes", () => {
    const unreachable = decideStore({ kind: 'unreachable', detail: 'connect ECONNREFUSED' });
    assert.deepEqual(
      [unreachable.row, unreachable.reason, unreachable.message, unreachable.requeueAfterMs],
      ['S3′-unreachable', 'ValidationFailed', 'unable to validate store', STORE_RETRY_MS],
    );
    assert.equal(storeStatus(store, unreachable, NOW).conditions?.[0]?.status, 'False');
    for (const kind of ['valid', 'invalid-config', 'validation-failed'] as const) {
      assert.equal(decideStore({ kind, detail: '' }).requeueAfterMs, STORE_REVALIDATE_MS, kind);
    }
  });

  it('a repeated result keeps lastTransitionTime', () => {
    const first = { ...store, status: storeStatus(store, decideStore({ kind: 'valid' }), NOW) };
    const again = storeStatus(first, decideStore({ kind: 'valid' }), NOW + 300_000);
    assert.equal(again.conditions?.[0]?.lastTransitionTime, '2026-01-01T12:00:00Z');
  });
});
