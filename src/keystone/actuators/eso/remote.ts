/**
 * Pure pieces of a push, after ESO's Vault provider: which store a ref names, the store's Vault settings, and the
 * value a data entry puts at its remote key.
 */
import type { KubeObject } from '../../../kube/object.ts';
import type { PushSecret, SecretStore } from '../../apis/eso.ts';

/** ESO's custom metadata marking a KV path as its own; a path without it is never overwritten or deleted. */
export const MANAGED_BY_KEY = 'managed-by';
export const MANAGED_BY_VALUE = 'external-secrets';

interface VaultStore {
  readonly server: string;
  readonly mount: string;
  readonly tokenSecret: { readonly name: string; readonly key: string };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (o: Record<string, unknown>, k: string) => (typeof o[k] === 'string' ? o[k] : undefined);

/** The store's Vault KV v2 settings with token auth, or why this actuator cannot use it. */
export function vaultStoreOf(store: SecretStore): VaultStore | { readonly unsupported: string } {
  const vault = store.spec.provider['vault'];
  if (!isRecord(vault)) return { unsupported: 'only the vault provider is supported' };
  const server = str(vault, 'server');
  const mount = str(vault, 'path');
  if (server === undefined || mount === undefined) return { unsupported: 'vault provider needs server and path' };
  if ((str(vault, 'version') ?? 'v2') !== 'v2') return { unsupported: 'only KV version v2 is supported' };
  const auth = isRecord(vault['auth']) ? vault['auth'] : {};
  const ref = isRecord(auth['tokenSecretRef']) ? auth['tokenSecretRef'] : undefined;
  const name = ref === undefined ? undefined : str(ref, 'name');
  const key = ref === undefined ? undefined : str(ref, 'key');
  if (name === undefined || key === undefined) return { unsupported: 'only token auth (tokenSecretRef) is supported' };
  return { server, mount, tokenSecret: { name, key } };
}

/** The status key of a store, `"<Kind>/<name>"`, as `status.syncedPushSecrets` is keyed. */
export function storeKey(kind: string, name: string): string {
  return `${kind}/${name}`;
}

/** The store refs this actuator resolves: named SecretStores in the PushSecret's namespace. */
export function storeRefsOf(ps: PushSecret): ({ readonly name: string } | { readonly unsupported: string })[] {
  return ps.spec.secretStoreRefs.map((ref) =>
    ref.name !== undefined && (ref.kind ?? 'SecretStore') === 'SecretStore'
      ? { name: ref.name }
      : { unsupported: 'only SecretStore refs by name are supported' },
  );
}

/** A Secret's `data`, base64-decoded to strings. */
export function secretStrings(secret: KubeObject): Record<string, string> {
  const data = isRecord(secret['data']) ? secret['data'] : {};
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(typeof v === 'string' ? v : '', 'base64').toString('utf8')]),
  );
}

type DataEntry = NonNullable<PushSecret['spec']['data']>[number];

/**
 * What an entry writes. No secretKey: the whole Secret as one map (c5c3's form). A secretKey with a property: that
 * value under the property, merged into the remote map. A secretKey alone: the value must itself be a JSON object.
 */
export function entryValue(
  entry: DataEntry,
  secret: Readonly<Record<string, string>>,
): { readonly value: Record<string, unknown>; readonly merge: boolean } | { readonly error: string } {
  const { secretKey } = entry.match;
  const { property } = entry.match.remoteRef;
  if (secretKey === undefined || secretKey === '') return { value: { ...secret }, merge: false };
  const raw = secret[secretKey];
  if (raw === undefined) return { error: `key ${secretKey} not found in source secret` };
  if (property !== undefined && property !== '') return { value: { [property]: raw }, merge: true };
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (isRecord(parsed)) return { value: parsed, merge: false };
  } catch {
    // Falls through to the error below.
  }
  return { error: `value of key ${secretKey} is not a JSON object; set remoteRef.property` };
}

/** Deep equality of JSON values, to skip a write that would change nothing (as ESO does). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}
