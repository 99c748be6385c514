import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { apiFixture, call, createNetwork, ORG_B, PROJECT_B, type ApiFixture } from '../testing/api.ts';

interface Snapshot {
  collection: string;
  items: { metadata: { id: string; name: string } }[];
}
interface Change {
  collection: string;
  type: string;
  object: { metadata: { id: string; name: string } };
}

/** A watch stream opened with `token`, its events collected as they arrive. */
async function open(base: string, token: string, search: string) {
  const abort = new AbortController();
  const response = await fetch(`${base}/api/v2/watch${search}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  const events: EventSourceMessage[] = [];
  let wake = () => {};
  const parser = createParser({
    onEvent: (event) => {
      events.push(event);
      wake();
    },
  });
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  })().catch(() => undefined);
  /** Waits for an event `found` accepts (the test runner's timeout bounds the wait). */
  const until = async (found: (events: EventSourceMessage[]) => boolean) => {
    while (!found(events)) await new Promise<void>((resolve) => (wake = resolve));
  };
  return {
    response,
    events,
    until,
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}

describe('GET /api/v2/watch (Server-Sent Events)', () => {
  let f: ApiFixture;
  let base = '';
  before(async () => {
    f = await apiFixture();
    base = await f.api.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => f.close());

  it("carries a snapshot, then every change to the token's objects, and never a foreign organization's", async () => {
    const mine = await createNetwork(f, f.tokens.a, undefined, undefined, 'mine');
    const theirs = await createNetwork(f, f.tokens.b, ORG_B, PROJECT_B, 'theirs');
    const stream = await open(base, f.tokens.a, '?collection=networks&collection=servers');
    assert.equal(stream.response.status, 200);
    assert.match(stream.response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.response.headers.get('cache-control'), 'no-store');
    await stream.until((es) => es.filter((e) => e.event === 'snapshot').length === 2);
    const snapshots = stream.events.filter((e) => e.event === 'snapshot').map((e) => JSON.parse(e.data) as Snapshot);
    const networks = snapshots.find((s) => s.collection === 'networks');
    assert.deepEqual(
      networks?.items.map((n) => n.metadata.id),
      [mine],
    );
    assert.deepEqual(snapshots.find((s) => s.collection === 'servers')?.items, []);

    // A second client's changes: theirs first, then mine, so a leaked foreign change would arrive before mine.
    const theirsToo = await createNetwork(f, f.tokens.b, ORG_B, PROJECT_B, 'theirs-2');
    const second = await createNetwork(f, f.tokens.a, undefined, undefined, 'mine-2');
    assert.equal((await call(f, f.tokens.b, 'DELETE', `/api/v2/networks/${theirs}`)).status, 202);
    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/networks/${mine}`)).status, 202);
    const changes = () => stream.events.filter((e) => e.event === 'change').map((e) => JSON.parse(e.data) as Change);
    await stream.until(() => changes().some((c) => c.object.metadata.id === mine && c.type !== 'ADDED'));
    const added = changes().find((c) => c.type === 'ADDED');
    assert.equal(added?.object.metadata.id, second);
    assert.equal(added.collection, 'networks');
    assert.equal(added.object.metadata.name, 'mine-2');
    const everything = stream.events.map((e) => e.data).join('\n');
    for (const foreign of [theirs, theirsToo, 'theirs', ORG_B]) {
      assert.ok(!everything.includes(foreign), `${foreign} never appears in the stream`);
    }
    await stream.close();
  });

  it('is authorised and checked as the REST API is: no token is 401, an unknown collection 400', async () => {
    const anonymous = await fetch(`${base}/api/v2/watch?collection=networks`);
    assert.equal(anonymous.status, 401);
    const unknown = await fetch(`${base}/api/v2/watch?collection=secrets`, {
      headers: { authorization: `Bearer ${f.tokens.a}` },
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.headers.get('content-type') ?? '', /problem\+json/);
  });

  it("filters as the list routes do: a project-scoped token sees only its project's objects", async () => {
    await createNetwork(f, f.tokens.a, undefined, 'project-other', 'other-project');
    const stream = await open(base, f.tokens.aProjectOnly, '?collection=networks');
    await stream.until((es) => es.some((e) => e.event === 'snapshot'));
    const listed = await call<{ metadata: { id: string } }[]>(f, f.tokens.aProjectOnly, 'GET', '/api/v2/networks');
    const snapshot = JSON.parse((stream.events[0] ?? assert.fail('no event')).data) as Snapshot;
    assert.deepEqual(
      snapshot.items.map((n) => n.metadata.id),
      listed.body.map((n) => n.metadata.id),
    );
    assert.ok(!JSON.stringify(snapshot).includes('other-project'));
    await stream.close();
  });
});
