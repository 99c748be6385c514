import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KindEntry } from './connect.ts';
import { resourceArgs, selectorOf } from './resources.ts';

const entry = (kind: string, plural: string, group: string, shortNames: string[], categories: string[]): KindEntry => ({
  type: { group, version: 'v1', kind, plural, namespaced: true },
  singular: kind.toLowerCase(),
  shortNames,
  printerColumns: [],
  categories,
});
const servers = entry('Server', 'servers', 'region.unikorn-cloud.org', ['srv'], ['unikorn', 'all']);
const networks = entry('Network', 'networks', 'region.unikorn-cloud.org', ['net'], ['unikorn', 'all']);
const vlans = entry('VLANAllocation', 'vlanallocations', 'region.unikorn-cloud.org', ['vlan'], ['unikorn']);
const secrets = entry('Secret', 'secrets', '', [], []);
const kinds = [secrets, servers, networks, vlans];

const plurals = (args: string[]) =>
  resourceArgs(kinds, args, 'get').requests.map((r) => [r.entry.type.plural, ...r.names].join(' '));

describe('resource arguments, as kubectl reads them', () => {
  it('TYPE NAME…, TYPE/NAME… and TYPE.GROUP/NAME…, grouped by kind in the order given', () => {
    assert.deepEqual(plurals(['srv', 'a', 'b']), ['servers a b']);
    assert.deepEqual(plurals(['server.region.unikorn-cloud.org/a', 'net/x', 'servers/b']), [
      'servers a b',
      'networks x',
    ]);
    assert.deepEqual(plurals(['secret/s']), ['secrets s']);
  });

  it('comma lists, all and categories expand to their kinds, each once', () => {
    assert.deepEqual(plurals(['net,srv,networks']), ['networks', 'servers']);
    assert.deepEqual(plurals(['all']), ['servers', 'networks']);
    assert.deepEqual(plurals(['unikorn']), ['servers', 'networks', 'vlanallocations']);
    assert.deepEqual(plurals(['secrets,all']), ['secrets', 'servers', 'networks']);
  });

  it('one kind and one name is a single object; anything else a list', () => {
    assert.equal(resourceArgs(kinds, ['srv', 'a'], 'get').single, true);
    assert.equal(resourceArgs(kinds, ['srv/a'], 'get').single, true);
    assert.equal(resourceArgs(kinds, ['srv', 'a', 'b'], 'get').single, false);
    assert.equal(resourceArgs(kinds, ['srv,net', 'a'], 'get').single, false);
    assert.equal(resourceArgs(kinds, ['all'], 'get').all, true);
  });

  it("refuses what kubectl refuses, in kubectl's words", () => {
    assert.throws(() => resourceArgs(kinds, ['srv', 'net/x'], 'get'), /no need to specify a resource type/);
    assert.throws(() => resourceArgs(kinds, ['srv/'], 'get'), /must have a single resource and name/);
    assert.throws(() => resourceArgs(kinds, ['/x'], 'get'), /must have a single resource and name/);
    assert.throws(() => resourceArgs(kinds, ['nonesuch'], 'get'), /doesn't have a resource type "nonesuch"/);
    assert.throws(() => resourceArgs(kinds, [], 'delete'), /specify the type of resource to delete/);
  });

  it('--display-name is the display-name label, beside any -l', () => {
    assert.equal(selectorOf({}), undefined);
    assert.equal(selectorOf({ displayName: 'web-1' }), 'unikorn-cloud.org/name=web-1');
    assert.equal(selectorOf({ selector: 'a=b', displayName: 'web-1' }), 'a=b,unikorn-cloud.org/name=web-1');
  });
});
