/**
 * The contract suite's view of a cloud: sessions for the identities the seeds use, read from a clouds.yaml that
 * `openregion devcloud up` writes (or any cloud seeded the same way). The same suite runs against the emulator.
 *
 * When no cloud answers, the suite skips loudly on a developer's machine and fails under CI (CI=true): a contract
 * that was not checked must never look like one that passed.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../src/util/clock.ts';
import { RequestAccounting } from '../../src/openstack/accounting.ts';
import type { AuthMethod, ScopeKind } from '../../src/openstack/auth.ts';
import { stringify } from 'yaml';
import { loadCloudConfig, rawCloudEntry, type CloudConfig } from '../../src/openstack/config.ts';
import { connect, transportFor } from '../../src/openstack/connect.ts';
import { Session } from '../../src/openstack/session.ts';
import type { Transport } from '../../src/openstack/transport.ts';
import { Emulator } from '../../src/emulator/emulator.ts';
import { contractCloudsYaml, seedEmulator } from './seed.ts';

const STATE = process.env.OPENREGION_DEVCLOUD_STATE ?? '/var/lib/openregion-devcloud';
/** The clouds.yaml the suite reads: the dev cloud's, unless OPENREGION_CONTRACT_CLOUDS names another. */
export const cloudsFile = process.env.OPENREGION_CONTRACT_CLOUDS ?? `${STATE}/clouds.yaml`;
/** The cloud under contract: the dev cloud, or with OPENREGION_CONTRACT_TARGET=emulator an in-process emulator. */
export const cloudTarget: 'devcloud' | 'emulator' =
  process.env.OPENREGION_CONTRACT_TARGET === 'emulator' ? 'emulator' : 'devcloud';

export interface ContractCloud {
  readonly transport: Transport;
  readonly accounting: RequestAccounting;
  /** admin in project admin: for fixtures a tenant cannot make (flavors, provider networks, nodes). */
  readonly admin: Session<'project'>;
  /**
   * The region service account scoped to its managed domain `openregion`: the non-admin credential `openregion
   * region configure` made (the dev cloud's clouds.yaml entry devcloud-region; in the emulator, the same call).
   */
  readonly region: Session<'domain'>;
  /** That account's credential, to scope it elsewhere (an identity project of its domain). */
  readonly regionAuth: AuthMethod;
  /** The same account scoped to its own project `openregion-region`. */
  readonly regionProject: Session<'project'>;
  readonly authUrl: string;
  /** A clouds.yaml holding the admin as cloud `admin`, as a ControlPlane hands K-ORC its credentials. */
  readonly adminCloudsYaml: string;
  /** A session for any credential against this cloud (users and application credentials a test made). */
  sessionFor<K extends ScopeKind>(auth: AuthMethod, scope: SessionScope<K>): Session<K>;
  /** A name unique to this run, so parallel or interrupted runs never collide: `ct-<run>-<what>`. */
  name(what: string): string;
  close(): Promise<void>;
}

type SessionScope<K extends ScopeKind> = ConstructorParameters<typeof Session<K>>[0]['scope'];

const run = randomBytes(3).toString('hex');

/** The cloud under contract, or undefined after a loud skip notice (outside CI) when none answers. */
export async function contractCloud(): Promise<ContractCloud | undefined> {
  // One fresh emulator per test file, seeded like the dev cloud and configured like it.
  const emulator = cloudTarget === 'emulator' ? await Emulator.start() : undefined;
  const emulatedClouds = emulator && contractCloudsYaml(emulator, await seedEmulator(emulator));
  let configs: Record<'admin' | 'region' | 'regionProject', CloudConfig>;
  let adminCloudsYaml: string;
  try {
    const sources = {
      env: { OS_CLIENT_CONFIG_FILE: cloudsFile },
      cwd: '/nonexistent',
      home: '/nonexistent',
      // undefined for a file that does not exist (secure.yaml is optional), as loadCloudConfig expects.
      readFile: (path: string) => {
        if (emulatedClouds !== undefined && path === cloudsFile) return emulatedClouds;
        try {
          return readFileSync(path, 'utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw error;
        }
      },
    };
    configs = {
      admin: loadCloudConfig(sources, 'devcloud-admin'),
      region: loadCloudConfig(sources, 'devcloud-region'),
      regionProject: loadCloudConfig(sources, 'devcloud-region-project'),
    };
    adminCloudsYaml = stringify({ clouds: { admin: rawCloudEntry(sources, 'devcloud-admin') } });
  } catch (cause) {
    unavailable(`cannot read ${cloudsFile}: ${(cause as Error).message}`);
    return;
  }
  const accounting = new RequestAccounting();
  const transport = transportFor(configs.admin, {
    clock: systemClock,
    random: Math.random,
    observer: accounting.observe,
  });
  const admin = connect(configs.admin, 'project', transport, systemClock);
  try {
    await admin.token();
  } catch (cause) {
    await transport.close();
    unavailable(`Keystone at ${configs.admin.authUrl} does not answer: ${(cause as Error).message}`);
    return;
  }
  const authUrl = configs.admin.authUrl;
  return {
    transport,
    accounting,
    admin,
    region: connect(configs.region, 'domain', transport, systemClock),
    regionAuth: configs.region.auth,
    regionProject: connect(configs.regionProject, 'project', transport, systemClock),
    authUrl,
    adminCloudsYaml,
    sessionFor: <K extends ScopeKind>(auth: AuthMethod, scope: SessionScope<K>) =>
      new Session<K>({ authUrl, auth, scope, transport, clock: systemClock, region: 'RegionOne' }),
    name: (what) => `ct-${run}-${what}`,
    close: async () => {
      await transport.close();
      await emulator?.close();
    },
  };
}

function unavailable(reason: string): undefined {
  const message = `OpenStack contract suite: no cloud (${reason}). Start one with \`npm run openregion -- devcloud up\`.`;
  if (process.env.CI === 'true') throw new Error(`${message} Under CI this is a failure, not a skip.`);
  process.stderr.write(`\n*** SKIPPING: ${message} ***\n\n`);
  return undefined;
}

/** Polls `read` until `done` holds or `timeoutMs` passes; returns the last value read. */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 120_000, intervalMs = 250, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      const seen = (JSON.stringify(value) as string | undefined)?.slice(0, 500);
      throw new Error(`timed out after ${String(timeoutMs)} ms waiting for ${what}; last seen: ${seen}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
