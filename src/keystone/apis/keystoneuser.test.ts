/**
 * The KeystoneUser admission corpus and the rules' properties against the embedded store, which binds
 * `self.metadata` for root CEL rules and escapes reserved property names as kube-apiserver does.
 * test/kube/keystone-admission.test.ts holds a real kube-apiserver to the same corpus.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openEmbeddedStore, type EmbeddedStore } from '../../kube/embedded/store.ts';
import { KubeInvalidError } from '../../kube/errors.ts';
import { builtin } from '../../kube/resource-type.ts';
import { ManualClock } from '../../util/clock.ts';
import {
  invalidKeystoneUsers,
  keystoneUser,
  rejectionMismatch,
  validKeystoneUsers,
  writeCase,
} from './testing/admission-corpus.ts';
import { keystoneUserCrd, keystoneUserMessages, keystoneUserType } from './keystoneuser.ts';

const NS = 'tenant-a';

let store: EmbeddedStore;
before(async () => {
  store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
  await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await store.create(builtin.customResourceDefinition, keystoneUserCrd());
});
after(() => store.close());

describe('KeystoneUser admission corpus in the embedded store', () => {
  it('has 17 invalid orders, one per rule, with distinct names, and 7 valid ones', () => {
    const cases = invalidKeystoneUsers(NS);
    assert.equal(cases.length, 17);
    assert.equal(new Set(cases.map((c) => c.object.metadata.name)).size, cases.length);
    assert.equal(new Set(cases.map((c) => c.rule)).size, cases.length);
    assert.equal(validKeystoneUsers(NS).length, 7);
  });
  for (const c of invalidKeystoneUsers(NS)) {
    it(`rejects ${c.id}: ${c.rule}`, async () => {
      const error = await writeCase(store, c, keystoneUserType).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.equal(rejectionMismatch(error, c), undefined);
    });
  }
  for (const v of validKeystoneUsers(NS)) {
    it(`accepts and defaults: ${v.id}`, async () => {
      assert.deepEqual((await writeCase(store, v, keystoneUserType)).spec, v.stored);
    });
  }
});

describe('KeystoneUser rules as properties', () => {
  let n = 0;
  it('userName: any 1..255 characters without a comma are admitted; a comma anywhere is refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 255, unit: 'grapheme-ascii' }), async (userName) => {
        const write = store.create(keystoneUserType, keystoneUser(NS, `p${++n}`, { userName }));
        if (userName.includes(',')) await assert.rejects(write, KubeInvalidError);
        else await write;
      }),
    );
  });

  it('passwordGeneration: an update from a to b is admitted exactly when b ≥ a', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1e9 }), fc.integer({ min: 1, max: 1e9 }), async (a, b) => {
        const name = `gen-${++n}`;
        const c = {
          base: keystoneUser(NS, name, { passwordGeneration: a }),
          object: keystoneUser(NS, name, { passwordGeneration: b }),
        };
        const error = await writeCase(store, c, keystoneUserType).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (b >= a) assert.equal(error, undefined);
        else assert.ok(error instanceof KubeInvalidError && hasMessage(error), String(error));
      }),
    );
  });
});

const hasMessage = (error: KubeInvalidError): boolean =>
  error.causes.some((c) => c.message === keystoneUserMessages.passwordGenerationDecrease);
