import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { text } from 'node:stream/consumers';
import { listJson } from './list-json.ts';

describe('listJson', () => {
  it('streams what JSON.stringify of the read models would, in order, empty as []', async () => {
    const read = (o: { n: number; tags?: string[] }) => ({ id: `x${String(o.n)}`, tags: o.tags ?? [] });
    const toJson = listJson(read);
    const items = [{ n: 2 }, { n: 1, tags: ['a,b', '"q"'] }];
    assert.equal(await text(toJson(items)), JSON.stringify(items.map(read)));
    assert.equal(await text(toJson([])), '[]');
  });

  it('an answer longer than a chunk arrives in several, whole', async () => {
    const items = Array.from({ length: 2_000 }, (_, n) => ({ n, pad: 'x'.repeat(100) }));
    const chunks: string[] = [];
    for await (const chunk of listJson((o: object) => o)(items)) chunks.push(chunk as string);
    assert.ok(chunks.length > 2, `${String(chunks.length)} chunks`);
    assert.deepEqual(JSON.parse(chunks.join('')), items);
  });

  it('reads each instance once; a replaced instance (a changed object) is read again', async () => {
    const reads: number[] = [];
    const toJson = listJson((o: { n: number }) => {
      reads.push(o.n);
      return o;
    });
    const one = { n: 1 };
    const two = { n: 2 };
    await text(toJson([one, two]));
    await text(toJson([one, two]));
    assert.deepEqual(reads, [1, 2]);
    const changed = { n: 3 };
    assert.equal(await text(toJson([one, changed])), '[{"n":1},{"n":3}]');
    assert.deepEqual(reads, [1, 2, 3]);
  });
});
