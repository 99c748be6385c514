/**
 * `apply -k DIR`: a kustomization built as `kubectl kustomize` builds it, for the fields this tool supports —
 * `resources` (files, and directories with their own kustomization), `namespace`, `namePrefix`, `nameSuffix`,
 * `commonLabels` and `commonAnnotations` — and the output in kustomize's legacy order. Any other field is refused by
 * name rather than ignored (ADR 0026): `kubectl kustomize DIR | openregion apply -f -` builds the rest. Like
 * kustomize, a prefix or suffix spares Namespaces and CRDs, `namespace` spares cluster-scoped kinds, and
 * `commonLabels` labels only metadata (no selectors are rewritten here, nor name references).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './connect.ts';
import { documentsOf, type Document } from './manifests.ts';

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'namePrefix',
  'nameSuffix',
  'commonLabels',
  'commonAnnotations',
]);

/** Kinds kustomize knows to be cluster-scoped (its namespace transformer leaves them be). */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
]);
const UNPREFIXED = new Set(['Namespace', 'CustomResourceDefinition']);

/** kustomize's legacy order: these kinds first, in this order; the webhooks last; the rest between. */
const FIRST = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];
const LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

interface Kustomization {
  resources?: unknown;
  namespace?: unknown;
  namePrefix?: unknown;
  nameSuffix?: unknown;
  commonLabels?: unknown;
  commonAnnotations?: unknown;
}

interface Resource {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: object; annotations?: object };
}

function kustomizationIn(dir: string): { file: string; body: Kustomization } {
  const file = KUSTOMIZATION_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
  if (file === undefined) {
    throw new CliError(
      `unable to find one of ${KUSTOMIZATION_FILES.map((f) => `'${f}'`).join(', ')} in directory '${dir}'`,
    );
  }
  const [doc] = documentsOf(readFileSync(file, 'utf8'), file);
  const body = (doc?.value ?? {}) as Record<string, unknown>;
  if (typeof body !== 'object' || Array.isArray(body)) throw new CliError(`${file}: not a mapping`, 'rejected');
  for (const key of Object.keys(body)) {
    if (!SUPPORTED.has(key)) {
      throw new CliError(
        `${file}: "${key}" is not supported by apply -k (${[...SUPPORTED].slice(2).join(', ')} are); ` +
          `build it with: kubectl kustomize ${dir} | openregion apply -f -`,
        'rejected',
      );
    }
  }
  return { file, body };
}

function stringField(file: string, body: Kustomization, key: 'namespace' | 'namePrefix' | 'nameSuffix'): string {
  const value = body[key];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new CliError(`${file}: ${key} must be a string`, 'rejected');
  return value;
}

function mapField(
  file: string,
  body: Kustomization,
  key: 'commonLabels' | 'commonAnnotations',
): Record<string, string> {
  const value = body[key] ?? {};
  if (typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw new CliError(`${file}: ${key} must map names to strings`, 'rejected');
  }
  return value as Record<string, string>;
}

function transformed(document: Document, body: Kustomization, file: string): Document {
  const resource = document.value as Resource;
  const kind = resource.kind ?? '';
  const metadata = { ...(resource.metadata ?? {}) };
  const [prefix, suffix, namespace] = [
    stringField(file, body, 'namePrefix'),
    stringField(file, body, 'nameSuffix'),
    stringField(file, body, 'namespace'),
  ];
  if (!UNPREFIXED.has(kind) && metadata.name !== undefined) metadata.name = `${prefix}${metadata.name}${suffix}`;
  if (namespace !== '' && !CLUSTER_SCOPED.has(kind)) metadata.namespace = namespace;
  const labels = mapField(file, body, 'commonLabels');
  const annotations = mapField(file, body, 'commonAnnotations');
  if (Object.keys(labels).length > 0) metadata.labels = { ...metadata.labels, ...labels };
  if (Object.keys(annotations).length > 0) metadata.annotations = { ...metadata.annotations, ...annotations };
  return { where: document.where, value: { ...resource, metadata } };
}

function build(dir: string, seen: readonly string[]): Document[] {
  if (seen.includes(dir)) throw new CliError(`kustomization ${dir} includes itself`, 'rejected');
  const { file, body } = kustomizationIn(dir);
  const resources = body.resources ?? [];
  if (!Array.isArray(resources) || resources.some((r) => typeof r !== 'string')) {
    throw new CliError(`${file}: resources must be a list of paths`, 'rejected');
  }
  const documents = (resources as string[]).flatMap((entry) => {
    if (/^[a-z]+:\/\//i.test(entry) || entry.startsWith('github.com/')) {
      throw new CliError(`${file}: remote resource ${entry} is not supported by apply -k`, 'rejected');
    }
    const path = join(dir, entry);
    if (!existsSync(path)) throw new CliError(`${file}: resource ${entry} does not exist`, 'rejected');
    return statSync(path).isDirectory() ? build(path, [...seen, dir]) : documentsOf(readFileSync(path, 'utf8'), path);
  });
  return documents.map((d) => transformed(d, body, file));
}

const rank = (kind: string) => {
  const first = FIRST.indexOf(kind);
  if (first >= 0) return first;
  const last = LAST.indexOf(kind);
  return last >= 0 ? FIRST.length + 1 + last : FIRST.length;
};

/** The resources `kubectl kustomize DIR` would print (for the supported fields), as documents in its order. */
export function kustomizeBuild(dir: string): Document[] {
  const key = (d: Document) => {
    const r = d.value as Resource;
    return [
      rank(r.kind ?? ''),
      `${r.apiVersion ?? ''}/${r.kind ?? ''}`,
      r.metadata?.namespace ?? '',
      r.metadata?.name ?? '',
    ] as const;
  };
  return build(dir, []).sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) {
      if (ka[i] !== kb[i]) return (ka[i] ?? '') < (kb[i] ?? '') ? -1 : 1;
    }
    return 0;
  });
}
