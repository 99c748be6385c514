/**
 * `openregion region gc --os-cloud <admin-cloud> [--dry-run]`: the operator path for what an identity's teardown
 * cannot remove with the region's credentials (docs/adr/0038-leaks-snapshot-images-and-default-groups.md). Neutron
 * lets only an admin delete a project's `default` security group, so the teardown tags it; this command, run with
 * admin credentials (by hand or as the CronJob in deploy/components/region-gc), deletes exactly the tagged groups
 * whose project Keystone no longer has (and that project's quota records first), and prints a report. It exits 1 when a group it should delete could not be.
 */
import { Command } from 'commander';
import { loadCloudConfig, type ConfigSources } from '../openstack/config.ts';
import { processSources } from './cloud.ts';
import { transportFor } from '../openstack/connect.ts';
import { Session } from '../openstack/session.ts';
import {
  collectLeftBehindDefaultGroups,
  type LeftBehindGroup,
  type LeftBehindReport,
} from '../region/openstack/identity/default-group.ts';
import { systemClock } from '../util/clock.ts';
import type { Out } from './target.ts';

interface GcOptions {
  readonly osCloud?: string;
  readonly dryRun?: boolean;
  readonly output?: string;
}

export function regionGcCommand(out: Out = process.stdout): Command {
  return new Command('gc')
    .description(
      "with admin credentials, delete the `default` security groups the region's identity teardowns left behind " +
        '(tagged by the teardown) whose Keystone project is gone; never a group it cannot prove is ours',
    )
    .option('--os-cloud <name>', 'admin credentials: the clouds.yaml entry (default OS_CLOUD, else OS_* variables)')
    .option('--dry-run', 'report what would be deleted; delete nothing')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (options: GcOptions) => {
      const report = await regionGc(processSources(), options, out);
      if (report.failed.length > 0) process.exitCode = 1;
    });
}

/** The command's work, with its sources and output passed in (tests run it against the emulator). */
export async function regionGc(sources: ConfigSources, options: GcOptions, out: Out): Promise<LeftBehindReport> {
  if (options.output !== undefined && options.output !== 'text' && options.output !== 'json') {
    throw new Error(`--output must be text or json, not ${options.output}`);
  }
  const config = loadCloudConfig(sources, options.osCloud);
  const transport = transportFor(config, { clock: systemClock, random: Math.random });
  try {
    const admin = new Session({ ...config, transport, clock: systemClock });
    const dryRun = options.dryRun === true;
    const report = await collectLeftBehindDefaultGroups(
      {
        network: admin.client('network'),
        identity: admin.client('identity'),
        compute: admin.client('compute'),
        blockStorage: admin.client('block-storage'),
      },
      { dryRun },
    );
    out.write(options.output === 'json' ? `${JSON.stringify({ dryRun, ...report }, null, 2)}\n` : text(report, dryRun));
    return report;
  } finally {
    await transport.close();
  }
}

function text(report: LeftBehindReport, dryRun: boolean): string {
  const line = (verb: string, g: LeftBehindGroup, why?: string) =>
    `${verb.padEnd(14)} security group ${g.id}  project ${g.projectID}  identity ${g.identityID ?? '-'}` +
    (why === undefined ? '' : `  (${why})`);
  const lines = [
    ...report.deleted.map((g) => line(dryRun ? 'would delete' : 'deleted', g)),
    ...report.failed.map((g) => line('not deleted', g, g.why)),
    ...report.kept.map((g) => line('kept', g, g.why)),
    `default security groups left behind: ${String(report.deleted.length)} ${dryRun ? 'to delete (dry run)' : 'deleted'}, ` +
      `${String(report.failed.length)} refused, ${String(report.kept.length)} kept (not provably ours and orphaned)`,
  ];
  return `${lines.join('\n')}\n`;
}
