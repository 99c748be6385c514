import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../util/clock.ts';
import { KubeInvalidError } from '../errors.ts';
import { builtin } from '../resource-type.ts';
import { openEmbeddedStore } from './store.ts';

describe('label values, as kube-apiserver checks them', () => {
  it('refuses a value with whitespace around it, one too long, and one with odd characters; takes the rest', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock() });
    try {
      const configMap = (name: string, value: string) =>
        store.create(builtin.configMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: 'default', labels: { 'example.com/v': value } },
        });
      // Twice: the second time the judgement is remembered, and must be the same.
      for (const round of ['', '-again']) {
        for (const [i, value] of ['x\n', ' x', 'x\t', 'a'.repeat(64), 'a b', '-x', 'x_'].entries()) {
          await assert.rejects(configMap(`bad-${String(i)}${round}`, value), KubeInvalidError, JSON.stringify(value));
        }
        for (const [i, value] of ['', 'x', 'a'.repeat(63), 'A-b_c.9'].entries())
          await configMap(`ok-${String(i)}${round}`, value);
      }
    } finally {
      await store.close();
    }
  });
});
