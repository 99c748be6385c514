/**
 * The `openregion` command. The edge of the program: the only place that reads process.env and argv, and the one
 * place a failure is reported (failure.ts: one line, `--debug` for the stack, an exit code per class).
 */
import { Command, CommanderError } from 'commander';
import { exitCodeOf, failureReport } from './failure.ts';
import { buildProgram } from './program.ts';

/** Every command throws rather than exits on a usage error, so the exit code is the usage class's. */
function throwOnExit(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) throwOnExit(sub);
}

const args = process.argv.slice(2);
if (args[0] === '__complete') {
  // The completion scripts' question, answered outside commander: the words after it are a command line being
  // typed (`--help`, `--version`, a lone `--` included), not options for this run.
  const { completions } = await import('./complete.ts');
  process.stdout.write((await completions(args.slice(1), process.env)).map((c) => `${c}\n`).join(''));
} else {
  const program = await buildProgram(args);
  throwOnExit(program);
  try {
    if (args.length === 0) program.help();
    await program.parseAsync(process.argv);
  } catch (error) {
    // commander has printed its own message (or the help, or the version: exit code 0).
    if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? 0 : exitCodeOf(error);
    else {
      process.stderr.write(failureReport(error, program.opts<{ debug?: boolean }>().debug === true));
      process.exitCode = exitCodeOf(error);
    }
  }
}
