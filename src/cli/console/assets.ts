/**
 * The console's static assets (ADR 0026): the page, its script and its stylesheet. A built package (`npm run build`)
 * carries them in dist/console/; a source checkout bundles console/ with esbuild on the first request for them, in
 * memory, so `openregion up` needs no build step and starts no slower for the console.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** What the console serves, by file name: index.html, app.js, app.css. */
export type Assets = ReadonlyMap<string, Asset>;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The console's sources (a source checkout): the repository's console/ folder. */
const SOURCES = fileURLToPath(new URL('../../../console/', import.meta.url));
/** Where `npm run build` puts the assets, seen from the compiled module (dist/cli/console/ → dist/console/). */
const BUILT = fileURLToPath(new URL('../../console/', import.meta.url));

const assetsOf = (files: Readonly<Record<string, Buffer>>): Assets =>
  new Map(Object.entries(files).map(([name, body]) => [name, { contentType: CONTENT_TYPES[name] ?? '', body }]));

/** Bundles console/ (TypeScript, Preact, the API's own schemas) into one minified ES module, in memory. */
export async function bundleConsole(sources = SOURCES): Promise<Assets> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
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

async function readBuilt(dir: string): Promise<Assets> {
  const names = Object.keys(CONTENT_TYPES);
  const bodies = await Promise.all(names.map((name) => readFile(`${dir}${name}`)));
  return assetsOf(Object.fromEntries(names.map((name, i) => [name, bodies[i] ?? Buffer.alloc(0)])));
}

/** The assets, read or bundled once on first use: dist/console/ when built, else console/ bundled. */
export function consoleAssets(built = BUILT): () => Promise<Assets> {
  let assets: Promise<Assets> | undefined;
  return () => {
    assets ??= existsSync(`${built}index.html`) ? readBuilt(built) : bundleConsole();
    // A failed bundle is tried again on the next request rather than remembered.
    assets.catch(() => (assets = undefined));
    return assets;
  };
}
