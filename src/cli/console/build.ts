/**
 * `npm run build`'s last step: the console's assets written to dist/console/, where the compiled CLI reads them
 * (ADR 0029). Usage: node --import tsx src/cli/console/build.ts [OUT_DIR]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleConsole } from './bundle.ts';

const out = process.argv[2] ?? 'dist/console';
mkdirSync(out, { recursive: true });
for (const [name, asset] of await bundleConsole()) writeFileSync(join(out, name), asset.body);
process.stdout.write(`console assets written to ${out}\n`);
