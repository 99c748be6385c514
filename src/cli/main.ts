/** The `openregion` command. The edge of the program: the only place that reads process.env and argv. */
import { buildProgram } from './program.ts';

const args = process.argv.slice(2);
const program = await buildProgram(args);
if (args.length === 0) program.help();
await program.parseAsync(process.argv);
