import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordEvent } from '../../../kube/events.ts';
import { networkType } from '../../apis/index.ts';
import { apiFixture, call, createNetwork, NAMESPACE, ORG_B, PROJECT_B, type ApiFixture } from '../testing/api.ts';
import { OPERATOR_DETAIL } from './events.ts';

interface EventRow {
  type: string;
  reason: string;
  message: string;
  count: number;
}

describe('GET /api/v2/<collection>/{id}/events', () => {
  let f: ApiFixture;
  let mine = '';
  let theirs = '';
  before(async () => {
    f = await apiFixture();
    mine = await createNetwork(f, f.tokens.a);
    theirs = await createNetwork(f, f.tokens.b, ORG_B, PROJECT_B, 'their-net');
    const ours = await f.store.get(networkType, NAMESPACE, mine);
    const other = await f.store.get(networkType, NAMESPACE, theirs);
    await recordEvent(
      f.store,
      ours,
      'Normal',
      'Provisioning',
      'the network is being provisioned (yield/created)',
      f.clock,
    );
    f.clock.advance(1000);
    await recordEvent(
      f.store,
      ours,
      'Warning',
      'ProvisionFailed',
      'HTTP 500 from http://neutron.internal/v2.0/networks request req-123 <- secret detail',
      f.clock,
    );
    await recordEvent(f.store, other, 'Normal', 'Provisioned', 'their network is ready', f.clock);
    // An Event about an earlier object of the same name (another uid) is not this object's.
    await recordEvent(
      f.store,
      { ...ours, metadata: { ...ours.metadata, uid: 'an-earlier-uid' } },
      'Normal',
      'Provisioned',
      'an earlier incarnation',
      f.clock,
    );
  });
  after(() => f.close());

  it("lists the object's own Events, oldest first, with a failure's operator detail replaced by a fixed text", async () => {
    const { status, body } = await call<EventRow[]>(f, f.tokens.a, 'GET', `/api/v2/networks/${mine}/events`);
    assert.equal(status, 200);
    assert.deepEqual(
      body.map((e) => [e.type, e.reason, e.message, e.count]),
      [
        ['Normal', 'Provisioning', 'the network is being provisioned (yield/created)', 1],
        ['Warning', 'ProvisionFailed', OPERATOR_DETAIL, 1],
      ],
    );
    assert.doesNotMatch(JSON.stringify(body), /neutron|req-123|secret/);
  });

  it("is authorised as the object's GET: another organization's object, and an absent one, are 404", async () => {
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/networks/${theirs}`)).status, 404);
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/networks/${theirs}/events`)).status, 404);
    assert.equal((await call(f, f.tokens.b, 'GET', `/api/v2/networks/${mine}/events`)).status, 404);
    const absent = '00000000-0000-4000-8000-0000000000ff';
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/servers/${absent}/events`)).status, 404);
    const { body } = await call<EventRow[]>(f, f.tokens.b, 'GET', `/api/v2/networks/${theirs}/events`);
    assert.deepEqual(
      body.map((e) => e.message),
      ['their network is ready'],
    );
  });

  it('is served for every tenant kind, and needs a token', async () => {
    const words = {
      networks: 'network',
      securitygroups: 'security group',
      servers: 'server',
      loadbalancers: 'load balancer',
      volumes: 'volume',
    };
    for (const [collection, what] of Object.entries(words)) {
      const absent = '00000000-0000-4000-8000-0000000000ff';
      const answer = await call<{ detail: string }>(f, f.tokens.a, 'GET', `/api/v2/${collection}/${absent}/events`);
      assert.equal(answer.status, 404);
      assert.equal(answer.body.detail, `${what} not found`, 'the route ran, and looked the object up');
    }
    const anonymous = await f.api.inject({ method: 'GET', url: `/api/v2/networks/${mine}/events` });
    assert.equal(anonymous.statusCode, 401);
  });
});
