/**
 * The provisioner scaffold end to end over the embedded store, driven through the Identity controller with a
 * scripted provider: every outcome and error class to condition and requeue, finalizer order, no-churn writes,
 * and OpenStack's raw words kept out of status.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import type { EmbeddedStore } from '../../kube/embedded/store.ts';
import { ManualClock } from '../../util/clock.ts';
import { httpError } from '../../openstack/errors.ts';
import { identityType, type Identity } from '../apis/identity.ts';
import { labels } from '../apis/shared.ts';
import {
  INTERNAL_ERROR_MESSAGE,
  Outcome,
  REJECTED_MESSAGE,
  classify,
  ProviderError,
  QuotaExceededError,
  ResourceConflictError,
  ResourceConsistencyError,
  ResourceKind,
  ResourceNotFoundError,
  TransientError,
} from '../provider/index.ts';
import { messages } from './decide.ts';
import { identityProvisioner } from './identity.ts';
import { FINALIZER, ProviderRetryError, reconcileProvisioned } from './provisioner.ts';
import {
  FakeIdentityProvider,
  NAMESPACE,
  identityObject,
  lookupOf,
  openRegionStore,
  ownerLabels,
  passContext,
} from './testing/fakes.ts';
import { capturedLogger } from '../../runtime/testing/logger.ts';

const RAW = 'Quota exceeded for resource project: Requested 1, but already used 10 of 10 (req-3f2a)';

const stores: EmbeddedStore[] = [];
after(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

async function setup(identity: Identity = identityObject('id-1')) {
  const clock = new ManualClock();
  const store = await openRegionStore(clock);
  stores.push(store);
  await store.create(identityType, identity);
  const provider = new FakeIdentityProvider();
  const { log, lines } = capturedLogger();
  const req = { cluster: '', namespace: NAMESPACE, name: identity.metadata.name };
  const pass = (signal?: AbortSignal) =>
    reconcileProvisioned(
      store,
      identityProvisioner(store, lookupOf(provider)),
      req,
      passContext(clock, { log, ...(signal ? { signal } : {}) }),
    );
  const get = () => store.get(identityType, NAMESPACE, identity.metadata.name);
  const available = async () => findCondition((await get()).status?.conditions, 'Available');
  return { clock, store, provider, lines, pass, get, available };
}

describe('provisioner scaffold: provisioning', () => {
  it('done: finalizer first, then the provider; Available True/Provisioned at the current generation', async () => {
    const { provider, pass, get, available } = await setup();
    let finalizersAtCall: readonly string[] | undefined;
    provider.creates.next(async () => {
      finalizersAtCall = (await get()).metadata.finalizers;
      return Outcome.ok();
    });
    assert.deepEqual(await pass(), {});
    assert.deepEqual(finalizersAtCall, [FINALIZER]);
    assert.deepEqual(provider.calls, ['create id-1']);
    const condition = await available();
    assert.equal(condition?.status, 'True');
    assert.equal(condition.reason, 'Provisioned');
    assert.equal(condition.observedGeneration, (await get()).metadata.generation);
  });

  it('yield: False/Provisioning and a 10 s requeue', async () => {
    const { provider, pass, available } = await setup();
    provider.creates.next(Outcome.yield('project-pending'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(
      { ...(await available()), lastTransitionTime: '' },
      {
        type: 'Available',
        status: 'False',
        reason: 'Provisioning',
        message: messages.provisioning,
        observedGeneration: 1,
        lastTransitionTime: '',
      },
    );
  });

  for (const kind of ['park', 'terminal'] as const) {
    it(`${kind}: False/Errored with the fixed message, no requeue; the cause only in the operator log`, async () => {
      const { provider, pass, available, lines } = await setup();
      const message = 'the requested roles do not exist in the cloud';
      provider.creates.next(Outcome[kind]('Errored', message, new Error(RAW)));
      assert.deepEqual(await pass(), {});
      const condition = await available();
      assert.equal(condition?.reason, 'Errored');
      assert.equal(condition.message, message);
      assert.ok(
        lines.some((l) => l.includes('Quota exceeded')),
        'the operator log has the cause',
      );
    });
  }

  const errors = [
    new ResourceNotFoundError('create project: not found', { resource: ResourceKind.Identity, cause: new Error(RAW) }),
    new ResourceConflictError('create user: conflict', { resource: ResourceKind.Identity, cause: new Error(RAW) }),
    new ResourceConsistencyError('two projects', { resource: ResourceKind.Identity, cause: new Error(RAW) }),
    new TransientError('create project: 503', { cause: new Error(RAW) }),
    new QuotaExceededError('create project: Quota exceeded', 'project', { cause: new Error(RAW) }),
    new Error(RAW),
  ];
  for (const error of errors) {
    it(`${error.name}: Errored with the catalogue text, a cause-free retry error, raw text only in the log`, async () => {
      const { provider, pass, get, lines } = await setup();
      provider.creates.next(error);
      const failure = await pass().then(
        () => assert.fail('the pass should fail so the runtime backs off'),
        (e: unknown) => e,
      );
      assert.ok(failure instanceof ProviderRetryError);
      assert.equal(failure.cause, undefined);
      assert.ok(!failure.message.includes('Quota'));
      const stored = await get();
      const condition = findCondition(stored.status?.conditions, 'Available');
      assert.equal(condition?.reason, 'Errored');
      assert.equal(condition.message, 'userMessage' in error ? error.userMessage : INTERNAL_ERROR_MESSAGE);
      assert.ok(!JSON.stringify(stored.status).includes('Quota'), 'no raw OpenStack text in status');
      assert.ok(
        lines.some((l) => l.includes('Quota exceeded')),
        'the operator log has the cause',
      );
      const failed = lines
        .map((l) => JSON.parse(l) as { msg: string; level: string })
        .find((r) => r.msg === 'provision failed');
      // A refusal the tenant caused or that settles by itself (a quota, a dependency OpenStack does not list yet) is
      // normal operation (info); another classified failure is an expected retry (warn); an unclassified throw is a
      // bug (error).
      const expected =
        error instanceof QuotaExceededError || error instanceof ResourceNotFoundError
          ? 'info'
          : error instanceof ProviderError
            ? 'warn'
            : 'error';
      assert.equal(failed?.level, expected);
    });
  }

  it('an OpenStack answer classified by the provider: status shows catalogue text, the log the request', async () => {
    const answer = (status: number) =>
      httpError({
        serviceType: 'identity',
        method: 'POST',
        urlTemplate: '/v3/projects',
        status,
        requestID: 'req-7d1e',
        body: JSON.stringify({ error: { code: status, title: 'Conflict', message: RAW } }),
      });
    const { provider, pass, get, lines } = await setup();
    const conflict = classify(answer(409), { resource: ResourceKind.Identity, operation: 'create project' });
    assert.ok(conflict instanceof ResourceConflictError);
    provider.creates.next(conflict);
    await assert.rejects(pass(), ProviderRetryError);
    const rejected = classify(answer(400), { resource: ResourceKind.Identity, operation: 'create project' });
    assert.ok(!(rejected instanceof Error));
    provider.creates.next(rejected);
    assert.deepEqual(await pass(), {});
    const stored = await get();
    assert.equal(findCondition(stored.status?.conditions, 'Available')?.message, REJECTED_MESSAGE);
    assert.ok(!JSON.stringify(stored).includes('Quota'), 'no raw OpenStack text anywhere in the object');
    assert.ok(
      lines.some((l) => l.includes('req-7d1e') && l.includes('Quota exceeded')),
      'the operator log has it',
    );
  });

  it('an unknown region is a thrown not-found: Errored, backoff', async () => {
    const { pass, available } = await setup(identityObject('id-1', ownerLabels({ [labels.regionID]: 'elsewhere' })));
    await assert.rejects(pass(), ProviderRetryError);
    assert.equal((await available())?.message, 'provider resource not found');
  });

  it('a pass aborted by shutdown reads Cancelled', async () => {
    const { provider, pass, available } = await setup();
    const abort = new AbortController();
    provider.creates.next(() => {
      abort.abort(new Error('stopping'));
      return Promise.reject(new TransientError('aborted'));
    });
    await assert.rejects(pass(abort.signal), ProviderRetryError);
    assert.equal((await available())?.reason, 'Cancelled');
  });

  it('no status write when nothing changed', async () => {
    const { provider, pass, get } = await setup();
    await pass();
    const before = (await get()).metadata.resourceVersion;
    await pass();
    provider.creates.next(Outcome.yield('a'));
    await pass();
    const afterYield = (await get()).metadata.resourceVersion;
    assert.notEqual(afterYield, before, 'a changed condition is written');
    provider.creates.next(Outcome.yield('b'));
    await pass();
    assert.equal((await get()).metadata.resourceVersion, afterYield, 'an unchanged one is not');
    assert.equal(provider.calls.length, 4);
  });

  it('missing ownership labels: Errored, no finalizer, no provider call', async () => {
    const { provider, pass, get } = await setup(identityObject('id-1', { [labels.organization]: 'org-1' }));
    assert.deepEqual(await pass(), {});
    const stored = await get();
    assert.equal(findCondition(stored.status?.conditions, 'Available')?.message, messages.missingLabels);
    assert.equal(stored.metadata.finalizers, undefined);
    assert.deepEqual(provider.calls, []);
  });

  it('a paused resource is left alone', async () => {
    const { store, provider, pass, get } = await setup();
    const identity = await get();
    await store.update(identityType, { ...identity, spec: { ...identity.spec, pause: true } });
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, []);
  });

  it('a resource already gone is nothing to do', async () => {
    const { store, provider, pass } = await setup();
    await store.delete(identityType, NAMESPACE, 'id-1');
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, []);
  });
});

describe('provisioner scaffold: deprovisioning', () => {
  it('yield holds the finalizer (Deprovisioning, 10 s); done releases it and the object goes', async () => {
    const { store, provider, pass, get, available } = await setup();
    await pass();
    await store.delete(identityType, NAMESPACE, 'id-1');
    provider.deletes.next(Outcome.yield('project-deleting'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual((await get()).metadata.finalizers, [FINALIZER]);
    assert.equal((await available())?.reason, 'Deprovisioning');
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create id-1', 'delete id-1', 'delete id-1']);
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
  });

  it('a thrown error while deleting keeps the finalizer and backs off', async () => {
    const { store, provider, pass, get, available } = await setup();
    await pass();
    await store.delete(identityType, NAMESPACE, 'id-1');
    provider.deletes.next(new TransientError('delete project: 503', { cause: new Error(RAW) }));
    await assert.rejects(pass(), ProviderRetryError);
    assert.deepEqual((await get()).metadata.finalizers, [FINALIZER]);
    assert.equal((await available())?.message, 'the cloud provider is temporarily unavailable; retrying');
  });

  it('park while deleting: Errored, no requeue, finalizer kept', async () => {
    const { store, provider, pass, get } = await setup();
    await pass();
    await store.delete(identityType, NAMESPACE, 'id-1');
    provider.deletes.next(Outcome.park('Errored', 'the identity cannot be deleted as it is'));
    assert.deepEqual(await pass(), {});
    assert.deepEqual((await get()).metadata.finalizers, [FINALIZER]);
  });

  it('without our finalizer a deletion is not ours to hold: no provider call', async () => {
    const { store, provider, pass, get } = await setup();
    const identity = await get();
    await store.update(identityType, { ...identity, metadata: { ...identity.metadata, finalizers: ['other'] } });
    await store.delete(identityType, NAMESPACE, 'id-1');
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, []);
  });
});
