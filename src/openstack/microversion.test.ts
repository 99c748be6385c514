import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from './errors.ts';
import {
  BAREMETAL_MICROVERSION,
  compareVersions,
  DEFAULT_COMPUTE_MICROVERSION,
  LOAD_BALANCER_MICROVERSION,
  MAX_COMPUTE_MICROVERSION,
  microversionHeaders,
  parseVersion,
  PLACEMENT_MICROVERSION,
  type Version,
} from './microversion.ts';

const v = (text: string): Version => {
  const parsed = parseVersion(text);
  assert.ok(parsed, `${text} should parse`);
  return parsed;
};

describe('parseVersion', () => {
  it('reads major.minor, with or without a leading v and surrounding space', () => {
    assert.deepEqual(parseVersion('2.90'), { major: 2, minor: 90 });
    assert.deepEqual(parseVersion('v2.1'), { major: 2, minor: 1 });
    assert.deepEqual(parseVersion(' 1.22 '), { major: 1, minor: 22 });
    assert.deepEqual(parseVersion('2.060'), { major: 2, minor: 60 });
  });

  it('refuses anything else', () => {
    for (const text of ['', '2', '2.', '.1', '2.x', 'latest', '2.1.1', '-2.1', 'V2.1', '2,1', 'compute 2.90']) {
      assert.equal(parseVersion(text), undefined, text);
    }
  });
});

describe('compareVersions', () => {
  it('orders by major, then minor, numerically', () => {
    assert.ok(compareVersions(v('2.9'), v('2.10')) < 0);
    assert.ok(compareVersions(v('2.90'), v('2.92')) < 0);
    assert.ok(compareVersions(v('2.93'), v('2.92')) > 0);
    assert.ok(compareVersions(v('3.0'), v('2.99')) > 0);
    assert.ok(compareVersions(v('1.99'), v('2.0')) < 0);
    assert.equal(compareVersions(v('2.92'), v('v2.92')), 0);
  });
});

describe('microversionHeaders', () => {
  it('pins every microversioned service by default', () => {
    assert.equal(DEFAULT_COMPUTE_MICROVERSION, '2.90');
    assert.equal(MAX_COMPUTE_MICROVERSION, '2.92');
    assert.deepEqual(microversionHeaders(), {
      compute: { 'OpenStack-API-Version': 'compute 2.90', 'X-OpenStack-Nova-API-Version': '2.90' },
      'load-balancer': { 'OpenStack-API-Version': 'load-balancer 2.22' },
      placement: { 'OpenStack-API-Version': 'placement 1.22' },
      baremetal: { 'OpenStack-API-Version': 'baremetal 1.11', 'X-OpenStack-Ironic-API-Version': '1.11' },
    });
    assert.equal(PLACEMENT_MICROVERSION, '1.22');
    assert.equal(BAREMETAL_MICROVERSION, '1.11');
    assert.equal(LOAD_BALANCER_MICROVERSION, '2.22');
  });

  it('sends no microversion to services that have none', () => {
    const headers = microversionHeaders();
    for (const type of ['identity', 'image', 'network', 'block-storage'] as const)
      assert.equal(headers[type], undefined);
  });

  it('accepts a configured compute microversion up to 2.92, in both headers', () => {
    for (const [configured, sent] of [
      ['2.92', '2.92'],
      ['2.1', '2.1'],
      ['2.79', '2.79'],
      [' v2.91 ', '2.91'],
      ['2.090', '2.90'],
    ] as const) {
      assert.deepEqual(
        microversionHeaders({ compute: configured }).compute,
        { 'OpenStack-API-Version': `compute ${sent}`, 'X-OpenStack-Nova-API-Version': sent },
        configured,
      );
    }
    assert.deepEqual(microversionHeaders({ compute: undefined }).compute?.['X-OpenStack-Nova-API-Version'], '2.90');
  });

  it('refuses compute microversions above 2.92, other majors and non-versions with a ConfigError', () => {
    for (const configured of ['2.93', '2.100', '3.0', '1.5', 'latest', '2', '', 'compute 2.90']) {
      assert.throws(
        () => microversionHeaders({ compute: configured }),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, configured);
          assert.equal(e.code, 'OS_CONFIG');
          assert.equal(e.field, 'compute_api_version');
          assert.ok(e.message.startsWith('compute_api_version: '), e.message);
          return true;
        },
      );
    }
  });

  it('explains why 2.93 is refused: reimage_boot_volume', () => {
    assert.throws(
      () => microversionHeaders({ compute: '2.93' }),
      (e: unknown) => e instanceof ConfigError && /reimage_boot_volume/.test(e.message) && /2\.93/.test(e.message),
    );
    assert.throws(
      () => microversionHeaders({ compute: 'latest' }),
      (e: unknown) =>
        e instanceof ConfigError && /must look like 2\.N/.test(e.message) && e.message.includes('"latest"'),
    );
  });
});
