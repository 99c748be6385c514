/**
 * `openregion region configure|register`: register an OpenStack region with tooling rather than by hand
 * (docs/spec/openstack-provider.md §Region registration). The edge: reads argv, the environment and files, then calls
 * the pure-ish core in src/region/registration/.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { Command } from 'commander';
import { loadCloudConfig, type ConfigSources } from '../openstack/config.ts';
import { transportFor } from '../openstack/connect.ts';
import { Session } from '../openstack/session.ts';
import { Transport } from '../openstack/transport.ts';
import { mergeCloudsYaml } from '../region/registration/clouds-entry.ts';
import { configureRegion, planFor, scaffoldingNames } from '../region/registration/configure.ts';
import type { RegionCredentials } from '../region/registration/credentials.ts';
import { readEnvFile, renderEnvFile, writeEnvFile } from '../region/registration/env-file.ts';
import { passwordWorks, RegistrationError, validateCredentials } from '../region/registration/sessions.ts';
import { unconfigureRegion } from '../region/registration/unconfigure.ts';
import { withFormatOptions } from './formatter.ts';
import { regionGcCommand } from './region-gc.ts';
import { deregister, register, type DeregisterOptions, type RegisterOptions } from './region-register.ts';
import { systemClock } from '../util/clock.ts';
import type { Out } from './target.ts';

/** The environment variable a password may be supplied in (argv is visible to every user of the machine). */
const PASSWORD_VARIABLE = 'OPENREGION_REGION_PASSWORD';

export const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
];

interface ConfigureOptions {
  prefix?: string;
  mode: string;
  providerEnv: string;
  osCloud?: string;
  openrc?: string;
  passwordFile?: string;
  legacyMemberRole?: boolean;
  domainRoles?: string[];
  projectRoles?: string[];
  inheritedRoles?: string[];
  cloudsYaml?: string;
  cloudName?: string;
}

export function regionCommand(out: Out = process.stdout, err: Out = process.stderr): Command {
  const region = new Command('region').description(
    'Register an OpenStack region (Keystone scaffolding and manifests), and collect what its teardowns leave behind',
  );

  region
    .command('configure')
    .description(
      "create or update the deployment's Keystone domain, project, user and grants (mode create), or validate an " +
        'existing provider environment (mode existing); writes the provider environment file (0600)',
    )
    .option('--prefix <name>', 'the deployment (e.g. staging): the Keystone domain; project and user <prefix>-region')
    .option('--mode <mode>', 'create, or existing: validate and re-emit --provider-env without creating', 'create')
    .requiredOption('--provider-env <path>', 'the provider environment file to write (mode existing: to read)')
    .option('--os-cloud <name>', 'admin credentials: the clouds.yaml entry (default OS_CLOUD, else OS_* variables)')
    .option('--openrc <file>', 'admin credentials: an openrc file of `export OS_...=` lines')
    .option(
      '--password-file <file>',
      `the region user's password (or ${PASSWORD_VARIABLE}); default: kept, or generated`,
    )
    .option('--legacy-member-role', 'also grant _member_ (older clouds whose Neutron requires it)')
    .option('--domain-roles <roles>', 'roles on the domain (comma-separated)', list)
    .option('--project-roles <roles>', 'roles on the region project (comma-separated)', list)
    .option('--inherited-roles <roles>', 'roles on the domain inherited to its projects (comma-separated)', list)
    .option('--clouds-yaml <path>', 'also write clouds.yaml entries <cloud-name> (domain) and <cloud-name>-project')
    .option('--cloud-name <name>', 'the clouds.yaml entry name (default <prefix>-region)')
    .action((options: ConfigureOptions) => configure(options, out));

  const registerCommand = region
    .command('register')
    .description(
      'create or update the Region resource in the embedded store or Kubernetes, referencing the credentials ' +
        'Secret (created only with --create-secret); prints what the region exports',
    )
    .requiredOption('--provider-env <path>', 'the provider environment file `region configure` wrote')
    .requiredOption('--name <name>', 'the display name (label unikorn-cloud.org/name)')
    .option('--region-id <uuid>', 'the region id, the resource name (default: a new UUID)')
    .option('--namespace <ns>', 'the Region namespace', 'unikorn-region')
    .option('--secret-name <name>', 'the credentials Secret (default <region-id>-openstack)')
    .option('--secret-namespace <ns>', 'the Secret namespace (default: --namespace)')
    .option('--organization-id <id>', 'restrict the region to this organization (repeatable)', list)
    .option('--config <file>', 'YAML of spec.openstack service blocks (compute, network, blockStorage, image, ...)')
    .option('--physical-network <name>', 'the physnet provider (VLAN) networks use')
    .option('--vlan-range <start-end>', 'an allocatable VLAN range (repeatable)', list)
    .option('--external-network <id>', 'export only these external networks (repeatable)', list)
    .option('--flavor <id>', 'export only these flavors (repeatable)', list)
    .option('--volume-type <id>', 'export only these volume types (repeatable)', list)
    .option('--create-secret', 'write the credentials Secret too (local and test regions)')
    .option('--dry-run', 'print the manifests instead of applying them')
    .option('-o, --output <format>', 'yaml or json (with --dry-run)', 'yaml')
    .option('--store <path>', 'the embedded store file')
    .option('--kubeconfig <path>', 'a Kubernetes cluster instead of the embedded store')
    .option('--no-discover', 'skip listing flavors, external networks and volume types');
  withFormatOptions(registerCommand, { optional: true }).action((options: RegisterOptions) =>
    register(options, out, err),
  );

  region
    .command('deregister')
    .description(
      'remove the Region (by --name or --region-id), the Secret and the namespace register created for it; ' +
        'refuses while the region serves resources unless --force; a Region already gone is nothing to do',
    )
    .option('--name <name>', 'the display name')
    .option('--region-id <uuid>', 'the region id')
    .option('--namespace <ns>', 'the Region namespace', 'unikorn-region')
    .option('--store <path>', 'the embedded store file')
    .option('--kubeconfig <path>', 'a Kubernetes cluster instead of the embedded store')
    .option('--force', 'remove the Region even while resources use it (they are left as they are)')
    .action((options: DeregisterOptions) => deregister(options, out));

  region
    .command('unconfigure')
    .description(
      "undo configure: delete the deployment's Keystone user, project and domain; refuses while the domain holds " +
        "the region's identities unless --force; what is gone already is skipped",
    )
    .requiredOption('--prefix <name>', 'the deployment configure made')
    .option('--os-cloud <name>', 'admin credentials: the clouds.yaml entry (default OS_CLOUD, else OS_* variables)')
    .option('--openrc <file>', 'admin credentials: an openrc file of `export OS_...=` lines')
    .option('--provider-env <path>', 'also delete the provider environment file configure wrote')
    .option('--force', "also delete the identities' projects and users (their cloud resources are left behind)")
    .action((options: UnconfigureOptions) => unconfigure(options, out));

  region.addCommand(regionGcCommand(out));
  return region;
}

interface UnconfigureOptions {
  prefix: string;
  osCloud?: string;
  openrc?: string;
  providerEnv?: string;
  force?: boolean;
}

async function unconfigure(options: UnconfigureOptions, out: Out): Promise<void> {
  const clock = systemClock;
  planFor(options.prefix);
  const config = loadCloudConfig(adminSources(options.openrc), options.osCloud);
  const transport = transportFor(config, { clock, random: Math.random });
  try {
    const admin = new Session({ ...config, transport, clock });
    const changes = await unconfigureRegion(admin.client('identity'), {
      prefix: options.prefix,
      force: options.force === true,
    });
    for (const change of changes) out.write(`${change}\n`);
    if (options.providerEnv !== undefined && existsSync(options.providerEnv)) {
      rmSync(options.providerEnv);
      out.write(`deleted ${options.providerEnv}\n`);
    }
    if (changes.length === 0) out.write(`nothing to remove: no domain ${options.prefix}\n`);
  } finally {
    await transport.close();
  }
}

// ---------------------------------------------------------------------------------------------------- configure

async function configure(options: ConfigureOptions, out: Out): Promise<void> {
  const clock = systemClock;
  if (options.mode === 'existing') {
    const credentials = readEnvFile(options.providerEnv);
    if (credentials === undefined) throw new RegistrationError(`${options.providerEnv} does not exist`);
    const transport = new Transport({ clock, random: Math.random });
    try {
      await validateCredentials(credentials, { transport, clock }, options.providerEnv);
    } finally {
      await transport.close();
    }
    emit(credentials, options, `validated (mode existing)`);
    out.write(`${options.providerEnv}: the credentials authenticate to domain and project; re-emitted\n`);
    return;
  }
  if (options.mode !== 'create') throw new RegistrationError('--mode must be create or existing');
  if (options.prefix === undefined) throw new RegistrationError('--prefix is required in mode create');
  const plan = planFor(options.prefix, {
    legacyMemberRole: options.legacyMemberRole === true,
    domainRoles: options.domainRoles,
    projectRoles: options.projectRoles,
    inheritedRoles: options.inheritedRoles,
  });
  const config = loadCloudConfig(adminSources(options.openrc), options.osCloud);
  const transport = transportFor(config, { clock, random: Math.random });
  try {
    const admin = new Session({ ...config, transport, clock });
    const deps = { transport, clock };
    const result = await configureRegion(plan, suppliedPassword(options, config.authUrl), {
      identity: admin.client('identity'),
      authUrl: config.authUrl,
      regionName: config.region,
      authenticates: (userID, password) => passwordWorks(config.authUrl, userID, password, deps),
      newPassword: () => randomBytes(24).toString('base64url'),
    });
    await validateCredentials(result.credentials, deps, `user ${scaffoldingNames(plan.prefix).user}`);
    emit(result.credentials, options, `configure --prefix ${plan.prefix}`);
    for (const change of result.changes) out.write(`${change}\n`);
    out.write(
      `${result.changes.length === 0 ? 'nothing to change' : `${String(result.changes.length)} change(s)`}; ` +
        `credentials in ${options.providerEnv}${options.cloudsYaml ? ` and ${options.cloudsYaml}` : ''}\n`,
    );
  } finally {
    await transport.close();
  }
}

/** The password to keep: supplied (file or variable), else the one the existing env file holds for this cloud. */
function suppliedPassword(options: ConfigureOptions, authUrl: string): string | undefined {
  if (options.passwordFile !== undefined) return readFileSync(options.passwordFile, 'utf8').replace(/\r?\n$/, '');
  const fromVariable = process.env[PASSWORD_VARIABLE];
  if (fromVariable !== undefined && fromVariable !== '') return fromVariable;
  const previous = readEnvFile(options.providerEnv);
  const names = scaffoldingNames(options.prefix ?? '');
  if (previous?.authUrl === authUrl && previous.userName === names.user && previous.domainName === names.domain) {
    return previous.password;
  }
  return undefined;
}

function emit(credentials: RegionCredentials, options: ConfigureOptions, how: string): void {
  writeEnvFile(options.providerEnv, renderEnvFile(credentials, `openregion region provider credentials (${how})`));
  if (options.cloudsYaml !== undefined) {
    const name = options.cloudName ?? `${credentials.domainName}-region`;
    writeEnvFile(options.cloudsYaml, mergeCloudsYaml(readOptional(options.cloudsYaml), name, credentials));
  }
}

/** OS_* from the process, overlaid with an openrc file's `export OS_...=` lines (shell logic in it is ignored). */
function adminSources(openrc: string | undefined): ConfigSources {
  const env: Record<string, string | undefined> = { ...process.env };
  if (openrc !== undefined) {
    for (const line of readFileSync(openrc, 'utf8').split('\n')) {
      const match = /^\s*(?:export\s+)?(OS_[A-Z0-9_]+)=(?:"([^"]*)"|'([^']*)'|(\S*))\s*$/.exec(line);
      if (match?.[1] !== undefined) env[match[1]] = match[2] ?? match[3] ?? match[4] ?? '';
    }
  }
  return { env, cwd: process.cwd(), home: homedir(), readFile: readOptional };
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
