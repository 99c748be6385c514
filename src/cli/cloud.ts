/** `openregion cloud check`: authenticate with a configured cloud and show who we are there and what it offers. */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { Command } from 'commander';
import { systemClock } from '../util/clock.ts';
import { loadCloudConfig, type ConfigSources } from '../openstack/config.ts';
import { transportFor } from '../openstack/connect.ts';
import { Session } from '../openstack/session.ts';
import { describeToken } from './describe-token.ts';

export function cloudCommand(): Command {
  const cloud = new Command('cloud').description(
    'Inspect the OpenStack cloud a clouds.yaml entry or OS_* variables point at',
  );
  cloud
    .command('check')
    .description('authenticate, then print the user, scope, roles and catalog (never the token)')
    .option('--os-cloud <name>', 'the clouds.yaml entry (default: OS_CLOUD, else the OS_* variables)')
    .action(async (options: { osCloud?: string }) => {
      const config = loadCloudConfig(processSources(), options.osCloud);
      const transport = transportFor(config, { clock: systemClock, random: Math.random });
      try {
        const session = new Session({ ...config, transport, clock: systemClock });
        process.stdout.write(describeToken(await session.token()));
      } finally {
        await transport.close();
      }
    });
  return cloud;
}

function processSources(): ConfigSources {
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
