import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from 'commander';
import { keystoneUserType } from '../keystone/apis/keystoneuser.ts';
import { builtin } from '../kube/resource-type.ts';
import { regionType } from '../region/apis/index.ts';
import {
  bundledActuatorsNeedKeystone,
  expectedClaimsOf,
  keystoneControllerOptions,
  positiveInteger,
  selectedGroups,
  serveCommand,
} from './serve.ts';
import { hostPort, regionKindsIn } from './serve-options.ts';
import { flagsOf, invalidArgument, quiet } from './testing/flags.ts';

describe('serve options', () => {
  it('reads a concurrency as a positive whole number, and refuses anything else', () => {
    assert.equal(positiveInteger('8'), 8);
    for (const bad of ['0', '-1', '2.5', 'four', '']) assert.throws(() => positiveInteger(bad), InvalidArgumentError);
  });

  it('--keystone-concurrency sets the KeystoneUser controller’s passes at once: 1 by default, a positive count', () => {
    const parsed = (...argv: string[]) => flagsOf<{ keystoneConcurrency: number }>(serveCommand, ...argv);
    assert.deepEqual(keystoneControllerOptions(parsed()), { maxConcurrentReconciles: 1 });
    assert.deepEqual(keystoneControllerOptions(parsed('--keystone-concurrency', '8')), { maxConcurrentReconciles: 8 });
    for (const bad of ['0', '-2', 'many']) {
      assert.throws(() => parsed('--keystone-concurrency', bad), invalidArgument, bad);
    }
  });

  it('takes create-retry’s maximum attempts and the monitor period, upstream’s flags, and refuses bad values', () => {
    const parsed = (...argv: string[]) => flagsOf(serveCommand, ...argv);
    const options = parsed('--provider-create-max-attempts', '5', '--poll-period', '30s');
    assert.equal(options['providerCreateMaxAttempts'], 5);
    assert.equal(options['pollPeriod'], 30_000);
    assert.equal(parsed('--poll-period', '2m')['pollPeriod'], 120_000);
    assert.equal(parsed('--poll-period', '1500ms')['pollPeriod'], 1_500);
    for (const argv of [
      ['--provider-create-max-attempts', '0'],
      ['--provider-create-max-attempts', 'three'],
      ['--poll-period', '0s'],
      ['--poll-period', 'soon'],
      ['--poll-period', '-5s'],
    ]) {
      assert.throws(() => parsed(...argv), invalidArgument, argv.join(' '));
    }
  });

  it('--api requires --issuer and --audience, unless told explicitly to accept any', () => {
    assert.throws(() => expectedClaimsOf({}), /--api needs --issuer and --audience/);
    assert.throws(() => expectedClaimsOf({ issuer: 'https://idp' }), /--api needs --audience/);
    assert.throws(() => expectedClaimsOf({ audience: 'region' }), /--api needs --issuer:/);
    assert.deepEqual(expectedClaimsOf({ issuer: 'https://idp', audience: 'region' }), {
      issuer: 'https://idp',
      audience: 'region',
    });
    assert.deepEqual(expectedClaimsOf({ insecureAnyIssuerAndAudience: true }), {});
    const flags = serveCommand().parseOptions(['--insecure-any-issuer-and-audience']);
    assert.deepEqual(flags.unknown, []);
  });

  it('reads host:port', () => {
    assert.deepEqual(hostPort('0.0.0.0:8080'), { host: '0.0.0.0', port: 8080 });
    assert.throws(() => hostPort('8080'), InvalidArgumentError);
  });

  it('--bundled-actuators needs the keystone group, which runs by default', () => {
    assert.doesNotThrow(() => {
      bundledActuatorsNeedKeystone(true, selectedGroups(undefined));
    });
    assert.doesNotThrow(() => {
      bundledActuatorsNeedKeystone(true, selectedGroups(['keystone']));
    });
    assert.doesNotThrow(() => {
      bundledActuatorsNeedKeystone(undefined, selectedGroups(['networks']));
    });
    assert.throws(() => {
      bundledActuatorsNeedKeystone(true, selectedGroups(['networks']));
    }, /--bundled-actuators runs with the keystone controller group/);
  });
});

describe('serve: where the caches watch', () => {
  it('region kinds in --namespace; everything else every namespace, or only --watch-namespaces when given', () => {
    const parsed = serveCommand().parseOptions(['--watch-namespaces', 'orders,control', '--namespace', 'region']);
    assert.deepEqual(parsed.unknown, []);
    const opts = serveCommand();
    opts.parseOptions(['--watch-namespaces', 'orders,control', '--watch-namespaces', 'more']);
    assert.deepEqual(opts.opts()['watchNamespaces'], ['orders', 'control', 'more']);
    const scoped = regionKindsIn('region', ['orders', 'control']);
    assert.deepEqual(scoped(regionType), ['region']);
    assert.deepEqual(scoped(builtin.secret), ['orders', 'control'], 'no cluster-wide Secret list or watch');
    assert.deepEqual(scoped(keystoneUserType), ['orders', 'control']);
    const open = regionKindsIn('region');
    assert.deepEqual(open(regionType), ['region']);
    assert.equal(open(builtin.secret), undefined, 'without --watch-namespaces, orders may be anywhere');
    assert.equal(regionKindsIn('region', [])(builtin.secret), undefined);
  });

  it('refuses an empty --watch-namespaces (a blank ConfigMap value) instead of watching every namespace', () => {
    for (const bad of ['', ',', ' , ']) {
      assert.throws(
        () => quiet(serveCommand).parseOptions([`--watch-namespaces=${bad}`]),
        invalidArgument,
        JSON.stringify(bad),
      );
    }
  });
});
