/**
 * From a Region and its credentials Secret to what the OpenStack provider is built from: pure, so the rules
 * (which keys, which errors, when a rebuild is due) are tested without a store. Errors name the Region, the Secret
 * and the key at fault, never a value.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../kube/object.ts';
import type { Region, RegionOpenstack } from '../apis/region.ts';
import type { RegionCredentials } from './principals.ts';

/** The keys of a region's credentials Secret (reference §5 "Trust / scoping"). */
export const CREDENTIAL_KEYS = {
  domainID: 'domain-id',
  projectID: 'project-id',
  userID: 'user-id',
  password: 'password',
} as const;

/** The Region or its Secret cannot yield an OpenStack provider; an operator must fix the configuration. */
export class RegionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegionConfigError';
  }
}

/** The Region is served by another kind of provider (upstream's ErrRegionWrongKind). */
export class RegionProviderKindError extends Error {
  readonly provider: string;
  constructor(regionID: string, provider: string) {
    super(`region ${regionID} is served by the ${provider} provider, not openstack`);
    this.name = 'RegionProviderKindError';
    this.provider = provider;
  }
}

/** `spec.openstack` of an OpenStack Region; RegionProviderKindError for any other provider. */
export function openstackConfigOf(region: Region): RegionOpenstack {
  const { provider, openstack } = region.spec;
  if (provider !== 'openstack') throw new RegionProviderKindError(region.metadata.name, provider);
  if (openstack === undefined) throw new RegionConfigError(`region ${region.metadata.name} has no spec.openstack`);
  return openstack;
}

/** Where the credentials Secret of an OpenStack Region is. */
export function credentialsSecretRef(config: RegionOpenstack): { readonly namespace: string; readonly name: string } {
  return config.serviceAccountSecret;
}

/** The region credentials from the Secret's `data` (base64, as the API server stores it). */
export function parseCredentials(config: RegionOpenstack, secret: KubeObject): RegionCredentials {
  const where = `secret ${config.serviceAccountSecret.namespace}/${config.serviceAccountSecret.name}`;
  const data = secretData(secret);
  const read = (key: string): string => {
    const encoded = data[key];
    if (typeof encoded !== 'string') throw new RegionConfigError(`${where} has no key ${key}`);
    const value = Buffer.from(encoded, 'base64').toString('utf8');
    if (value === '') throw new RegionConfigError(`${where}: key ${key} is empty`);
    return value;
  };
  return {
    authUrl: config.endpoint,
    domainID: read(CREDENTIAL_KEYS.domainID),
    projectID: read(CREDENTIAL_KEYS.projectID),
    userID: read(CREDENTIAL_KEYS.userID),
    password: read(CREDENTIAL_KEYS.password),
  };
}

/**
 * What the client set is derived from: `spec.openstack` and the Secret's data. Equal fingerprints mean the set
 * in hand is still right; anything else about the Region (its labels, its organization allowlist) does not count.
 * A digest, so the password is not kept in a comparable string.
 */
export function configFingerprint(config: RegionOpenstack, secret: KubeObject): string {
  return createHash('sha256')
    .update(canonicalJson(config))
    .update('\0')
    .update(canonicalJson(secretData(secret)))
    .digest('base64url');
}

function secretData(secret: KubeObject): Readonly<Record<string, unknown>> {
  const data = secret['data'];
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
}

/** JSON with object keys sorted, so equal content always digests equally whatever order a store returns. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
