/**
 * What a KeystoneUser reads of its ControlPlane, with the plane's defaults applied: the admin domain and its K-ORC
 * Domain object, the credentials K-ORC authenticates with, the effective secret store, the region, the Keystone
 * mode, and the auth URL an order on a given cluster reaches Keystone at.
 */
import { DEFAULT_SECRET_STORE, MANAGEMENT_CLUSTER, type ControlPlane } from '../apis/controlplane.ts';

export interface PlaneFacts {
  readonly namespace: string;
  readonly name: string;
  readonly adminUserName: string;
  readonly adminDomainName: string;
  /** The K-ORC Domain import of the admin domain (adminDomainRef). */
  readonly domainRef: string;
  /** What the read-only probe authenticates with: the spec's cloudCredentialsRef. */
  readonly probeCredentials: { readonly secretName: string; readonly cloudName: string };
  /** What managed children authenticate with: the admin password cloud, so a teardown survives a credential revoke. */
  readonly managedCredentials: { readonly secretName: string; readonly cloudName: string };
  readonly store: { readonly kind: 'SecretStore' | 'ClusterSecretStore'; readonly name: string };
  readonly region: string;
  readonly external: boolean;
  readonly cloudName: string;
}

export function planeFacts(cp: ControlPlane): PlaneFacts {
  const admin = cp.spec.korc?.adminCredential;
  const cloudName = admin?.cloudCredentialsRef?.cloudName ?? 'admin';
  const namespace = cp.metadata.namespace ?? '';
  return {
    namespace,
    name: cp.metadata.name,
    adminUserName: admin?.userName ?? 'admin',
    adminDomainName: admin?.domainName ?? 'Default',
    domainRef: `${cp.metadata.name}-domain-default`,
    probeCredentials: { secretName: admin?.cloudCredentialsRef?.secretName ?? 'k-orc-clouds-yaml', cloudName },
    managedCredentials: { secretName: `${cp.metadata.name}-admin-password-cloud`, cloudName },
    store: {
      kind: cp.spec.secretStoreRef?.kind ?? 'SecretStore',
      name: cp.spec.secretStoreRef?.name ?? DEFAULT_SECRET_STORE,
    },
    region: cp.spec.region ?? 'RegionOne',
    external: cp.spec.services?.keystone?.mode === 'External',
    cloudName,
  };
}

type AuthUrl =
  | {
      readonly row: 'D1-InCluster' | 'D1-Published' | 'D1-Gateway' | 'D1-External';
      readonly url: string;
      readonly endpointType: string;
    }
  | { readonly row: 'D1-NotPublished' };

/**
 * Step 1 of the delivery: the auth URL for an order on `cluster`. A managed Keystone runs on the management
 * cluster, beside its ControlPlane; off that cluster only a published endpoint reaches it.
 */
export function resolveAuthUrl(cp: ControlPlane, cluster: string): AuthUrl {
  const keystone = cp.spec.services?.keystone;
  if (keystone?.mode === 'External' && keystone.external !== undefined) {
    return {
      row: 'D1-External',
      url: keystone.external.authURL,
      endpointType: keystone.external.endpointType ?? 'public',
    };
  }
  if (cluster === MANAGEMENT_CLUSTER) {
    const url = `http://${cp.metadata.name}-keystone.${cp.metadata.namespace ?? ''}.svc:5000/v3`;
    return { row: 'D1-InCluster', url, endpointType: 'internal' };
  }
  if (keystone?.publicEndpoint !== undefined && keystone.publicEndpoint !== '') {
    return { row: 'D1-Published', url: keystone.publicEndpoint, endpointType: 'internal' };
  }
  const hostname = keystone?.gateway?.hostname;
  if (hostname !== undefined && hostname !== '') {
    return { row: 'D1-Gateway', url: `https://${hostname}/v3`, endpointType: 'internal' };
  }
  return { row: 'D1-NotPublished' };
}
