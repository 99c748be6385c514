import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NOVA_METADATA_KEY, NOVA_METADATA_MAX_VALUE, novaServerMetadata } from './metadata.ts';

const ids = {
  id: '0c7a1b2e-5d4f-4e3a-9b8c-7d6e5f4a3b2c',
  organizationID: 'org-1',
  projectID: 'proj-1',
  regionID: 'region-1',
};

describe('novaServerMetadata', () => {
  it('writes the legacy camelCase keys, the namespaced keys and the mapped tags', () => {
    const { metadata, dropped } = novaServerMetadata({
      ...ids,
      tags: [
        { name: 'kubernetes.unikorn-cloud.org/cluster-id', value: 'c-1' },
        { name: 'team', value: 'ignored: not namespaced' },
      ],
    });
    assert.deepEqual(metadata, {
      'kubernetes:cluster_id': 'c-1',
      'region:server_id': ids.id,
      'identity:organization_id': 'org-1',
      'identity:project_id': 'proj-1',
      'region:region_id': 'region-1',
      serverID: ids.id,
      organizationID: 'org-1',
      projectID: 'proj-1',
      regionID: 'region-1',
    });
    assert.deepEqual(dropped, []);
  });

  it('system keys are written last: a tag cannot override them', () => {
    const { metadata } = novaServerMetadata({
      ...ids,
      tags: [
        { name: 'region.unikorn-cloud.org/server-id', value: 'spoofed' },
        { name: 'identity.unikorn-cloud.org/project-id', value: 'spoofed' },
      ],
    });
    assert.equal(metadata['region:server_id'], ids.id);
    assert.equal(metadata['identity:project_id'], 'proj-1');
  });

  it('leaves out tags Nova would refuse, and names them', () => {
    const long = 'x'.repeat(300);
    const { metadata, dropped } = novaServerMetadata({
      ...ids,
      tags: [
        { name: `svc.example.com/${long}`, value: 'v' },
        { name: 'svc.example.com/big', value: 'v'.repeat(256) },
        { name: 'svc.example.com/fits', value: 'é'.repeat(255) },
      ],
    });
    assert.deepEqual(dropped, [
      { name: `svc.example.com/${long}`, reason: 'key' },
      { name: 'svc.example.com/big', reason: 'value' },
    ]);
    assert.equal(metadata['svc:fits'], 'é'.repeat(255));
    assert.equal(metadata['svc:big'], undefined);
  });

  it('counts code points as Nova does: 255 astral characters fit', () => {
    const { metadata } = novaServerMetadata({
      ...ids,
      tags: [{ name: 'svc.example.com/emoji', value: '🙂'.repeat(255) }],
    });
    assert.equal(metadata['svc:emoji'], '🙂'.repeat(255));
  });

  it('an id beyond Nova’s limits is a programming error', () => {
    assert.throws(() => novaServerMetadata({ ...ids, regionID: 'r'.repeat(256), tags: [] }), RangeError);
  });

  it('whatever the tags, every key and value is within Nova’s limits and the system keys hold', () => {
    const tagName = fc.oneof(
      fc.string(),
      fc
        .tuple(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,300}$/), fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,300}$/))
        .map(([service, local]) => `${service}.example.com/${local}`),
    );
    fc.assert(
      fc.property(fc.array(fc.record({ name: tagName, value: fc.string({ maxLength: 300 }) })), (tags) => {
        const { metadata } = novaServerMetadata({ ...ids, tags });
        for (const [key, value] of Object.entries(metadata)) {
          assert.match(key, NOVA_METADATA_KEY);
          assert.ok(Array.from(value).length <= NOVA_METADATA_MAX_VALUE);
        }
        assert.equal(metadata.serverID, ids.id);
        assert.equal(metadata['region:server_id'], ids.id);
      }),
    );
  });
});
