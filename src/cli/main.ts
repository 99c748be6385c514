/**
 * The `openregion` command. The edge of the program: the only place that reads process.env and argv, and the one
 * place a failure is reported (failure.ts: one line, `--debug` for the stack).
 *
 * A command's module loads only when that command runs (all of them for the overall help): `openregion wait`
 * needs the store, not the whole control plane `up` and `serve` bring, and starts in a fraction of the time.
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
