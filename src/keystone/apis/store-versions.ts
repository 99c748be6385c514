/**
 * Which SecretStore version a cluster serves, found by API discovery rather than assumed: ESO 2.x serves v1 only,
 * ESO 0.10 v1beta1 (and v1alpha1). The answer is remembered per client and kind, and looked up again whenever a
 * read at the remembered version finds nothing, so an ESO upgrade that stops serving a version is followed.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { ESO_GROUP, SECRET_STORE_VERSIONS, storeTypeAt, type SecretStore, type SecretStoreKind } from './eso.ts';

const PLURAL: Readonly<Record<SecretStoreKind, string>> = {
  SecretStore: 'secretstores',
  ClusterSecretStore: 'clustersecretstores',
};

/** The store type a cluster serves, preferring v1; undefined when it serves neither v1 nor v1beta1. */
export async function discoverStoreType(
  client: Client,
  kind: SecretStoreKind,
): Promise<ResourceType<SecretStore> | undefined> {
  const served = await client.servedVersions(ESO_GROUP, PLURAL[kind]);
  const version = SECRET_STORE_VERSIONS.find((v) => served.includes(v));
  return version === undefined ? undefined : storeTypeAt(kind, version);
}

type StoreRead =
  | { readonly kind: 'found'; readonly store: SecretStore; readonly type: ResourceType<SecretStore> }
  | { readonly kind: 'absent'; readonly type: ResourceType<SecretStore> }
  /** The cluster serves the kind at neither version openregion reads (no ESO, or one too old or too new). */
  | { readonly kind: 'unserved' };

export class StoreVersions {
  readonly #known = new WeakMap<Client, Map<SecretStoreKind, ResourceType<SecretStore>>>();

  /** Discovers the type to read `kind` at on `client`, and remembers it. */
  async discover(client: Client, kind: SecretStoreKind): Promise<ResourceType<SecretStore> | undefined> {
    let known = this.#known.get(client);
    if (known === undefined) {
      known = new Map();
      this.#known.set(client, known);
    }
    const type = await discoverStoreType(client, kind);
    if (type === undefined) known.delete(kind);
    else known.set(kind, type);
    return type;
  }

  /** Reads a store at the remembered version; a miss there discovers again before it counts as absent. */
  async read(client: Client, kind: SecretStoreKind, namespace: string, name: string): Promise<StoreRead> {
    const remembered = this.#known.get(client)?.get(kind);
    if (remembered !== undefined) {
      const store = await getIfServed(client, remembered, namespace, name);
      if (store !== undefined) return { kind: 'found', store, type: remembered };
    }
    const type = await this.discover(client, kind);
    if (type === undefined) return { kind: 'unserved' };
    const store = await getIfServed(client, type, namespace, name);
    return store === undefined ? { kind: 'absent', type } : { kind: 'found', store, type };
  }
}

function getIfServed(
  client: Client,
  type: ResourceType<SecretStore>,
  namespace: string,
  name: string,
): Promise<SecretStore | undefined> {
  return getOptional(client, type, type.namespaced ? namespace : undefined, name);
}
