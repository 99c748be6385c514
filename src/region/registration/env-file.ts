/**
 * The provider environment file `region configure` writes and `--mode existing` / `region register` read: shell
 * `KEY='value'` lines, so an operator can `source` it. It holds a password: written 0600, and it belongs in a
 * secret store. Rendering and parsing are pure; the file I/O is `writeEnvFile` / `readEnvFile`.
 */
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { RegionCredentials } from './credentials.ts';

/** Every key, in file order; REGION_NAME is optional (a cloud with one region needs none). */
const ENV_KEYS = {
  authUrl: 'OPENSTACK_AUTH_URL',
  regionName: 'OPENSTACK_REGION_NAME',
  domainID: 'OPENSTACK_DOMAIN_ID',
  domainName: 'OPENSTACK_DOMAIN_NAME',
  projectID: 'OPENSTACK_PROJECT_ID',
  projectName: 'OPENSTACK_PROJECT_NAME',
  userID: 'OPENSTACK_USER_ID',
  userName: 'OPENSTACK_USER_NAME',
  password: 'OPENSTACK_PASSWORD',
} as const satisfies Record<keyof RegionCredentials, string>;

export class EnvFileError extends Error {}

/** Single-quoted for the shell: nothing inside is expanded; a `'` becomes `'\''`. */
const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

export function renderEnvFile(credentials: RegionCredentials, header: string): string {
  const lines = [`# ${header}`, '# It holds a password: keep it in a secret store.'];
  for (const [field, key] of Object.entries(ENV_KEYS) as [keyof RegionCredentials, string][]) {
    const value = credentials[field];
    if (value !== undefined) lines.push(`${key}=${quote(value)}`);
  }
  return lines.join('\n') + '\n';
}

/** Reads `KEY=value`, `KEY='value'` (with `'\''`) and `KEY="value"` lines; `export ` prefixes and comments allowed. */
export function parseEnvText(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match === null) throw new EnvFileError(`line ${String(index + 1)} is not KEY=value`);
    const [, key = '', value = ''] = match;
    out[key] = unquote(value, index + 1);
  }
  return out;
}

function unquote(value: string, line: number): string {
  if (value.startsWith("'")) {
    // 'abc'\''def' → abc'def
    const parts = value.split(`'\\''`);
    const joined = parts.join("'");
    if (!joined.endsWith("'") || joined.length < 2) throw new EnvFileError(`line ${String(line)}: unterminated quote`);
    return joined.slice(1, -1);
  }
  if (value.startsWith('"')) {
    if (!value.endsWith('"') || value.length < 2) throw new EnvFileError(`line ${String(line)}: unterminated quote`);
    return value.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
  }
  return value;
}

/** The credentials an env file holds; names the first missing key. */
export function credentialsFromEnv(env: Readonly<Record<string, string>>): RegionCredentials {
  const required = (field: Exclude<keyof RegionCredentials, 'regionName'>): string => {
    const value = env[ENV_KEYS[field]];
    if (value === undefined || value === '') throw new EnvFileError(`${ENV_KEYS[field]} is missing`);
    return value;
  };
  const regionName = env[ENV_KEYS.regionName];
  return {
    authUrl: required('authUrl'),
    regionName: regionName === '' ? undefined : regionName,
    domainID: required('domainID'),
    domainName: required('domainName'),
    projectID: required('projectID'),
    projectName: required('projectName'),
    userID: required('userID'),
    userName: required('userName'),
    password: required('password'),
  };
}

/** Writes the file 0600, atomically (a temporary file beside it, then a rename). */
export function writeEnvFile(path: string, text: string): void {
  const temporary = `${path}.tmp-${String(process.pid)}`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/** The file's credentials, or undefined when it does not exist. */
export function readEnvFile(path: string): RegionCredentials | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return credentialsFromEnv(parseEnvText(text));
  } catch (error) {
    if (error instanceof EnvFileError) throw new EnvFileError(`${path}: ${error.message}`);
    throw error;
  }
}
