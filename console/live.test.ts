import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEvent } from './live.ts';

const net = (id: string, name: string) => ({ metadata: { id, name, creationTime: `2026-01-0${id}T00:00:00Z` } });
const names = (lists: ReturnType<typeof applyEvent>) =>
  [...(lists.networks?.values() ?? [])].map((n) => n.metadata.name);

describe("the console's live lists", () => {
  it('replace a collection on a snapshot, then add, replace and remove one object per change', () => {
    let lists = applyEvent({}, 'snapshot', JSON.stringify({ collection: 'networks', items: [net('1', 'a')] }));
    assert.deepEqual(names(lists), ['a']);
    lists = applyEvent(
      lists,
      'change',
      JSON.stringify({ collection: 'networks', type: 'ADDED', object: net('2', 'b') }),
    );
    lists = applyEvent(
      lists,
      'change',
      JSON.stringify({ collection: 'networks', type: 'MODIFIED', object: net('1', 'a2') }),
    );
    assert.deepEqual(names(lists), ['a2', 'b']);
    lists = applyEvent(
      lists,
      'change',
      JSON.stringify({ collection: 'networks', type: 'DELETED', object: net('1', 'a2') }),
    );
    assert.deepEqual(names(lists), ['b']);
    // A reconnect's snapshot replaces whatever the stream had: nothing missed while away lingers.
    lists = applyEvent(lists, 'snapshot', JSON.stringify({ collection: 'networks', items: [] }));
    assert.deepEqual(names(lists), []);
    assert.equal(lists.servers, undefined, 'other collections untouched');
  });
});
