/**
 * What `openregion up` keeps in its directory (./.openregion by default), every file 0600: the store, the built-in
 * cloud (the emulator's state file), the development signing key, the token, dev.env (what a second terminal
 * sources), clouds.yaml (the emulator's admin), region.env (the region account `region configure` made, so a
 * restart converges rather than resets it), and the lock (up.lock, up.pid) that keeps a second `up` out.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DevKeyPair } from '../../region/http/dev-token.ts';

interface UpFiles {
  readonly dir: string;
  readonly store: string;
  /** The built-in emulator's cloud. */
  readonly cloud: string;
  readonly key: string;
  readonly token: string;
  readonly devEnv: string;
  readonly cloudsYaml: string;
  readonly regionEnv: string;
}

export function upFiles(dir: string): UpFiles {
  return {
    dir,
    store: join(dir, 'store.db'),
    cloud: join(dir, 'cloud.db'),
    key: join(dir, 'dev-key.json'),
    token: join(dir, 'token'),
    devEnv: join(dir, 'dev.env'),
    cloudsYaml: join(dir, 'clouds.yaml'),
    regionEnv: join(dir, 'region.env'),
  };
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function writePrivate(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The tenancy and region a run uses; the same on every restart. */
export interface DevIdentity {
  readonly organizationID: string;
  readonly projectID: string;
  readonly regionID: string;
}

const DEV_ENV_KEYS = {
  api: 'OPENREGION_API',
  organization: 'OPENREGION_ORGANIZATION_ID',
  project: 'OPENREGION_PROJECT_ID',
  region: 'OPENREGION_REGION_ID',
  /** The store `openregion get|wait|apply|delete` read by default, so they work from any directory. */
  store: 'OPENREGION_STORE',
} as const;

/** The cloud dev.env points the OpenStack CLI (and `openregion cloud check`) at: the emulator's admin. */
interface DevCloud {
  readonly cloudsYaml: string;
  readonly name: string;
}

/**
 * `export KEY=value` lines, so `source ./.openregion/dev.env` works in any POSIX shell: the API, the tenancy, the
 * store, and (with the built-in emulator) OS_CLIENT_CONFIG_FILE and OS_CLOUD, which the OpenStack CLI and
 * `openregion cloud check` read. Paths are absolute, so the variables hold wherever the shell goes.
 */
export function renderDevEnv(api: string, identity: DevIdentity, files: UpFiles, cloud?: DevCloud): string {
  const quote = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`);
  return (
    [
      '# openregion up: source this file (. ./.openregion/dev.env) in a second terminal',
      `export ${DEV_ENV_KEYS.api}=${api}`,
      `export ${DEV_ENV_KEYS.organization}=${identity.organizationID}`,
      `export ${DEV_ENV_KEYS.project}=${identity.projectID}`,
      `export ${DEV_ENV_KEYS.region}=${identity.regionID}`,
      `export ${DEV_ENV_KEYS.store}=${quote(resolve(files.store))}`,
      ...(cloud === undefined
        ? []
        : [`export OS_CLIENT_CONFIG_FILE=${quote(resolve(cloud.cloudsYaml))}`, `export OS_CLOUD=${quote(cloud.name)}`]),
    ].join('\n') + '\n'
  );
}

export function parseDevEnv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] === undefined) continue;
    const value = (match[2] ?? '').trim();
    values[match[1]] = /^'.*'$/.test(value) ? value.slice(1, -1).replaceAll(`'\\''`, "'") : value;
  }
  return values;
}

/** The previous run's identity, or a new one. */
export function devIdentity(files: UpFiles, newID: () => string = randomUUID): DevIdentity {
  const previous = existsSync(files.devEnv) ? parseDevEnv(readFileSync(files.devEnv, 'utf8')) : {};
  return {
    organizationID: previous[DEV_ENV_KEYS.organization] ?? newID(),
    projectID: previous[DEV_ENV_KEYS.project] ?? newID(),
    regionID: previous[DEV_ENV_KEYS.region] ?? newID(),
  };
}

export function readKeyPair(path: string): DevKeyPair | undefined {
  if (!existsSync(path)) return undefined;
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<DevKeyPair>;
  return parsed.privateJwk !== undefined && parsed.publicJwk !== undefined
    ? { privateJwk: parsed.privateJwk, publicJwk: parsed.publicJwk }
    : undefined;
}
