/** The console bundled (ADR 0029): console/ (TypeScript, Preact, the API's own schemas) as one minified ES module. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { assetsOf, type Assets } from './assets.ts';

/** The console's sources: the repository's console/ folder. */
const SOURCES = fileURLToPath(new URL('../../../console/', import.meta.url));

export async function bundleConsole(sources = SOURCES): Promise<Assets> {
  const result = await build({
    entryPoints: [`${sources}main.tsx`],
    tsconfig: `${sources}tsconfig.json`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    outfile: 'app.js',
    logLevel: 'silent',
  });
  const [script] = result.outputFiles;
  if (script === undefined) throw new Error('esbuild wrote no console bundle');
  return assetsOf({
    'index.html': await readFile(`${sources}index.html`),
    'app.js': Buffer.from(script.contents),
    'app.css': await readFile(`${sources}style.css`),
  });
}
