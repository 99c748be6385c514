/**
 * Cloud configuration as the OpenStack CLI reads it: a named cloud from clouds.yaml (merged with secure.yaml), or
 * the `OS_*` environment variables. Parsed once, at the edge: callers pass the environment and a file reader in,
 * and get a validated CloudConfig or a ConfigError naming the setting and the rule it broke.
 */
import { join } from 'node:path';
import Type from 'typebox';
import Value from 'typebox/value';
import { parse as parseYaml } from 'yaml';
import type { AuthMethod, DomainRef, ProjectRef, Scope, UserRef } from './auth.ts';
import { serviceTypeAliases, type Interface, type ServiceType } from './catalog.ts';
import { ConfigError } from './errors.ts';
import type { MicroversionConfig } from './microversion.ts';
import type { TlsOptions } from './transport.ts';

export interface CloudConfig {
  /** The clouds.yaml entry it came from, or `envvars`. */
  readonly name: string;
  readonly authUrl: string;
  readonly auth: AuthMethod;
  readonly scope: Scope;
  readonly region: string | undefined;
  readonly interface: Interface;
  readonly endpointOverrides: Partial<Record<ServiceType, string>>;
  readonly tls: TlsOptions;
  readonly microversions: MicroversionConfig;
}

export interface ConfigSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly home: string;
  /** The file's text, or undefined when it does not exist. */
  readonly readFile: (path: string) => string | undefined;
}

const AuthSection = Type.Object({
  auth_url: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  user_domain_name: Type.Optional(Type.String()),
  user_domain_id: Type.Optional(Type.String()),
  project_name: Type.Optional(Type.String()),
  project_id: Type.Optional(Type.String()),
  tenant_name: Type.Optional(Type.String()),
  tenant_id: Type.Optional(Type.String()),
  project_domain_name: Type.Optional(Type.String()),
  project_domain_id: Type.Optional(Type.String()),
  domain_name: Type.Optional(Type.String()),
  domain_id: Type.Optional(Type.String()),
  default_domain: Type.Optional(Type.String()),
  system_scope: Type.Optional(Type.String()),
  application_credential_id: Type.Optional(Type.String()),
  application_credential_name: Type.Optional(Type.String()),
  application_credential_secret: Type.Optional(Type.String()),
  token: Type.Optional(Type.String()),
});

/** The keys of a clouds.yaml entry openregion reads; others are allowed and ignored, as the OpenStack CLI does. */
const CloudEntry = Type.Object({
  auth: Type.Optional(AuthSection),
  auth_type: Type.Optional(Type.String()),
  region_name: Type.Optional(Type.String()),
  interface: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('internal'), Type.Literal('admin')])),
  cacert: Type.Optional(Type.String()),
  verify: Type.Optional(Type.Boolean()),
  insecure: Type.Optional(Type.Boolean()),
  compute_api_version: Type.Optional(Type.String()),
  identity_api_version: Type.Optional(Type.Union([Type.String(), Type.Number()])),
});
type CloudEntry = Type.Static<typeof CloudEntry>;
type RawCloud = CloudEntry & Readonly<Record<string, unknown>>;

/** Loads the cloud `name` (default: `OS_CLOUD`) from clouds.yaml, or the `OS_*` variables when no cloud is named. */
export function loadCloudConfig(sources: ConfigSources, name?: string): CloudConfig {
  const cloudName = name ?? nonEmpty(sources.env.OS_CLOUD);
  if (cloudName === undefined) return toCloudConfig('envvars', cloudFromEnv(sources.env));
  const clouds = readClouds(sources);
  const entry = clouds.clouds[cloudName];
  if (entry === undefined) {
    const known = Object.keys(clouds.clouds);
    throw new ConfigError(
      'OS_CLOUD',
      `no cloud named ${JSON.stringify(cloudName)} in ${clouds.files.join(', ') || 'any clouds.yaml'}` +
        (known.length ? ` (known: ${known.join(', ')})` : '') +
        `; searched ${clouds.searched.join(', ')} (OS_CLIENT_CONFIG_FILE names another file)`,
    );
  }
  return toCloudConfig(cloudName, entry);
}

/** The entry `name` as written in clouds.yaml (merged with secure.yaml), to hand the same cloud to another program. */
export function rawCloudEntry(sources: ConfigSources, name: string): Readonly<Record<string, unknown>> | undefined {
  const entry = readClouds(sources).clouds[name];
  return isRecord(entry) ? entry : undefined;
}

/** Where the OpenStack CLI looks for clouds.yaml and secure.yaml, first match wins. */
export function configSearchPath(sources: Pick<ConfigSources, 'cwd' | 'home'>, file: string): string[] {
  return [join(sources.cwd, file), join(sources.home, '.config', 'openstack', file), join('/etc/openstack', file)];
}

interface CloudsFile {
  readonly clouds: Record<string, unknown>;
  /** The files read. */
  readonly files: string[];
  /** Every clouds.yaml path looked at, in order. */
  readonly searched: string[];
}

function readClouds(sources: ConfigSources): CloudsFile {
  const files: string[] = [];
  const searched: string[] = [];
  const load = (explicit: string | undefined, file: string): Record<string, unknown> => {
    const candidates = explicit !== undefined ? [explicit] : configSearchPath(sources, file);
    for (const path of candidates) {
      if (file === 'clouds.yaml') searched.push(path);
      const text = sources.readFile(path);
      if (text === undefined) continue;
      files.push(path);
      let parsed: unknown;
      try {
        parsed = parseYaml(text);
      } catch (cause) {
        throw new ConfigError(path, `is not valid YAML: ${(cause as Error).message}`);
      }
      const clouds = (parsed as { clouds?: unknown } | null)?.clouds;
      if (!isRecord(clouds)) throw new ConfigError(`${path}: clouds`, 'must be a mapping of cloud names to settings');
      return clouds;
    }
    if (explicit !== undefined)
      throw new ConfigError(
        file === 'clouds.yaml' ? 'OS_CLIENT_CONFIG_FILE' : 'OS_CLIENT_SECURE_FILE',
        `${explicit} does not exist`,
      );
    return {};
  };
  const clouds = load(nonEmpty(sources.env.OS_CLIENT_CONFIG_FILE), 'clouds.yaml');
  const secure = load(nonEmpty(sources.env.OS_CLIENT_SECURE_FILE), 'secure.yaml');
  return { clouds: deepMerge(clouds, secure), files, searched };
}

const ENV_AUTH_KEYS: readonly (keyof Type.Static<typeof AuthSection>)[] = Object.keys(
  AuthSection.properties,
) as (keyof Type.Static<typeof AuthSection>)[];

/** The `envvars` cloud: `OS_FOO_BAR` is the clouds.yaml key `foo_bar`, under `auth` for credential keys. */
function cloudFromEnv(env: ConfigSources['env']): RawCloud {
  const auth: Record<string, string> = {};
  const cloud: Record<string, unknown> = {};
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith('OS_') || value === undefined || value === '') continue;
    const key = variable.slice(3).toLowerCase();
    if ((ENV_AUTH_KEYS as readonly string[]).includes(key)) auth[key] = value;
    else cloud[key] = value;
  }
  if (cloud.endpoint_type !== undefined && cloud.interface === undefined) {
    cloud.interface = (cloud.endpoint_type as string).replace(/URL$/, '');
  }
  for (const flag of ['insecure', 'verify']) {
    if (typeof cloud[flag] === 'string') cloud[flag] = /^(1|true|yes|on)$/i.test(cloud[flag]);
  }
  return { ...cloud, auth };
}

function toCloudConfig(name: string, raw: unknown): CloudConfig {
  if (!isRecord(raw)) throw new ConfigError(`clouds.${name}`, 'must be a mapping');
  if (typeof raw.compute_api_version === 'number') {
    throw new ConfigError(
      `clouds.${name}.compute_api_version`,
      `must be a quoted string ("2.90"): YAML read it as the number ${String(raw.compute_api_version)}`,
    );
  }
  const error = Value.Errors(CloudEntry, raw)[0];
  if (error) {
    const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    throw new ConfigError(`clouds.${name}${path ? `.${path}` : ''}`, error.message);
  }
  const cloud = raw as RawCloud;
  const auth = cloud.auth ?? {};
  const authUrl = auth.auth_url;
  if (authUrl === undefined) throw new ConfigError(`clouds.${name}.auth.auth_url`, 'is required (OS_AUTH_URL)');
  const method = authMethod(name, cloud.auth_type, auth);
  return {
    name,
    authUrl,
    auth: method,
    scope: method.type === 'application_credential' ? { kind: 'unscoped' } : scopeOf(name, auth),
    region: cloud.region_name,
    interface: cloud.interface ?? 'public',
    endpointOverrides: endpointOverrides(cloud),
    tls: { caFile: cloud.cacert, insecure: cloud.insecure === true || cloud.verify === false },
    microversions: { compute: cloud.compute_api_version },
  };
}

type Auth = Type.Static<typeof AuthSection>;

function authMethod(cloud: string, authType: string | undefined, auth: Auth): AuthMethod {
  const field = (key: string) => `clouds.${cloud}.auth.${key}`;
  const type =
    authType ??
    (auth.application_credential_secret !== undefined
      ? 'v3applicationcredential'
      : auth.token !== undefined && auth.password === undefined
        ? 'token'
        : 'password');
  switch (type) {
    case 'password':
    case 'v3password': {
      if (auth.password === undefined)
        throw new ConfigError(field('password'), 'is required for password authentication');
      return { type: 'password', user: userOf(cloud, auth), password: auth.password };
    }
    case 'v3applicationcredential': {
      const secret = auth.application_credential_secret;
      if (secret === undefined)
        throw new ConfigError(field('application_credential_secret'), 'is required for application credentials');
      if (auth.application_credential_id !== undefined)
        return { type: 'application_credential', id: auth.application_credential_id, secret };
      if (auth.application_credential_name !== undefined) {
        return {
          type: 'application_credential',
          name: auth.application_credential_name,
          user: userOf(cloud, auth),
          secret,
        };
      }
      throw new ConfigError(
        field('application_credential_id'),
        'an application credential needs its id, or its name and user',
      );
    }
    case 'token':
    case 'v3token':
      if (auth.token === undefined) throw new ConfigError(field('token'), 'is required for token authentication');
      return { type: 'token', token: auth.token };
    default:
      throw new ConfigError(
        `clouds.${cloud}.auth_type`,
        `${type} is not supported (password, v3applicationcredential, token)`,
      );
  }
}

function userOf(cloud: string, auth: Auth): UserRef {
  if (auth.user_id !== undefined) return { id: auth.user_id };
  if (auth.username === undefined)
    throw new ConfigError(`clouds.${cloud}.auth.username`, 'a user id or a user name is required');
  const domain = domainOf(auth.user_domain_id, auth.user_domain_name, fallbackDomain(auth));
  if (domain === undefined)
    throw new ConfigError(`clouds.${cloud}.auth.user_domain_name`, 'a user named by name needs its domain');
  return { name: auth.username, domain };
}

function scopeOf(cloud: string, auth: Auth): Scope {
  const projectID = auth.project_id ?? auth.tenant_id;
  const projectName = auth.project_name ?? auth.tenant_name;
  if (projectID !== undefined) return { kind: 'project', project: { id: projectID } };
  if (projectName !== undefined) {
    const domain = domainOf(auth.project_domain_id, auth.project_domain_name, fallbackDomain(auth));
    if (domain === undefined)
      throw new ConfigError(`clouds.${cloud}.auth.project_domain_name`, 'a project named by name needs its domain');
    const project: ProjectRef = { name: projectName, domain };
    return { kind: 'project', project };
  }
  const domain = domainOf(auth.domain_id, auth.domain_name);
  if (domain !== undefined) return { kind: 'domain', domain };
  if (auth.system_scope !== undefined) return { kind: 'system' };
  return { kind: 'unscoped' };
}

function domainOf(id: string | undefined, name: string | undefined, fallback?: DomainRef): DomainRef | undefined {
  if (id !== undefined) return { id };
  if (name !== undefined) return { name };
  return fallback;
}

/**
 * The domain for a user or project named without one: `default_domain`, or, as the OpenStack SDK does when a
 * project is named, `domain_id`/`domain_name` (which then do not ask for a domain scope).
 */
function fallbackDomain(auth: Auth): DomainRef | undefined {
  if (auth.default_domain !== undefined) return { id: auth.default_domain };
  const projectNamed = (auth.project_name ?? auth.tenant_name ?? auth.project_id ?? auth.tenant_id) !== undefined;
  return projectNamed ? domainOf(auth.domain_id, auth.domain_name) : undefined;
}

/** `<service>_endpoint_override`, with any of the service's type aliases (dashes as underscores). */
function endpointOverrides(cloud: RawCloud): Partial<Record<ServiceType, string>> {
  const out: Partial<Record<ServiceType, string>> = {};
  for (const [type, aliases] of Object.entries(serviceTypeAliases) as [ServiceType, readonly string[]][]) {
    for (const alias of aliases) {
      const value = cloud[`${alias.replace(/-/g, '_')}_endpoint_override`];
      if (typeof value === 'string' && value !== '') {
        out[type] = value;
        break;
      }
    }
  }
  return out;
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = out[key];
    out[key] = isRecord(existing) && isRecord(value) ? deepMerge(existing, value) : value;
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
