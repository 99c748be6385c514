import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { LEASE_PROFILES, leaseTimingsOf } from './leader-election-options.ts';
import { serveCommand } from './serve.ts';
import { flagsOf, invalidArgument } from './testing/flags.ts';

/** serve's flags as commander parses them, then the timings they name. */
function timingsOf(...argv: string[]) {
  return leaseTimingsOf(flagsOf(serveCommand, ...argv));
}

describe('serve: Lease timings', () => {
  it("default to controller-runtime's 15 s lease, 10 s renew deadline and 2 s retry period", () => {
    assert.deepEqual(timingsOf(), { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  });

  it('the fast profile fails over in under 5 s: its lease plus a retry period', () => {
    const fast = timingsOf('--leader-election-profile', 'fast');
    assert.deepEqual(fast, LEASE_PROFILES.fast);
    assert.ok(fast.leaseDurationMs + fast.retryPeriodMs < 5_000);
  });

  it('each timing can be set on its own, over the profile', () => {
    assert.deepEqual(
      timingsOf(
        '--leader-election-lease-duration',
        '30s',
        '--leader-election-renew-deadline',
        '20s',
        '--leader-election-retry-period',
        '4s',
      ),
      { leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 4_000 },
    );
    assert.deepEqual(timingsOf('--leader-election-profile', 'fast', '--leader-election-lease-duration', '4s'), {
      ...LEASE_PROFILES.fast,
      leaseDurationMs: 4_000,
    });
  });

  it('refuses timings that cannot elect safely, and profiles it does not know', () => {
    const refused = (...argv: string[]) => {
      assert.throws(
        () => timingsOf(...argv),
        (error: unknown) => error instanceof Error && /^leader election: /.test(error.message),
        argv.join(' '),
      );
    };
    refused('--leader-election-renew-deadline', '15s'); // not shorter than the 15 s lease
    refused('--leader-election-lease-duration', '5s'); // shorter than the 10 s renew deadline
    refused('--leader-election-retry-period', '9s'); // 1.2 retry periods outlast the renew deadline
    refused('--leader-election-lease-duration', '2500ms', '--leader-election-profile', 'fast');
    assert.throws(() => timingsOf('--leader-election-profile', 'fastest'), invalidArgument);
    assert.throws(() => timingsOf('--leader-election-retry-period', 'soon'), invalidArgument);
  });

  it('serve says why it refuses timings, before it connects to anything', async () => {
    let written = '';
    const command = serveCommand()
      .exitOverride()
      .configureOutput({ writeErr: (text) => (written += text) });
    await assert.rejects(
      command.parseAsync(['--leader-election', '--leader-election-renew-deadline', '20s'], { from: 'user' }),
      (error: unknown) => error instanceof CommanderError && error.exitCode !== 0,
    );
    assert.match(
      written,
      /leader election: the renew deadline \(20s\) must be shorter than the lease duration \(15s\)/,
    );
  });
});
