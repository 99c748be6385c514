/**
 * Which SecretStore version a cluster serves, found by API discovery rather than assumed: ESO 2.x serves v1 only,
 * ESO 0.10 v1beta1 (and v1alpha1). The answer is remembered per client and kind, and looked up again whenever a
 * read at the remembered version finds nothing, so an ESO upgrade that stops serving a version is followed.
 */
import type { Client } from '../../kube/client.ts';
import { isNotFound } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { ESO_GROUP, SECRET_STORE_VERSIONS, storeTypeAt, type SecretStoreKind } from './eso.ts';

const PLURAL: Readonly<Record<SecretStoreKind, string>> = {
  SecretStore: 'secretstores',
  ClusterSecretStore: 'clustersecretstores',
};

/** The store type a cluster serves, preferring v1; undefined when it serves neither v1 nor v1beta1. */
export async function discoverStoreType(client: Client, kind: SecretStoreKind): Promise<ResourceType | undefined> {
  const served = await client.servedVersions(ESO_GROUP, PLURAL[kind]);
  const version = SECRET_STORE_VERSIONS.find((v) => served.includes(v));
  return version === undefined ? undefined : storeTypeAt(kind, version);
}

type StoreRead<T extends KubeObject> =
  | { readonly kind: 'found'; readonly store: T; readonly type: ResourceType }
  | { readonly kind: 'absent'; readonly type: ResourceType }
  /** The cluster serves the kind at neither version openregion reads (no ESO, or one too old or too new). */
  | { readonly kind: 'unserved' };

export class StoreVersions {
  readonly #known = new WeakMap<Client, Map<SecretStoreKind, ResourceType>>();

  /** Discovers the type to read `kind` at on `client`, and remembers it. */
  async discover(client: Client, kind: SecretStoreKind): Promise<ResourceType | undefined> {
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
  async read<T extends KubeObject>(
    client: Client,
    kind: SecretStoreKind,
    namespace: string,
    name: string,
  ): Promise<StoreRead<T>> {
    const remembered = this.#known.get(client)?.get(kind);
    if (remembered !== undefined) {
      const store = await getIfServed<T>(client, remembered, namespace, name);
      if (store !== undefined) return { kind: 'found', store, type: remembered };
    }
    const type = await this.discover(client, kind);
    if (type === undefined) return { kind: 'unserved' };
    const store = await getIfServed<T>(client, type, namespace, name);
    return store === undefined ? { kind: 'absent', type } : { kind: 'found', store, type };
  }
}

async function getIfServed<T extends KubeObject>(
  client: Client,
  type: ResourceType,
  namespace: string,
  name: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(type, type.namespaced ? namespace : undefined, name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
