/**
 * The deploy manifests on a real kube-apiserver, as an operator installs them: an overlay rendered by
 * `kubectl kustomize` (here into a namespace and with a name suffix of the test's own, so runs never collide and
 * leave the shared server's namespaces alone), applied with `kubectl apply --server-side`, then a token minted for
 * its ServiceAccount (TokenRequest) and a kubeconfig that carries only that token.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, fetch } from 'undici';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { isKubeAlreadyExists, KubeNotFoundError } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { eventually } from './fixtures.ts';

const execute = promisify(execFile);
const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

/** Whether `kubectl` (with kustomize built in) is on the PATH. */
export async function kubectlPresent(): Promise<boolean> {
  return execute('kubectl', ['version', '--client']).then(
    () => true,
    () => false,
  );
}

export interface Rendered {
  readonly yaml: string;
  readonly objects: KubeObject[];
  readonly namespace: string;
  /** An object's name in this rendering (the test's suffix appended). */
  name(base: string): string;
}

/** `kubectl kustomize` of deploy/<path>, moved into `namespace` with `-<suffix>` on every name. */
export async function render(path: string, namespace: string, suffix: string): Promise<Rendered> {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-kustomize-'));
  try {
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        namespace,
        nameSuffix: `-${suffix}`,
        resources: [relative(dir, join(DEPLOY, path))],
      }),
    );
    const { stdout } = await execute('kubectl', ['kustomize', dir], { maxBuffer: 16 * 1024 * 1024 });
    const objects = parseAllDocuments(stdout).map((d) => d.toJS() as KubeObject);
    return { yaml: stdout, objects, namespace, name: (base) => `${base}-${suffix}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The Keystone operator overlay watching `watched`, configured as docs/deploying.md tells an operator to: an overlay
 * of its own with deploy/overlays/keystone-operator's operator and registrations, one directory per watched namespace
 * including its namespace-grant, and the ConfigMap openregion-keystone-watch replaced with the same list. No name
 * suffix and no `namespace:` (either would cut the grants from the ServiceAccount they bind), so a private server.
 */
export async function renderKeystoneOperator(watched: readonly string[]): Promise<Rendered> {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-kustomize-'));
  const overlay = join(DEPLOY, 'overlays/keystone-operator');
  try {
    for (const namespace of watched) {
      mkdirSync(join(dir, namespace));
      writeFileSync(
        join(dir, namespace, 'kustomization.yaml'),
        stringify({ namespace, resources: [relative(join(dir, namespace), join(overlay, 'namespace-grant'))] }),
      );
    }
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [
          relative(dir, join(overlay, 'operator')),
          relative(dir, join(overlay, 'registrations')),
          ...watched,
        ],
        configMapGenerator: [
          {
            name: 'openregion-keystone-watch',
            namespace: 'openregion-system',
            behavior: 'replace',
            literals: [`namespaces=${watched.join(',')}`],
          },
        ],
      }),
    );
    const { stdout } = await execute('kubectl', ['kustomize', dir], { maxBuffer: 16 * 1024 * 1024 });
    const objects = parseAllDocuments(stdout).map((d) => d.toJS() as KubeObject);
    return { yaml: stdout, objects, namespace: 'openregion-system', name: (base) => base };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The first container's args of a rendered Deployment as a process outside the pod runs them: `--in-cluster` swapped
 * for `--kubeconfig`, `$(VAR)` filled from the pod's environment (the namespace, a ConfigMap's key), `--health` moved.
 */
export function deploymentArgsOutsidePod(rendered: Rendered, kubeconfigPath: string, health: string): string[] {
  const deployment = rendered.objects.find((o) => o.kind === 'Deployment') as
    | (KubeObject & {
        spec: {
          template: {
            spec: {
              containers: {
                args: string[];
                env: {
                  name: string;
                  valueFrom: { fieldRef?: object; configMapKeyRef?: { name: string; key: string } };
                }[];
              }[];
            };
          };
        };
      })
    | undefined;
  const container = deployment?.spec.template.spec.containers[0];
  if (container === undefined) throw new Error('no Deployment in the rendering');
  const values = new Map<string, string>();
  for (const { name, valueFrom } of container.env) {
    if (valueFrom.fieldRef !== undefined) values.set(name, rendered.namespace);
    const ref = valueFrom.configMapKeyRef;
    if (ref === undefined) continue;
    const map = rendered.objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === ref.name) as
      (KubeObject & { data: Record<string, string> }) | undefined;
    values.set(name, map?.data[ref.key] ?? '');
  }
  return container.args.map((arg) => {
    if (arg === '--in-cluster') return `--kubeconfig=${kubeconfigPath}`;
    if (arg.startsWith('--health=')) return `--health=${health}`;
    return arg.replace(/\$\((\w+)\)/g, (_, name: string) => values.get(name) ?? `$(${name})`);
  });
}

/** `kubectl <args>` with `stdin`, against the kubeconfig at `kubeconfigPath`. */
export async function kubectl(kubeconfigPath: string, args: readonly string[], stdin = ''): Promise<string> {
  const child = spawn('kubectl', [`--kubeconfig=${kubeconfigPath}`, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdin.end(stdin);
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${String(code)}: ${err}`);
  return out;
}

interface KubeconfigFile {
  clusters: { cluster: { server: string } }[];
  users: { user: { token: string } }[];
}

/** A token for ServiceAccount `name` in `namespace`, minted through TokenRequest with the admin's kubeconfig. */
export async function mintToken(adminKubeconfig: string, namespace: string, name: string): Promise<string> {
  const config = parse(adminKubeconfig) as KubeconfigFile;
  const server = config.clusters[0]?.cluster.server ?? '';
  const response = await fetch(`${server}/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.users[0]?.user.token ?? ''}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    }),
    // The test server's serving certificate is self-signed (scripts/kube-apiserver.sh).
    dispatcher: new Agent({ connect: { rejectUnauthorized: false } }),
  });
  if (response.status !== 201)
    throw new Error(`TokenRequest ${namespace}/${name}: ${String(response.status)} ${await response.text()}`);
  return ((await response.json()) as { status: { token: string } }).status.token;
}

/** The admin's kubeconfig with its user swapped for `token` and its namespace for `namespace`. */
export function tokenKubeconfig(adminKubeconfig: string, token: string, namespace: string): string {
  const config = parse(adminKubeconfig) as Record<string, unknown> & {
    users: { name: string; user: Record<string, unknown> }[];
    contexts: { context: Record<string, unknown> }[];
  };
  return stringify({
    ...config,
    users: config.users.map((u) => ({ ...u, user: { token } })),
    contexts: config.contexts.map((c) => ({ ...c, context: { ...c.context, namespace } })),
  });
}

/**
 * Creates the CRDs that are not there yet (create, not apply: 1.20 refuses x-kubernetes-validations in an apply,
 * ADR 0009) and returns the names it created, for the clean-up: other suites expect to install their own.
 */
export async function ensureCrds(client: KubernetesClient, crds: readonly KubeObject[]): Promise<string[]> {
  const created: string[] = [];
  for (const crd of crds) {
    await client.create(builtin.customResourceDefinition, crd).then(
      () => created.push(crd.metadata.name),
      (error: unknown) => {
        if (!isKubeAlreadyExists(error)) throw error;
      },
    );
  }
  return created;
}

/** Deletes the CRDs `ensureCrds` created and waits until they are gone (not terminating) for the next suite. */
export async function deleteCrds(client: KubernetesClient, names: readonly string[]): Promise<void> {
  for (const name of names)
    await client.delete(builtin.customResourceDefinition, undefined, name).catch(() => undefined);
  for (const name of names) {
    await eventually(
      `CRD ${name} deleted`,
      () =>
        client.get(builtin.customResourceDefinition, undefined, name).then(
          () => undefined,
          (error: unknown) => (error instanceof KubeNotFoundError ? true : undefined),
        ),
      60_000,
    );
  }
}

/** A port nobody listens on now (for a process the test starts). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  return typeof address === 'object' && address !== null ? address.port : 0;
}
