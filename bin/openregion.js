#!/usr/bin/env -S node --max-semi-space-size=4
// The installed entry point. A built package (`npm run build`: the image, a production install) runs the compiled
// CLI in dist/. A source checkout runs the TypeScript through tsx unless a build newer than every source exists, so
// the command never runs stale code and needs no build to work. The shebang caps V8's young generation (ADR 0033):
// `up` and `serve` run for days, and V8's default let their resident set settle ~100 MiB higher for no speed.
import { existsSync, readdirSync, statSync } from 'node:fs';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { URL } from 'node:url';

const root = new URL('../', import.meta.url);
const built = new URL('dist/cli/main.js', root);
const sources = new URL('src/', root);

/** The newest modification time under `dir`, in ms (0 for an empty or missing directory). */
function newestUnder(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
  }
  return newest;
}

/**
 * npm (npx, `npm exec`, `npm start`) runs this command through `sh -c`, and on SIGTERM or SIGINT it signals that
 * shell, which dies without passing the signal on: node was left running as an orphan of init, its Lease held and
 * its ports bound. Under npm, then, the parent going away means npm was told to stop, so the process stops as if
 * it had been sent SIGTERM itself (each long-running command shuts down cleanly on it). Only under npm: a command
 * started with nohup or `&` from a shell that then exits must keep running.
 */
function stopWithParent() {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 200);
  watch.unref();
}

if (process.env.npm_command !== undefined || process.env.npm_lifecycle_event !== undefined) stopWithParent();

if (existsSync(built) && statSync(built).mtimeMs >= newestUnder(sources)) {
  await import(built.href);
} else {
  const tsx = await import('tsx/esm/api').catch(() => undefined);
  if (tsx === undefined) {
    if (!existsSync(built)) throw new Error('openregion: run `npm run build` (or install the dev dependencies) first');
    process.stderr.write('openregion: dist/ is older than src/ and tsx is not installed: running the old build\n');
    await import(built.href);
  } else {
    tsx.register();
    await import(new URL('src/cli/main.ts', root).href);
  }
}
