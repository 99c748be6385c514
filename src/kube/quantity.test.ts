import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quantityBytes } from './quantity.ts';

describe('quantityBytes', () => {
  it('reads binary and decimal suffixes and exponents', () => {
    assert.equal(quantityBytes('10Gi'), 10 * 2 ** 30);
    assert.equal(quantityBytes('1500Mi'), 1500 * 2 ** 20);
    assert.equal(quantityBytes('1G'), 1e9);
    assert.equal(quantityBytes('512k'), 512_000);
    assert.equal(quantityBytes('1e3'), 1000);
    assert.equal(quantityBytes('1.5Ki'), 1536);
    assert.equal(quantityBytes(2 ** 31), 2 ** 31);
  });

  it('rounds a fraction of a unit to a whole number', () => {
    assert.equal(quantityBytes('1500m'), 2);
  });

  it('is undefined for anything else', () => {
    for (const bad of ['ten', '10GB', '', 'Gi', '1.2.3']) assert.equal(quantityBytes(bad), undefined, bad);
    assert.equal(quantityBytes(Number.NaN), undefined);
  });
});
