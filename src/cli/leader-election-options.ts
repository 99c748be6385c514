/**
 * `serve`'s Lease timing flags (docs/adr/0035-failover-lease-timings.md): controller-runtime's defaults, a `fast`
 * profile for a fail-over in seconds, and each timing settable on its own over the profile, validated together.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_LEASE_TIMINGS, leaseTimingsProblem, type LeaseTimings } from '../runtime/leader.ts';
import { duration } from './wait.ts';

/**
 * The profiles. `fast` replaces a crashed leader in about 3 s (its lease) instead of about 15-17 s, at the price
 * of four times the Lease traffic (a get and an update per replica and Lease every 500 ms) and a leader that steps
 * down (and exits) after 2 s without a successful renewal, e.g. an API server that stalls that long.
 */
export const LEASE_PROFILES = {
  default: DEFAULT_LEASE_TIMINGS,
  fast: { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 },
} as const satisfies Record<string, LeaseTimings>;

type LeaseProfile = keyof typeof LEASE_PROFILES;

export interface LeaderElectionFlags {
  leaderElectionProfile?: LeaseProfile;
  leaderElectionLeaseDuration?: number;
  leaderElectionRenewDeadline?: number;
  leaderElectionRetryPeriod?: number;
}

const seconds = (ms: number) => `${String(ms / 1000)}s`;

export function withLeaderElectionOptions(command: Command): Command {
  const d = LEASE_PROFILES.default;
  const f = LEASE_PROFILES.fast;
  return command
    .addOption(
      new Option(
        '--leader-election-profile <profile>',
        `Lease timings: default (${seconds(d.leaseDurationMs)} lease, ${seconds(d.renewDeadlineMs)} renew deadline, ` +
          `${seconds(d.retryPeriodMs)} retry: a crashed leader is replaced in ~15-17 s) or fast (` +
          `${seconds(f.leaseDurationMs)}/${seconds(f.renewDeadlineMs)}/${seconds(f.retryPeriodMs)}: ~3-4 s, four times ` +
          'the Lease traffic)',
      ).choices(Object.keys(LEASE_PROFILES)),
    )
    .option(
      '--leader-election-lease-duration <duration>',
      `how long a Lease holds without renewal: the wait after a leader crashes (default ${seconds(d.leaseDurationMs)})`,
      duration,
    )
    .option(
      '--leader-election-renew-deadline <duration>',
      `how long the leader retries a failed renewal before it stops leading (default ${seconds(d.renewDeadlineMs)})`,
      duration,
    )
    .option(
      '--leader-election-retry-period <duration>',
      `between attempts to acquire or renew (default ${seconds(d.retryPeriodMs)})`,
      duration,
    );
}

/** The timings the flags name: the profile's, each overridden by its own flag; refused when they cannot elect. */
export function leaseTimingsOf(flags: LeaderElectionFlags): LeaseTimings {
  const base = LEASE_PROFILES[flags.leaderElectionProfile ?? 'default'];
  const timings: LeaseTimings = {
    leaseDurationMs: flags.leaderElectionLeaseDuration ?? base.leaseDurationMs,
    renewDeadlineMs: flags.leaderElectionRenewDeadline ?? base.renewDeadlineMs,
    retryPeriodMs: flags.leaderElectionRetryPeriod ?? base.retryPeriodMs,
  };
  const problem = leaseTimingsProblem(timings);
  if (problem !== undefined) throw new InvalidArgumentError(`leader election: ${problem}`);
  return timings;
}
