/**
 * The console's static assets (ADR 0029): the page, its script and its stylesheet. A built package (`npm run build`)
 * carries them in dist/console/ and reads them from there. A source checkout bundles console/ with esbuild on the
 * first request for them, in memory, so `openregion up` needs no build step and starts no slower for the console.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** What the console serves, by file name. */
export type Assets = ReadonlyMap<string, Asset>;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

export const assetsOf = (files: Readonly<Record<string, Buffer>>): Assets =>
  new Map(Object.entries(files).map(([name, body]) => [name, { contentType: CONTENT_TYPES[name] ?? '', body }]));

/** Where `npm run build` puts the assets, seen from the compiled module (dist/cli/console/ → dist/console/). */
const BUILT = fileURLToPath(new URL('../../console/', import.meta.url));
/**
 * The bundler, for a source checkout only. Named through a variable so the production closure (what tsc compiles
 * into dist/) leaves it out: it needs esbuild, a dev dependency, and a built package never bundles.
 */
const BUNDLER = './bundle.ts';
const fromSources = import.meta.url.endsWith('.ts');

async function readBuilt(dir: string): Promise<Assets> {
  const names = Object.keys(CONTENT_TYPES);
  const bodies = await Promise.all(names.map((name) => readFile(`${dir}${name}`)));
  return assetsOf(Object.fromEntries(names.map((name, i) => [name, bodies[i] ?? Buffer.alloc(0)])));
}

async function bundled(): Promise<Assets> {
  const bundler = (await import(BUNDLER)) as { bundleConsole: () => Promise<Assets> };
  return bundler.bundleConsole();
}

/** The assets, read or bundled once, on first use: console/ bundled in a source checkout, else dist/console/. */
export function consoleAssets(built = BUILT, bundle = fromSources): () => Promise<Assets> {
  let assets: Promise<Assets> | undefined;
  return () => {
    if (assets === undefined) {
      const loading = bundle ? bundled() : existsSync(`${built}index.html`) ? readBuilt(built) : missing(built);
      // A failure is tried again on the next request rather than remembered.
      loading.catch(() => (assets = undefined));
      assets = loading;
    }
    return assets;
  };
}

const missing = (built: string) =>
  Promise.reject(new Error(`the console's assets are not in ${built}: run \`npm run build\``));
