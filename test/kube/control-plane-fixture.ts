/**
 * What a ControlPlane's own reconciler sets up before KeystoneUser orders can finish, done by hand for the walks:
 * admin `clouds.yaml` Secrets for a real (External) Keystone, the KV's token Secret and SecretStore, K-ORC's
 * import of the admin domain, and the ControlPlane itself with AdminCredentialReady.
 */
import { cloudsSecret } from '../../src/keystone/actuators/testing/real-crds.ts';
import {
  ADMIN_CREDENTIAL_READY,
  controlPlaneType,
  korcDomainType,
  type ControlPlane,
} from '../../src/keystone/apis/index.ts';
import { planeFacts } from '../../src/keystone/user/plane.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { apiVersionOf, builtin, type ResourceType } from '../../src/kube/resource-type.ts';

interface ExternalControlPlane {
  /** The ControlPlane's namespace, where everything else goes too. */
  readonly namespace: string;
  readonly name: string;
  /** Who may order, and where (a `targetClusterRef` for a registered target cluster). */
  readonly namespaceAssignments: NonNullable<ControlPlane['spec']['namespaceAssignments']>;
  readonly keystoneAuthUrl: string;
  /** clouds.yaml with an `admin` cloud for that Keystone. */
  readonly adminCloudsYaml: string;
  /** The OpenBao-compatible KV the passwords are pushed to, and its token. */
  readonly kv: { readonly url: string; readonly token: string };
  /** The SecretStore type the cluster serves (discoverStoreType). */
  readonly storeType: ResourceType;
}

export async function setUpExternalControlPlane(cluster: KubernetesClient, cp: ExternalControlPlane): Promise<void> {
  const { namespace } = cp;
  const controlPlane: ControlPlane = {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'ControlPlane',
    metadata: { name: cp.name, namespace },
    spec: {
      namespaceAssignments: [...cp.namespaceAssignments],
      services: { keystone: { mode: 'External', external: { authURL: cp.keystoneAuthUrl } } },
    },
  };
  const plane = planeFacts(controlPlane);
  for (const ref of [plane.probeCredentials, plane.managedCredentials]) {
    await cluster.create(builtin.secret, cloudsSecret(namespace, ref.secretName, cp.adminCloudsYaml));
  }
  await cluster.create(builtin.secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'kv-token', namespace },
    data: { token: Buffer.from(cp.kv.token).toString('base64') },
  });
  await cluster.create(cp.storeType, {
    apiVersion: apiVersionOf(cp.storeType),
    kind: 'SecretStore',
    metadata: { name: plane.store.name, namespace },
    spec: {
      provider: {
        vault: {
          server: cp.kv.url,
          path: 'kv-v2',
          version: 'v2',
          auth: { tokenSecretRef: { name: 'kv-token', key: 'token' } },
        },
      },
    },
  });
  await cluster.create(korcDomainType, {
    apiVersion: 'openstack.k-orc.cloud/v1alpha1',
    kind: 'Domain',
    metadata: { name: plane.domainRef, namespace },
    spec: {
      managementPolicy: 'unmanaged',
      cloudCredentialsRef: plane.probeCredentials,
      import: { filter: { name: plane.adminDomainName } },
    },
  });
  await cluster.create(controlPlaneType, controlPlane);
  await cluster.patch(
    controlPlaneType,
    namespace,
    cp.name,
    {
      type: 'merge',
      patch: {
        status: {
          conditions: [
            {
              type: ADMIN_CREDENTIAL_READY,
              status: 'True',
              reason: 'Ready',
              message: 'set up by the test',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
    },
    { subresource: 'status' },
  );
}
