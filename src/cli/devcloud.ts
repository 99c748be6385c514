/**
 * `openregion devcloud up|down|status|reset`: the dev cloud, real OpenStack Zed from Debian's packages on
 * 127.0.0.1. A thin wrapper: scripts/devcloud.sh does the work (it needs root and Debian 12), with its output
 * on our terminal and its exit code as ours.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const script = fileURLToPath(new URL('../../scripts/devcloud.sh', import.meta.url));

const subcommands = [
  ['up', 'install (if needed), configure, start and seed the dev cloud; a no-op when it is already up'],
  ['down', 'stop every process the dev cloud started (MariaDB last)'],
  ['status', 'show each service, its port and its logs; exit non-zero if anything is down'],
  ['reset', 'stop, drop the databases and wipe the state, so the next up starts clean'],
] as const;

export function devcloudCommand(): Command {
  const devcloud = new Command('devcloud').description(
    'Run the dev cloud: real OpenStack (Keystone, Nova, Neutron, Glance, Cinder, Octavia, Ironic) on 127.0.0.1',
  );
  for (const [name, description] of subcommands) {
    devcloud
      .command(name)
      .description(description)
      .action(async () => {
        process.exitCode = await runScript(name);
      });
  }
  return devcloud;
}

/** Run `bash scripts/devcloud.sh <subcommand>` from the repository root; resolves to its exit code. */
function runScript(subcommand: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, subcommand], { cwd: repoRoot, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      // Killed by a signal: report it the way a shell does, 128 + the signal's number.
      resolve(code ?? (signal === null ? 1 : 128 + constants.signals[signal]));
    });
  });
}
