/**
 * gophercloud's side of the client comparison: bench/gophercloud_list/main.go, built offline with Debian's Go and
 * Debian's gophercloud sources (GOPATH mode over /usr/share/gocode, no module downloads), once per change of its
 * source: the binary is cached under /var/cache/openregion/bench when that is writable, else under .cache/bench.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Skipped } from './sdk-compare.ts';

const GOPATH = '/usr/share/gocode';
const GOPHERCLOUD = join(GOPATH, 'src/github.com/gophercloud/gophercloud');
const INSTALL = 'apt-get install -y golang-go golang-github-gophercloud-gophercloud-dev';
const SOURCE = new URL('./gophercloud_list/', import.meta.url).pathname;

/** The built program's path, or why it cannot be built here. */
export async function gophercloudList(): Promise<string | Skipped> {
  const go = await promisify(execFile)('go', ['version']).catch(() => undefined);
  if (go === undefined) return { skipped: `Go is not installed (${INSTALL})` };
  if (!existsSync(GOPHERCLOUD)) return { skipped: `gophercloud's sources are not installed (${INSTALL})` };
  const source = readFileSync(join(SOURCE, 'main.go'));
  const key = createHash('sha256').update(go.stdout).update(source).digest('hex').slice(0, 16);
  const cache = cacheDir();
  const binary = join(cache, `gophercloud-list-${key}`);
  if (existsSync(binary)) return binary;
  const env = {
    ...process.env,
    GO111MODULE: 'off',
    GOPATH,
    GOPROXY: 'off',
    GOFLAGS: '',
    GOCACHE: join(cache, 'go-build'),
  };
  const partial = `${binary}.partial`;
  try {
    await promisify(execFile)('go', ['build', '-o', partial, '.'], { cwd: SOURCE, env });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    return { skipped: `bench/gophercloud_list does not build: ${stderr.trim()}` };
  }
  renameSync(partial, binary);
  // Builds of older sources are never run again.
  for (const old of readdirSync(cache).filter((f) => f.startsWith('gophercloud-list-') && join(cache, f) !== binary))
    rmSync(join(cache, old), { force: true });
  return binary;
}

function cacheDir(): string {
  for (const dir of ['/var/cache/openregion/bench', new URL('../.cache/bench', import.meta.url).pathname]) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
      return dir;
    } catch {
      // not writable here: try the next place
    }
  }
  throw new Error('neither /var/cache/openregion/bench nor .cache/bench is writable');
}
