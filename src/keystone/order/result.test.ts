import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { orderPassResult, passResult, shortestRequeue } from './result.ts';

describe('Gates, freeze, mappers, teardown, the hold: the pass result', () => {
  it('a converged order on the management cluster waits for its timer or an event', () => {
    assert.deepEqual(orderPassResult('', true), { row: 'converged-on-management', result: {} });
    assert.deepEqual(passResult('', true, [{}, {}]), {});
    assert.deepEqual(passResult('', true, [{ requeueAfterMs: 86_400_000 }]), { requeueAfterMs: 86_400_000 });
  });

  it('RefusalComesBackOnTheRefresh: every other order returns after 10 minutes at the latest', () => {
    assert.deepEqual(orderPassResult('edge-1', true), { row: 'refresh', result: { requeueAfterMs: 600_000 } });
    assert.deepEqual(orderPassResult('', false).row, 'refresh');
    assert.deepEqual(passResult('edge-1', true, [{ requeueAfterMs: 86_400_000 }]), { requeueAfterMs: 600_000 });
    assert.deepEqual(passResult('', false, [{}]), { requeueAfterMs: 600_000 });
  });

  it('the pass keeps the shorter of the steps\u2019 requeues (a held rotation\u2019s minute, K-ORC\u2019s 10 s)', () => {
    assert.deepEqual(passResult('', true, [{ requeueAfterMs: 60_000 }, { requeueAfterMs: 10_000 }]), {
      requeueAfterMs: 10_000,
    });
  });

  it('shortestRequeue is the minimum of the non-zero requeues, {} when none', () => {
    const result = fc
      .option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined })
      .map((ms) => (ms === undefined ? {} : { requeueAfterMs: ms }));
    fc.assert(
      fc.property(fc.array(result), (results) => {
        const delays = results.flatMap((r) =>
          r.requeueAfterMs !== undefined && r.requeueAfterMs > 0 ? [r.requeueAfterMs] : [],
        );
        assert.deepEqual(
          shortestRequeue(...results),
          delays.length === 0 ? {} : { requeueAfterMs: Math.min(...delays) },
        );
      }),
    );
  });
});
