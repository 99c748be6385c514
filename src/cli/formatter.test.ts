import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatShow } from './formatter.ts';

const record = { name: 'eu-west-1', roles: 'admin, member', endpoints: ['compute  public', 'network  public'] };

describe('formatShow (the OpenStack CLI’s show formats)', () => {
  it('table: a Field/Value box, a list one line each', () => {
    assert.equal(
      formatShow(record, { format: 'table', column: [] }),
      [
        '+-----------+-----------------+',
        '| Field     | Value           |',
        '+-----------+-----------------+',
        '| name      | eu-west-1       |',
        '| roles     | admin, member   |',
        '| endpoints | compute  public |',
        '|           | network  public |',
        '+-----------+-----------------+',
        '',
      ].join('\n'),
    );
  });

  it('value, json and yaml, with -c keeping the named columns in their order', () => {
    assert.equal(formatShow(record, { format: 'value', column: ['roles', 'name'] }), 'eu-west-1\nadmin, member\n');
    assert.deepEqual(JSON.parse(formatShow(record, { format: 'json', column: [] })), record);
    assert.equal(formatShow(record, { format: 'yaml', column: ['name'] }), 'name: eu-west-1\n');
  });

  it('names the columns there are when -c names one that is not', () => {
    assert.throws(
      () => formatShow(record, { format: 'table', column: ['nmae'] }),
      /^InvalidArgumentError: -c nmae: no such column; the columns are name, roles, endpoints$/,
    );
  });
});
