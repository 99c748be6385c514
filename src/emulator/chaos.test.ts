import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createNetwork, listNetworks } from '../openstack/network.ts';
import { Chaos, seededRandom } from './chaos.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

const NETWORKS = '/network/v2.0/networks';

describe('Chaos', () => {
  it('injects nothing until configured', () => {
    const chaos = new Chaos();
    for (let i = 0; i < 1000; i++) assert.equal(chaos.decide('POST', NETWORKS), undefined);
    assert.deepEqual(Object.values(chaos.counts), [0, 0, 0, 0, 0]);
  });

  it('decides the same faults for the same seed and requests, and others for another seed', () => {
    const run = (seed: number) => {
      const chaos = new Chaos();
      chaos.configure({ seed, rates: { burst: 0.1, reset: 0.1, 'lost-answer': 0.1, latency: 0.1, conflict: 0.1 } });
      return Array.from({ length: 200 }, (_, i) => chaos.decide(i % 2 === 0 ? 'POST' : 'GET', NETWORKS));
    };
    assert.deepEqual(run(7), run(7));
    assert.notDeepEqual(run(7), run(8));
  });

  it('keeps a burst on its route for its length, counting every spoiled answer', () => {
    const chaos = new Chaos();
    chaos.configure({ seed: 1, rates: { burst: 1 }, burstLength: 4 });
    const first = chaos.decide('GET', NETWORKS);
    assert.equal(first?.kind, 'burst');
    chaos.configure({ seed: 1, rates: { burst: 1 }, burstLength: 4 });
    chaos.off();
    assert.equal(chaos.decide('GET', NETWORKS), undefined, 'off stops a burst in flight');
    chaos.configure({ seed: 3, rates: { burst: 0.5 }, burstLength: 5 });
    const answers = Array.from({ length: 100 }, () => chaos.decide('GET', NETWORKS));
    const spoiled = answers.filter((a) => a?.kind === 'burst');
    assert.ok(spoiled.length > 50, 'a burst outlasts its first answer');
    assert.equal(chaos.counts.burst, spoiled.length);
    assert.ok(spoiled.every((a) => [500, 502, 503].includes(a.status)));
  });

  it('loses answers and raises 409s only on writes, and no 409 on Keystone', () => {
    const chaos = new Chaos();
    chaos.configure({ seed: 5, rates: { 'lost-answer': 1, conflict: 1 } });
    assert.equal(chaos.decide('GET', NETWORKS), undefined);
    assert.equal(chaos.decide('POST', NETWORKS)?.kind, 'lost-answer');
    chaos.configure({ seed: 5, rates: { conflict: 1 } });
    assert.equal(chaos.decide('DELETE', `${NETWORKS}/{network_id}`)?.kind, 'conflict');
    assert.equal(chaos.decide('POST', '/identity/v3/auth/tokens'), undefined);
  });

  it('draws uniformly enough from its seed', () => {
    const random = seededRandom(42);
    const draws = Array.from({ length: 10_000 }, random);
    assert.ok(draws.every((d) => d >= 0 && d < 1));
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    assert.ok(Math.abs(mean - 0.5) < 0.02, `mean ${String(mean)}`);
  });
});

describe('chaos through the control API', () => {
  let cloud: CloudFixture;
  before(async () => {
    cloud = await cloudFixture();
  });
  after(() => cloud.close());

  const chaosState = async () =>
    (await (await fetch(`${cloud.emulator.url}/_emulator/chaos`)).json()) as {
      settings: unknown;
      counts: Record<string, number>;
    };

  it('refuses settings it cannot read, naming the field', async () => {
    const post = (body: unknown) =>
      fetch(`${cloud.emulator.url}/_emulator/chaos`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const noSeed = await post({ rates: {} });
    assert.equal(noSeed.status, 400);
    assert.match(await noSeed.text(), /seed/);
    const badKind = await post({ seed: 1, rates: { meteor: 0.1 } });
    assert.equal(badKind.status, 400);
    assert.match(await badKind.text(), /rates\.meteor/);
    const badRate = await post({ seed: 1, rates: { reset: 2 } });
    assert.match(await badRate.text(), /rates\.reset.*between 0 and 1/);
    assert.equal((await chaosState()).settings, null, 'nothing configured');
  });

  it('a lost answer: the client hears nothing, the cloud made the change; then off leaves the counts', async () => {
    await cloud.admin.token();
    assert.equal(await cloud.control('POST', '/chaos', { seed: 9, rates: { 'lost-answer': 1 } }), 201);
    const neutron = cloud.admin.client('network');
    await assert.rejects(createNetwork(neutron, { name: 'chaos-lost' }));
    assert.equal(await cloud.control('DELETE', '/chaos'), 200);
    const made = await listNetworks(neutron, { name: 'chaos-lost' });
    assert.equal(made.length, 1, 'the write happened although its answer was lost');
    const state = await chaosState();
    assert.equal(state.settings, null);
    assert.ok((state.counts['lost-answer'] ?? 0) >= 1);
  });

  it('a 409 race answers in the service shape and changes nothing', async () => {
    assert.equal(await cloud.control('POST', '/chaos', { seed: 2, rates: { conflict: 1 } }), 201);
    const neutron = cloud.admin.client('network');
    await assert.rejects(createNetwork(neutron, { name: 'chaos-409' }), (error: Error) => /409/.test(error.message));
    await cloud.control('DELETE', '/chaos');
    assert.equal((await listNetworks(neutron, { name: 'chaos-409' })).length, 0);
  });
});
