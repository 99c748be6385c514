import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seriesOf, type Sample } from './trends.ts';

const sample = (queueDepth: number, errors: number, requests: number, latency: number): Sample => ({
  queueDepth,
  errors,
  openstackRequests: requests,
  openstackErrors: errors,
  openstackLatencySeconds: latency,
});

describe("the operator view's trends", () => {
  it('turn counters into changes per read and the latency sum into the mean of the calls in each interval', () => {
    const series = seriesOf([sample(3, 0, 10, 1), sample(5, 2, 14, 2), sample(0, 2, 14, 2), sample(1, 0, 1, 0.1)]);
    assert.deepEqual(series.queueDepth, [3, 5, 0, 1]);
    assert.deepEqual(series.errors, [2, 0, 0], 'a counter reset (a restart) reads as 0');
    assert.deepEqual(series.openstackLatencyMs, [250, 0, 0], '1 s over 4 calls; no calls is 0');
  });
});
