/**
 * The `openregion` command. The edge of the program: the only place that reads process.env and argv, and the one
 * place a failure is reported (failure.ts: one line, `--debug` for the stack).
 */
import { failureReport } from './failure.ts';
import { buildProgram } from './program.ts';

const args = process.argv.slice(2);
if (args[0] === '__complete') {
  // The completion scripts' question, answered outside commander: the words after it are a command line being
  // typed (`--help`, `--version`, a lone `--` included), not options for this run.
  const { completions } = await import('./completion.ts');
  process.stdout.write((await completions(args.slice(1), process.env)).map((c) => `${c}\n`).join(''));
} else {
  const program = await buildProgram(args);
  if (args.length === 0) program.help();
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    process.stderr.write(failureReport(error, program.opts<{ debug?: boolean }>().debug === true));
    process.exitCode = 1;
  }
}
