import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration } from './duration.ts';

describe('Go durations, as metav1.Duration decodes rotation.interval', () => {
  it('parses the forms Go accepts', () => {
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('0s'), 0);
    assert.equal(parseGoDuration('720h'), 720 * 3_600_000);
    assert.equal(parseGoDuration('1h30m'), 90 * 60_000);
    assert.equal(parseGoDuration('1.5s'), 1500);
    assert.equal(parseGoDuration('.5m'), 30_000);
    assert.equal(parseGoDuration('500ms'), 500);
    assert.equal(parseGoDuration('-1m'), -60_000);
  });

  it('refuses what Go refuses', () => {
    for (const bad of ['', '1', 'h', '1d', '1h 30m', '.s', '+', '1.h2', 'abc']) {
      assert.equal(parseGoDuration(bad), undefined, bad);
    }
  });
});
