/** `openregion cloud check`: authenticate with a configured cloud and show who we are there and what it offers. */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { Command } from 'commander';
import { systemClock } from '../util/clock.ts';
import { loadCloudConfig, type ConfigSources } from '../openstack/config.ts';
import { transportFor } from '../openstack/connect.ts';
import { Session } from '../openstack/session.ts';
import { tokenRecord } from './describe-token.ts';
import { formatShow, withFormatOptions, type FormatFlags } from './formatter.ts';

export function cloudCommand(): Command {
  const cloud = new Command('cloud').description(
    'Inspect the OpenStack cloud a clouds.yaml entry or OS_* variables point at',
  );
  withFormatOptions(
    cloud
      .command('check')
      .description('authenticate, then show the user, scope, roles and catalog (never the token)')
      .option('--os-cloud <name>', 'the clouds.yaml entry (default: OS_CLOUD, else the OS_* variables)'),
  ).action(async (options: { osCloud?: string } & FormatFlags) => {
    const config = loadCloudConfig(processSources(), options.osCloud);
    const transport = transportFor(config, { clock: systemClock, random: Math.random });
    try {
      const session = new Session({ ...config, transport, clock: systemClock });
      const record = tokenRecord(await session.token());
      // A table cell per endpoint line, its columns aligned; JSON and YAML keep the endpoints as objects.
      const rows = record.catalog.map((e) => [e.service, e.interface, e.region, e.url]);
      const widths = [0, 1, 2].map((i) => Math.max(0, ...rows.map((r) => (r[i] ?? '').length)));
      const lines = rows.map((r) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i] ?? 0) : c)).join('  '));
      const textual = options.format === 'table' || options.format === 'value';
      process.stdout.write(formatShow({ ...record, catalog: textual ? lines : record.catalog }, options));
    } finally {
      await transport.close();
    }
  });
  return cloud;
}

/** Where clouds.yaml is looked for, as the process sees it (the environment, its directory, the home directory). */
export function processSources(): ConfigSources {
  return {
    env: process.env,
    cwd: process.cwd(),
    home: homedir(),
    readFile: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}
