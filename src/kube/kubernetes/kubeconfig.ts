/**
 * Which cluster a command talks to, by kubectl's rules (client-go's clientcmd loading rules):
 *
 * 1. `--kubeconfig FILE`: that file alone;
 * 2. else `$KUBECONFIG`: its files (split on `:`, missing ones skipped) merged, the first file to name a cluster,
 *    user or context winning, and the first `current-context` set winning;
 * 3. else `~/.kube/config` when it exists;
 * 4. else the pod's service account when running in a pod (client-go's in-cluster fallback).
 *
 * `--context` then picks the context instead of `current-context`. Relative certificate and key paths are read
 * relative to the file that names them, as kubectl does. client-node's loadFromDefault differs on purpose here: a
 * later file's current-context wins, a duplicate name throws, and it falls back to http://localhost:8080.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';

export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

interface KubeconfigFlags {
  /** `--kubeconfig`: a file, used alone. */
  readonly kubeconfig?: string | undefined;
  /** `--context`: a context of the loaded kubeconfig, instead of its current-context. */
  readonly context?: string | undefined;
  /** `--in-cluster`: the pod's service account, whatever the environment says. */
  readonly inCluster?: boolean | undefined;
}

/** What the rules found: kubeconfig text (current-context set as asked), or the pod's service account. */
export type KubeconfigSource =
  | { readonly kind: 'kubeconfig'; readonly text: string; readonly from: readonly string[] }
  | { readonly kind: 'in-cluster' };

export interface LoadingEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly exists: (path: string) => boolean;
  readonly read: (path: string) => string;
}

/** The machine's files under the given environment variables (the CLI passes process.env). */
export const fileEnvironment = (env: LoadingEnvironment['env']): LoadingEnvironment => ({
  env,
  home: homedir(),
  exists: existsSync,
  read: (path) => readFileSync(path, 'utf8'),
});

export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

interface Named {
  name: string;
  [key: string]: unknown;
}
interface KubeconfigDoc {
  'current-context'?: string;
  clusters?: Named[];
  users?: Named[];
  contexts?: Named[];
  [key: string]: unknown;
}

/** Path-valued fields kubectl resolves against the kubeconfig file's directory. */
const PATH_FIELDS: Readonly<Record<'clusters' | 'users', { entry: string; fields: readonly string[] }>> = {
  clusters: { entry: 'cluster', fields: ['certificate-authority'] },
  users: { entry: 'user', fields: ['client-certificate', 'client-key', 'tokenFile'] },
};

function readDoc(path: string, environment: LoadingEnvironment): KubeconfigDoc {
  let doc: unknown;
  try {
    doc = parse(environment.read(path));
  } catch (error) {
    throw new KubeconfigError(`kubeconfig ${path}: ${(error as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new KubeconfigError(`kubeconfig ${path}: not a mapping`);
  const kubeconfig = doc as KubeconfigDoc;
  const base = dirname(resolve(path));
  for (const list of ['clusters', 'users'] as const) {
    const { entry, fields } = PATH_FIELDS[list];
    for (const item of kubeconfig[list] ?? []) {
      const body = item[entry] as Record<string, unknown> | undefined;
      for (const field of fields) {
        const value = body?.[field];
        if (body !== undefined && typeof value === 'string' && value !== '' && !isAbsolute(value))
          body[field] = join(base, value);
      }
    }
  }
  return kubeconfig;
}

/** kubectl's merge: the first file to define a name keeps it; the first current-context set wins. */
function mergeKubeconfigs(docs: readonly KubeconfigDoc[]): KubeconfigDoc {
  const merged: KubeconfigDoc = { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] };
  for (const doc of docs) {
    if (
      merged['current-context'] === undefined &&
      doc['current-context'] !== undefined &&
      doc['current-context'] !== ''
    )
      merged['current-context'] = doc['current-context'];
    for (const list of ['clusters', 'users', 'contexts'] as const) {
      const into = merged[list] ?? [];
      for (const item of doc[list] ?? []) if (!into.some((seen) => seen.name === item.name)) into.push(item);
    }
  }
  return merged;
}

export function resolveKubeconfig(flags: KubeconfigFlags, environment: LoadingEnvironment): KubeconfigSource {
  if (flags.inCluster === true) {
    if (flags.kubeconfig !== undefined || flags.context !== undefined)
      throw new KubeconfigError('--in-cluster excludes --kubeconfig and --context');
    return { kind: 'in-cluster' };
  }
  let files: string[];
  if (flags.kubeconfig !== undefined) {
    if (!environment.exists(flags.kubeconfig))
      throw new KubeconfigError(`--kubeconfig ${flags.kubeconfig}: no such file`);
    files = [flags.kubeconfig];
  } else if ((environment.env['KUBECONFIG'] ?? '') !== '') {
    files = (environment.env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '' && environment.exists(f));
    if (files.length === 0)
      throw new KubeconfigError(`KUBECONFIG names no file that exists (${environment.env['KUBECONFIG'] ?? ''})`);
  } else if (environment.exists(join(environment.home, '.kube', 'config'))) {
    files = [join(environment.home, '.kube', 'config')];
  } else if (
    flags.context === undefined &&
    (environment.env['KUBERNETES_SERVICE_HOST'] ?? '') !== '' &&
    environment.exists(SERVICE_ACCOUNT_TOKEN)
  ) {
    return { kind: 'in-cluster' };
  } else {
    throw new KubeconfigError(
      'no cluster to talk to: give --kubeconfig, set KUBECONFIG, write ~/.kube/config, or run in a pod (--in-cluster)',
    );
  }
  const merged = mergeKubeconfigs(files.map((file) => readDoc(file, environment)));
  const context = flags.context ?? merged['current-context'];
  if (context === undefined || context === '')
    throw new KubeconfigError(`kubeconfig ${files.join(delimiter)}: no current-context; give --context`);
  if (!(merged.contexts ?? []).some((c) => c.name === context))
    throw new KubeconfigError(
      `${flags.context === undefined ? 'current-context' : '--context'} "${context}" is not a context of ${files.join(delimiter)}`,
    );
  return { kind: 'kubeconfig', text: stringify({ ...merged, 'current-context': context }), from: files };
}
