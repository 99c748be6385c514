/**
 * `openregion target-cluster grant`: the rights a KeystoneUser target cluster grants the Keystone operator, per
 * assigned namespace (docs/spec/keystoneuser-reconciler.md §RBAC). Run against the target cluster as its
 * administrator after `kubectl apply -k deploy/target-cluster`: it applies a Role and RoleBinding
 * (deploy/rbac.ts targetNamespaceGrant) in each namespace named, removes those it made in any other, and, given the
 * management cluster, writes the same list into the cluster's registration Secret, so the operator's caches there
 * watch exactly the namespaces it may read.
 */
import { Command } from 'commander';
import type { Client } from '../kube/client.ts';
import { ignoreNotFound } from '../kube/errors.ts';
import type { KubeObject } from '../kube/object.ts';
import { builtin, type ResourceType } from '../kube/resource-type.ts';
import { DEFAULT_CLUSTERS_NAMESPACE } from '../runtime/multicluster.ts';
import { CliError, connect, type Target } from './connect.ts';
import {
  DEFAULT_TARGET_IDENTITY,
  TARGET_GRANT_LABEL,
  targetNamespaceGrant,
  type TargetIdentity,
} from './deploy/rbac.ts';
import { withClient, type Out } from './target.ts';

const roleType: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
};
const roleBindingType: ResourceType = { ...roleType, kind: 'RoleBinding', plural: 'rolebindings' };
const FIELD_MANAGER = 'openregion-target-cluster';

interface GrantReport {
  readonly granted: readonly string[];
  readonly revoked: readonly string[];
}

/** Grants exactly `namespaces` to `identity`: applies theirs, removes every other grant made for that identity. */
export async function grantNamespaces(
  client: Client,
  namespaces: readonly string[],
  identity: TargetIdentity = DEFAULT_TARGET_IDENTITY,
): Promise<GrantReport> {
  const wanted = [...new Set(namespaces)].sort();
  for (const namespace of wanted) {
    for (const object of targetNamespaceGrant(namespace, identity)) {
      const type = object.kind === 'Role' ? roleType : roleBindingType;
      await client.apply(type, object, { fieldManager: FIELD_MANAGER, force: true });
    }
  }
  const revoked = new Set<string>();
  const labelSelector = `${TARGET_GRANT_LABEL}=${identity.namespace}`;
  // The binding first: a Role without one grants nothing, so a failure between the deletes leaves no access.
  for (const type of [roleBindingType, roleType]) {
    for (const object of (await client.list<KubeObject>(type, { labelSelector })).items) {
      const namespace = object.metadata.namespace ?? '';
      if (wanted.includes(namespace) || object.metadata.name !== identity.name) continue;
      await ignoreNotFound(client.delete(type, namespace, object.metadata.name));
      revoked.add(namespace);
    }
  }
  return { granted: wanted, revoked: [...revoked].sort() };
}

/** The registration Secret's `namespaces` (runtime/multicluster.ts): the caches on that cluster watch only these. */
export async function registerNamespaces(
  management: Client,
  clustersNamespace: string,
  cluster: string,
  namespaces: readonly string[],
): Promise<void> {
  const value = Buffer.from([...new Set(namespaces)].sort().join(',')).toString('base64');
  await management.patch(builtin.secret, clustersNamespace, cluster, {
    type: 'merge',
    patch: { data: { namespaces: value } },
  });
}

interface GrantFlags {
  namespaces: string[];
  identityNamespace: string;
  identity: string;
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  managementKubeconfig?: string;
  managementContext?: string;
  clustersNamespace: string;
}

const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export function targetClusterCommand(stdout: Out = process.stdout, stderr: Out = process.stderr): Command {
  const command = new Command('target-cluster').description(
    "a KeystoneUser target cluster's grants to the Keystone operator, per assigned namespace",
  );
  command
    .command('grant')
    .description(
      'grant the operator the order verbs and Secret write in exactly these namespaces of the target cluster ' +
        '(a Role and RoleBinding each), revoking any other namespace it was granted',
    )
    .requiredOption('--namespaces <ns>', 'the assigned namespaces, comma-separated ("" revokes every one)', list)
    .requiredOption('--kubeconfig <path>', 'the target cluster, as its administrator')
    .option('--context <name>', 'a context of the kubeconfig')
    .option(
      '--identity-namespace <ns>',
      "where deploy/target-cluster put the operator's ServiceAccount",
      DEFAULT_TARGET_IDENTITY.namespace,
    )
    .option('--identity <name>', "the operator's ServiceAccount there", DEFAULT_TARGET_IDENTITY.name)
    .option('--cluster <name>', "also write the namespaces into this cluster's registration Secret on management")
    .option('--management-kubeconfig <path>', 'the management cluster (with --cluster)')
    .option('--management-context <name>', 'a context of the management kubeconfig (with --cluster)')
    .option(
      '--clusters-namespace <ns>',
      'where registration Secrets live (serve --clusters-namespace)',
      DEFAULT_CLUSTERS_NAMESPACE,
    )
    .action(async (flags: GrantFlags) => {
      const target: Target = { store: ':memory:', kubeconfig: flags.kubeconfig, context: flags.context };
      await withClient(target, stderr, async (client) => {
        const report = await grantNamespaces(client, flags.namespaces, {
          namespace: flags.identityNamespace,
          name: flags.identity,
        });
        for (const ns of report.granted) stdout.write(`granted namespace ${ns}\n`);
        for (const ns of report.revoked) stdout.write(`revoked namespace ${ns}\n`);
        if (flags.cluster === undefined) return;
        if (flags.managementKubeconfig === undefined)
          throw new CliError('--cluster needs --management-kubeconfig', 'rejected');
        const management = await connect({
          store: ':memory:',
          kubeconfig: flags.managementKubeconfig,
          context: flags.managementContext,
        });
        try {
          await registerNamespaces(management.client, flags.clustersNamespace, flags.cluster, report.granted);
          stdout.write(
            `registration ${flags.clustersNamespace}/${flags.cluster} watches: ${report.granted.join(',')}\n`,
          );
        } finally {
          await management.close();
        }
      });
    });
  return command;
}
