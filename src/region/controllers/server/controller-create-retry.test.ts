/**
 * The bounded create-retry and the policy-gated fields (continuing controller.test.ts), on the emulator with the Server
 * controller and the monitor: a never-booted ERROR is absorbed, a booted server never is, the attempts are bounded, and
 * a cloud hiding task_state or launched_at degrades as docs/spec/openstack-provider.md §Policy-gated fields says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IMAGE_NOT_REALIZED_MESSAGE } from '../../openstack/server/messages.ts';
import { providerCreateFailedMessage, providerCreateRetryingMessage } from './decide.ts';
import { serverControllerFixture, type ServerControllerFixture } from '../testing/server.ts';

let s: ServerControllerFixture;
before(async () => {
  s = await serverControllerFixture();
});
after(async () => {
  await s.close();
});

const controls = () => s.emulator.nova.controls;

describe('Server controller: bounded create-retry', () => {
  it('a never-booted ERROR is deleted and recreated from the spec, and the server converges', async () => {
    const input = s.input();
    controls().failNext({ operation: 'create' });
    await s.create(input);
    await s.tick(1_000);
    const failed = await s.nova(input);
    assert.equal(failed.status, 'ERROR');
    await s.poll();
    // A recreated server reads provisioned once it has booted: the monitor's poll latches that.
    for (let i = 0; i < 6 && (await s.available(input))?.reason !== 'Provisioned'; i++) {
      await s.tick();
      await s.poll();
    }
    const recreated = await s.nova(input);
    assert.notEqual(recreated.id, failed.id);
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    const status = (await s.get(input)).status;
    assert.equal(status?.providerCreateFailures, 1);
    assert.notEqual(status.providerCreateRetrying, true);
    assert.ok(
      s.providerLog.some((l) => l.includes('server entered ERROR')),
      'the fault was logged',
    );
  });

  it('gives up after the cap: terminal, counter clamped, the failed server left for the operator', async () => {
    const input = s.input();
    for (let i = 0; i < 3; i++) controls().failNext({ operation: 'create' });
    await s.create(input);
    for (let i = 0; i < 12 && (await s.available(input))?.message !== providerCreateFailedMessage(3); i++) {
      await s.tick(1_000);
      await s.poll();
      await s.tick();
    }
    const available = await s.available(input);
    assert.deepEqual([available?.reason, available?.message], ['Errored', providerCreateFailedMessage(3)]);
    assert.equal((await s.get(input)).status?.providerCreateFailures, 3);
  });

  it('while the retries run it reads provisioning with the attempt, never provisioned; then the terminal error', async () => {
    const input = s.input();
    for (let i = 0; i < 3; i++) controls().failNext({ operation: 'create' });
    await s.create(input);
    await s.tick(1_000);
    await s.poll();
    const seen: string[] = [];
    const record = async () => {
      const available = await s.available(input);
      seen.push(`${available?.reason ?? '-'}: ${available?.message ?? '-'}`);
    };
    for (let i = 0; i < 12 && (await s.available(input))?.message !== providerCreateFailedMessage(3); i++) {
      // Each step as the cloud and the loops would take it: the build fails, the 10 s re-check reads the server
      // back, the monitor stamps the failure.
      await s.tick(1_000);
      await record();
      await s.tick();
      await record();
      await s.poll();
      await record();
    }
    assert.deepEqual(
      seen.filter((line) => line.startsWith('Provisioned')),
      [],
      `never provisioned while retrying: ${seen.join(' | ')}`,
    );
    assert.ok(seen.includes(`Provisioning: ${providerCreateRetryingMessage(2, 3)}`), seen.join(' | '));
    assert.ok(seen.includes(`Provisioning: ${providerCreateRetryingMessage(3, 3)}`), seen.join(' | '));
    assert.equal(seen.at(-1), `Errored: ${providerCreateFailedMessage(3)}`);
  });

  it('a booted server in ERROR is never destroyed: it parks on the image rows instead', async () => {
    const input = s.input();
    await s.converged(input);
    const id = (await s.nova(input)).id;
    assert.ok((await s.get(input)).status?.provisionedAt !== undefined, 'the monitor latched provisionedAt');
    controls().putInError(id);
    await s.poll();
    await s.tick();
    const available = await s.available(input);
    assert.deepEqual([available?.reason, available?.message], ['Errored', IMAGE_NOT_REALIZED_MESSAGE]);
    assert.equal((await s.nova(input)).id, id);
    assert.equal((await s.get(input)).status?.providerCreateFailures, undefined);
  });
});

describe('Server controller: a cloud hiding the policy-gated fields', () => {
  it('hidden launched_at: an image change defers (R4) every pass and is never submitted', async () => {
    const input = s.input();
    await s.converged(input);
    controls().setPolicy({ hideLaunchedAt: true });
    try {
      await s.editSpec(input, { image: { id: s.images.b } });
      await s.tick();
      await s.tick();
      assert.equal((await s.available(input))?.reason, 'Provisioning');
      assert.equal((await s.nova(input)).image, s.images.a);
      assert.ok(
        s.providerLog.some((l) => l.includes('"hidden":["OS-SRV-USG:launched_at"]')),
        'warned',
      );
    } finally {
      controls().setPolicy({ hideLaunchedAt: false });
    }
    await s.tick();
    assert.equal((await s.nova(input)).image, s.images.b, 'converges once the field is visible again');
  });

  it('hidden task_state: a task in progress reads as rest, so Nova’s 409 is the only guard, and it yields', async () => {
    const input = s.input();
    await s.converged(input);
    const provider = await s.provider();
    controls().setPolicy({ hideTaskState: true });
    try {
      await provider.rebootServer({ signal: new AbortController().signal }, s.identity, input, true);
      await s.editSpec(input, { image: { id: s.images.b } });
      assert.ok(
        s.providerLog.some((l) => l.includes('R4″/conflict')),
        'submitted into the reboot and refused',
      );
      assert.equal((await s.available(input))?.reason, 'Provisioning');
      for (let i = 0; i < 4 && (await s.available(input))?.reason !== 'Provisioned'; i++) await s.tick();
      assert.equal((await s.nova(input)).image, s.images.b);
    } finally {
      controls().setPolicy({ hideTaskState: false });
    }
  });
});
