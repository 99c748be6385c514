import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keystoneUserType, type KeystoneUser } from '../apis/keystoneuser.ts';
import { korcUserType } from '../apis/korc.ts';
import { keystoneApplicationCredentialType } from '../apis/orders.ts';
import { CONDITION_USER_READY } from './constants.ts';
import { CP_NS, userFixture, NAME, NS, type UserFixture } from './testing/fixture.ts';

const HOUR = 3_600_000;
const userReady = (h: UserFixture) => h.condition(CONDITION_USER_READY);
const managedUser = (h: UserFixture) => h.management.get(korcUserType, CP_NS, h.names.user);

async function edit(h: UserFixture, change: (o: KeystoneUser) => KeystoneUser): Promise<void> {
  await h.orderClient.update(keystoneUserType, change(await h.order()));
}

async function credentialOrder(h: UserFixture, name: string, deleting: boolean): Promise<void> {
  await h.orderClient.create(keystoneApplicationCredentialType, {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'KeystoneApplicationCredential',
    metadata: { name, namespace: NS, ...(deleting ? { deletionTimestamp: '2026-06-01T00:00:00Z' } : {}) },
    spec: { controlPlaneRef: { name: 'cp' }, userRef: { name: NAME }, projectRef: { name: 'p' } },
  });
}

describe('The password schedule, the hold and the anchor', () => {
  it('the schedule rotates once due; the credential orders are listed only then', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '1h' } });
    assert.equal((await h.converge()).requeueAfterMs, HOUR);
    h.fakes.management.calls.length = 0;
    h.clock.advance(HOUR - 1000);
    await h.pass();
    assert.ok(!h.fakes.management.calls.includes('list keystoneapplicationcredentials'));
    h.clock.advance(1000);
    await h.pass();
    assert.ok(h.fakes.management.calls.includes('list keystoneapplicationcredentials'));
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(2));
    await h.converge();
    const order = await h.order();
    assert.equal(order.status?.passwordGeneration, 2);
    assert.equal(order.status.lastPasswordRotation, '2026-06-01T01:00:00Z');
    assert.equal(order.status.nextPasswordRotation, '2026-06-01T02:00:00Z');
  });

  it('a due rotation is held while an application credential order of the user is being deleted', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '1h' } });
    await h.converge();
    await credentialOrder(h, 'ci-token', true);
    await credentialOrder(h, 'other', false);
    h.clock.advance(HOUR);
    assert.deepEqual(await h.pass(), { requeueAfterMs: 60_000 });
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(1));
    const c = await userReady(h);
    assert.equal(c?.reason, 'UserProvisioned');
    assert.match(
      c.message,
      /the due password rotation waits for KeystoneApplicationCredential\(s\) \["ci-token"\] in namespace "tenant-a"/,
    );
    // A raised spec generation is never held.
    await edit(h, (o) => ({ ...o, spec: { ...o.spec, passwordGeneration: 2 } }));
    await h.pass();
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(2));
  });

  it('interval 0s turns the schedule off: no rotation and no nextPasswordRotation', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '0s' } });
    await h.converge();
    h.clock.advance(10_000 * HOUR);
    await h.pass();
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(1));
    assert.equal((await h.order()).status?.nextPasswordRotation, undefined);
  });

  it('turning the schedule off drops nextPasswordRotation', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '1h' } });
    await h.converge();
    assert.equal((await h.order()).status?.nextPasswordRotation, '2026-06-01T01:00:00Z');
    await edit(h, (o) => ({ ...o, spec: { ...o.spec, rotation: { interval: '0s' } } }));
    assert.deepEqual(await h.pass(), {});
    const status = (await h.order()).status ?? {};
    assert.equal(status.nextPasswordRotation, undefined);
    assert.equal(status.lastPasswordRotation, '2026-06-01T00:00:00Z');
  });

  it('the anchor: an order from before the schedule gets a time recorded, and no rotation at once', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    await edit(h, (o) => {
      const { lastPasswordRotation: _, nextPasswordRotation: __, ...status } = o.status ?? {};
      return { ...o, spec: { ...o.spec, rotation: { interval: '1h' } }, status };
    });
    h.clock.advance(5 * HOUR);
    await h.pass();
    const order = await h.order();
    assert.equal(order.status?.lastPasswordRotation, '2026-06-01T05:00:00Z');
    assert.equal(order.status.nextPasswordRotation, '2026-06-01T06:00:00Z');
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(1));
  });

  it('a rotation whose first status write was lost does not start another one', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '1h' } });
    await h.converge();
    const { status } = await h.order();
    assert.ok(status !== undefined);
    h.clock.advance(HOUR);
    await h.pass();
    // The status write of the repointing pass is lost: the stored status is the one from before.
    const lost = await h.order();
    await h.orderClient.update(keystoneUserType, { ...lost, status });
    h.clock.advance(60_000);
    await h.pass();
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(2), 'no generation 3');
    await h.converge();
    assert.equal((await h.order()).status?.lastPasswordRotation, '2026-06-01T01:01:00Z');
  });

  // An apiserver before 1.25 drops the CRD's CEL bounds, and the fake client here enforces none either.
  for (const [value, problem] of [
    ['1ns', 'rotation.interval is 0s or at least 1m'],
    ['999999999999h', 'rotation.interval is at most 87600h'],
    ['monthly', 'is not a duration'],
  ] as const) {
    it(`an interval of ${value} the apiserver let through refuses the order, naming the field`, async () => {
      const h = userFixture();
      await h.seedAll({ rotation: { interval: value } });
      await h.pass(); // the finalizer
      const result = await h.pass();
      assert.deepEqual(result, {}, 'no requeue: a spec edit wakes the order');
      for (const type of [CONDITION_USER_READY, 'DeliveryReady']) {
        const c = await h.condition(type);
        assert.equal(c?.reason, 'InvalidDuration', type);
        assert.ok(c.message.startsWith(`spec.rotation.interval "${value}"`), c.message);
        assert.ok(c.message.includes(problem), c.message);
      }
      assert.deepEqual(await h.names_in(korcUserType), [], 'nothing provisioned');
    });
  }

  it('a Ready order edited to an interval of 1ns is refused, not rotated on every pass', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '1h' } });
    await h.converge();
    await edit(h, (o) => ({ ...o, spec: { ...o.spec, rotation: { interval: '1ns' } } }));
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1000);
      assert.deepEqual(await h.pass(), {});
      await h.korc();
      await h.eso();
    }
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(1), 'never rotated');
    assert.equal((await h.order()).status?.passwordGeneration, 1);
    assert.equal((await userReady(h))?.reason, 'InvalidDuration');
    await h.secret(`${NAME}-credentials`, h.orderClient, NS); // the delivered Secret stays (get throws otherwise)
    // Corrected, the order is served again.
    await edit(h, (o) => ({ ...o, spec: { ...o.spec, rotation: { interval: '1h' } } }));
    await h.converge();
    assert.equal((await userReady(h))?.reason, 'UserProvisioned');
  });
});
