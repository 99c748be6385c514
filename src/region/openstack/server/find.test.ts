import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { madeFor, ownServer } from './find.ts';

const nova = (id: string, metadata: Record<string, string>) => ({ id, metadata });

describe("a Server's own Nova server", () => {
  it('is the one whose linkage names the Server, by the namespaced key or the legacy one', () => {
    assert.equal(madeFor(nova('n1', { 'region:server_id': 's1' }), 's1'), true);
    assert.equal(madeFor(nova('n1', { serverID: 's1' }), 's1'), true);
    assert.equal(madeFor(nova('n1', { 'region:server_id': 's2', serverID: 's1' }), 's1'), false);
    assert.equal(madeFor(nova('n1', {}), 's1'), false);
  });

  it("ignores another Server's server of the same name; two claiming one Server are a consistency error", () => {
    const server = { id: 's1', name: 'web' };
    const mine = nova('n1', { 'region:server_id': 's1' });
    const theirs = nova('n2', { 'region:server_id': 's2' });
    assert.equal(ownServer([theirs, mine], server), mine);
    assert.equal(ownServer([theirs], server), undefined);
    assert.throws(() => ownServer([mine, nova('n3', { serverID: 's1' })], server), { name: 'ConsistencyError' });
  });
});
