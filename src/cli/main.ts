/**
 * The `openregion` command. The edge of the program: the only place that reads process.env and argv, and the one
 * place a failure is reported (failure.ts: one line, `--debug` for the stack).
 */
import { failureReport } from './failure.ts';
import { buildProgram } from './program.ts';

const args = process.argv.slice(2);
const program = await buildProgram(args);
if (args.length === 0) program.help();
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(failureReport(error, program.opts<{ debug?: boolean }>().debug === true));
  process.exitCode = 1;
}
