/** The `openregion` command. The edge of the program: the only place that reads process.env and argv. */
import { Command } from 'commander';
import { cloudCommand } from './cloud.ts';
import { crdsCommand } from './crds.ts';
import { devcloudCommand } from './devcloud.ts';
import { emulatorCommand } from './emulator.ts';
import { kubeCommands } from './kube.ts';
import { regionCommand } from './region.ts';
import { serveCommand } from './serve.ts';
import { upCommand } from './up.ts';
import { waitCommand } from './wait.ts';

export function buildProgram(): Command {
  const program = new Command('openregion')
    .description('A control plane for OpenStack-backed cloud regions, and a Keystone orders operator.')
    .showHelpAfterError();
  program.addCommand(cloudCommand());
  program.addCommand(crdsCommand());
  program.addCommand(devcloudCommand());
  program.addCommand(emulatorCommand());
  for (const command of kubeCommands()) program.addCommand(command);
  program.addCommand(regionCommand());
  program.addCommand(serveCommand());
  program.addCommand(upCommand());
  program.addCommand(waitCommand());
  return program;
}

const program = buildProgram();
if (process.argv.length <= 2) program.help();
await program.parseAsync(process.argv);
