import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError, InvalidArgumentError } from 'commander';
import { KubeConflictError, KubeForbiddenError, KubeInvalidError, KubeNotFoundError } from '../kube/errors.ts';
import { KubeconfigError } from '../kube/kubernetes/kubeconfig.ts';
import { ConfigError } from '../openstack/errors.ts';
import { CliError } from './connect.ts';
import { exitCodeOf, failureClass, failureReport } from './failure.ts';

const networkError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('failureReport', () => {
  it('is one line without a stack by default, whatever the message holds', () => {
    const text = failureReport(new Error('the store\nis gone', { cause: new Error('disk') }), false);
    assert.equal(text, 'openregion: the store is gone\n');
  });

  it('says a programming error is one, and how to see where it happened', () => {
    const text = failureReport(new TypeError("Cannot read properties of undefined (reading 'x')"), false);
    assert.match(text, /^openregion: unexpected TypeError: Cannot read .* \(a bug; --debug shows where\)\n$/);
  });

  it('says a network failure is one, with what the network said (not "fetch failed")', () => {
    const fetchFailed = new TypeError('fetch failed', {
      cause: networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'),
    });
    assert.equal(
      failureReport(fetchFailed, false),
      'openregion: cannot reach the server: connect ECONNREFUSED 127.0.0.1:6443\n',
    );
  });

  it('with --debug: the stack and every cause', () => {
    const text = failureReport(new Error('outer', { cause: new Error('inner') }), true);
    assert.match(text, /^openregion: Error: outer\n {4}at /);
    assert.match(text, /caused by: Error: inner\n {4}at /);
  });
});

describe('exit codes by class', () => {
  const cases: [string, unknown, string, number][] = [
    ['a Kubernetes NotFound', new KubeNotFoundError('servers "x" not found'), 'failed', 1],
    ['a wait not met in time', new CliError('timed out waiting for the condition on servers/x', 'failed'), 'failed', 1],
    ['an unexpected failure of no class', new Error('something else'), 'failed', 1],
    ['a bad value on the command line', new CliError('unknown output format "tabel"'), 'usage', 2],
    ['commander’s usage error', new CommanderError(1, 'commander.missingArgument', 'missing'), 'usage', 2],
    ['an option parser’s refusal', new InvalidArgumentError('a duration'), 'usage', 2],
    ['a Kubernetes Conflict', new KubeConflictError('the object has been modified'), 'rejected', 3],
    ['a Kubernetes Invalid', new KubeInvalidError('spec.size: must be a number', []), 'rejected', 3],
    ['a bad clouds.yaml or OS_* variables', new ConfigError('auth_url', 'is required'), 'rejected', 3],
    ['a kubeconfig without the context', new KubeconfigError('no context "x"'), 'rejected', 3],
    ['a refused credential', new KubeForbiddenError('Unauthorized'), 'unreachable', 4],
    [
      'a refused connection under fetch',
      new TypeError('fetch failed', { cause: networkError('ECONNREFUSED', 'x') }),
      'unreachable',
      4,
    ],
    [
      'an untrusted certificate',
      networkError('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate'),
      'unreachable',
      4,
    ],
    ['a bug', new TypeError('x is not a function'), 'internal', 5],
  ];
  for (const [what, error, kind, code] of cases) {
    it(`${what}: ${kind} (${String(code)})`, () => {
      assert.equal(failureClass(error), kind);
      assert.equal(exitCodeOf(error), code);
    });
  }
});
