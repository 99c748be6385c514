/** The package's name and version, as the program reports them and as it introduces itself to API servers. */
import { readFileSync } from 'node:fs';

/** package.json sits two levels up from both src/util/ and the built dist/util/. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/** The User-Agent openregion's clients send: `openregion/<version>`. */
export function userAgent(): string {
  return `openregion/${packageVersion()}`;
}
