/**
 * Where the everyday verbs (apply, get, delete, wait) act: the embedded store file a running `openregion up`
 * uses (the default), or a Kubernetes cluster (--kubeconfig). Kinds are resolved the same way on both: the
 * built-in ones plus every CustomResourceDefinition the cluster stores, by kind, plural, singular or short name.
 * Only `apply` (a write) creates a store; the others refuse one that is not there, saying how to start one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Client } from '../kube/client.ts';
import type { PrinterColumn } from '../kube/crd.ts';
import type { StoreEncryption } from '../kube/embedded/encryption.ts';
import type { KubeObject } from '../kube/object.ts';
import { apiVersionOf, builtin, type ResourceType } from '../kube/resource-type.ts';
import { systemClock } from '../util/clock.ts';
import type { FailureClass } from './failure.ts';

const POD_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export const DEFAULT_STORE = './.openregion/store.db';
/** What `--store` defaults to when set; `openregion up`'s dev.env exports it. */
export const STORE_VARIABLE = 'OPENREGION_STORE';

/** A failure the CLI words itself, with its class (failure.ts): the command line's fault unless it says otherwise. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly failureClass: FailureClass = 'usage',
  ) {
    super(message);
  }
}

export interface Target {
  readonly store: string;
  readonly kubeconfig?: string | undefined;
  /** A kubeconfig context: Kubernetes, found by kubectl's rules ($KUBECONFIG, ~/.kube/config) unless --kubeconfig. */
  readonly context?: string | undefined;
  /** The store's encryption keys (default: the key file beside the store, when there is one). */
  readonly encryptionKeyFile?: string | undefined;
}

export interface Connection {
  readonly client: Client;
  /** Where a namespaced verb acts without -n: the kubeconfig context's namespace, else `default` (kubectl's rule). */
  readonly namespace: string;
  close(): Promise<void>;
}

export async function connect(target: Target, options: { readonly create?: boolean } = {}): Promise<Connection> {
  if (target.kubeconfig !== undefined || target.context !== undefined) {
    // Loaded only here: the Kubernetes client library is most of a short command's start-up time.
    const { kubeClientFrom } = await import('../kube/kubernetes/connect.ts');
    const { fileEnvironment, KubeconfigError, resolveKubeconfig } = await import('../kube/kubernetes/kubeconfig.ts');
    let source;
    try {
      source = resolveKubeconfig(target, fileEnvironment(process.env));
    } catch (error) {
      if (error instanceof KubeconfigError) throw new CliError(error.message, 'rejected');
      throw error;
    }
    const client = kubeClientFrom(source.kind === 'in-cluster' ? { inCluster: true } : { kubeconfig: source.text });
    return {
      client,
      namespace: source.kind === 'in-cluster' ? podNamespace() : contextNamespace(source.text),
      close: () => {
        client.close();
        return Promise.resolve();
      },
    };
  }
  if (options.create !== true && target.store !== ':memory:' && !existsSync(target.store)) {
    throw new CliError(
      `no store at ${target.store}: start one with \`npm start\` (openregion up) and run this where it runs, or ` +
        `source its .openregion/dev.env (it sets ${STORE_VARIABLE}), or pass --store PATH or --kubeconfig FILE`,
      'unreachable',
    );
  }
  // Loaded only here, like the Kubernetes client: completion's answers without a store (verbs, flags) stay quick.
  const { openEmbeddedStore } = await import('../kube/embedded/store.ts');
  const { KeyFileError, storeEncryption } = await import('./store-encryption.ts');
  let encryption: StoreEncryption | undefined;
  try {
    encryption = storeEncryption(target.store, { keyFile: target.encryptionKeyFile, clock: systemClock });
  } catch (error) {
    if (error instanceof KeyFileError) throw new CliError(error.message, 'rejected');
    throw error;
  }
  const store = openEmbeddedStore(target.store, {
    clock: systemClock,
    garbageCollection: false,
    encryption,
  });
  return { client: store, namespace: 'default', close: () => store.close() };
}

/** The namespace the kubeconfig's current context names (resolveKubeconfig has set it to --context's). */
function contextNamespace(kubeconfig: string): string {
  const doc = parse(kubeconfig) as {
    'current-context'?: string;
    contexts?: { name: string; context?: { namespace?: string } }[];
  };
  const current = doc.contexts?.find((c) => c.name === doc['current-context']);
  return current?.context?.namespace ?? 'default';
}

/** In a pod, the service account's namespace, as kubectl's in-cluster configuration reads it. */
function podNamespace(): string {
  try {
    return readFileSync(POD_NAMESPACE, 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

export interface KindEntry {
  readonly type: ResourceType;
  readonly singular: string;
  readonly shortNames: readonly string[];
  /** The CRD's additionalPrinterColumns at that version (none for built-in kinds and CRDs without). */
  readonly printerColumns: readonly PrinterColumn[];
  /** The CRD's categories (`kubectl get all`, `get unikorn`): none for the built-in kinds here. */
  readonly categories: readonly string[];
  /** The CRD's openAPIV3Schema at that version, for `explain` (none for built-in kinds). */
  readonly schema?: unknown;
}

interface CrdNames {
  spec?: {
    group?: string;
    scope?: string;
    names?: { kind?: string; plural?: string; singular?: string; shortNames?: string[]; categories?: string[] };
    versions?: {
      name: string;
      served?: boolean;
      storage?: boolean;
      additionalPrinterColumns?: PrinterColumn[];
      schema?: { openAPIV3Schema?: unknown };
    }[];
  };
}

/** kubectl's short names for the built-in kinds the store serves. */
const BUILTIN_SHORT_NAMES: Readonly<Record<string, readonly string[]>> = {
  namespaces: ['ns'],
  configmaps: ['cm'],
  events: ['ev'],
  customresourcedefinitions: ['crd', 'crds'],
};

export async function kindsOf(client: Client): Promise<KindEntry[]> {
  const builtins: KindEntry[] = Object.values(builtin).map((type) => ({
    type,
    singular: type.kind.toLowerCase(),
    shortNames: BUILTIN_SHORT_NAMES[type.plural] ?? [],
    printerColumns: [],
    categories: [],
  }));
  const { items } = await client.list(builtin.customResourceDefinition);
  const custom = items.flatMap((crd): KindEntry[] => {
    // Read defensively: a CRD the server holds need not be one this tool wrote.
    const spec = (crd as CrdNames).spec ?? {};
    const names = spec.names ?? {};
    const version = spec.versions?.find((v) => v.storage === true) ?? spec.versions?.find((v) => v.served === true);
    if (spec.group === undefined || names.kind === undefined || names.plural === undefined || version === undefined) {
      return [];
    }
    const type: ResourceType = {
      group: spec.group,
      version: version.name,
      kind: names.kind,
      plural: names.plural,
      namespaced: spec.scope !== 'Cluster',
    };
    return [
      {
        type,
        singular: names.singular ?? names.kind.toLowerCase(),
        shortNames: names.shortNames ?? [],
        printerColumns: version.additionalPrinterColumns ?? [],
        categories: names.categories ?? [],
        schema: version.schema?.openAPIV3Schema,
      },
    ];
  });
  return [...builtins, ...custom];
}

/** The kind a name on the command line means: kind, plural, singular, short name, optionally `.group`-qualified. */
export function resolveKind(kinds: readonly KindEntry[], name: string): ResourceType {
  return resolveEntry(kinds, name).type;
}

/** resolveKind with what the cluster says of the kind (its printer columns). */
export function resolveEntry(kinds: readonly KindEntry[], name: string): KindEntry {
  const wanted = name.toLowerCase();
  for (const k of kinds) {
    const names = [k.type.kind.toLowerCase(), k.type.plural, k.singular, ...k.shortNames];
    const qualified = names.map((n) => (k.type.group === '' ? n : `${n}.${k.type.group}`));
    if (names.includes(wanted) || qualified.includes(wanted)) return k;
  }
  throw new CliError(`the server doesn't have a resource type "${name}"`, 'failed');
}

export function kindOfObject(kinds: readonly KindEntry[], object: KubeObject): ResourceType {
  const found = kinds.find((k) => apiVersionOf(k.type) === object.apiVersion && k.type.kind === object.kind);
  if (found === undefined) {
    throw new CliError(`no matches for kind "${object.kind}" in version "${object.apiVersion}"`, 'rejected');
  }
  return found.type;
}
