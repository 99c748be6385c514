/**
 * The Keystone orders operator in `up`: its CRDs, a ready demo ControlPlane `default/demo` that assigns namespace
 * `default` on the management cluster, the OpenBao stand-in (the emulator's KV v2) as the tenant SecretStore, the
 * imported admin domain the bundled K-ORC resolves users through, and the controllers: the KeystoneUser reconciler
 * with the bundled K-ORC and ESO actuators (in a real cluster K-ORC and ESO do that work).
 */
import type { Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { Clock } from '../../util/clock.ts';
import { registerEsoActuator } from '../../keystone/actuators/eso/controller.ts';
import { registerKorcActuators, type AdminSession } from '../../keystone/actuators/korc/register.ts';
import {
  ADMIN_CREDENTIAL_READY,
  controlPlaneType,
  DEFAULT_SECRET_STORE,
  keystoneCrds,
  korcDomainType,
  secretStoreType,
} from '../../keystone/apis/index.ts';
import { registerKeystoneUserController } from '../../keystone/user/register.ts';
import { applyCrds, ensureNamespace } from './demo-region.ts';

export const CONTROL_PLANE_NAMESPACE = 'default';
export const CONTROL_PLANE_NAME = 'demo';
const KV_TOKEN_SECRET = 'openbao-token';
const FIELD_MANAGER = 'openregion-up';

export interface KeystoneDemoOptions {
  readonly store: Client;
  readonly authUrl: string;
  /** The KV v2 endpoint (the emulator's) and its token. */
  readonly kv?: { readonly url: string; readonly token: string } | undefined;
  readonly clock: Clock;
}

const secret = (name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: CONTROL_PLANE_NAMESPACE },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

const ready = (type: string, now: number) => ({
  type,
  status: 'True',
  reason: 'Ready',
  message: 'set up by openregion up',
  lastTransitionTime: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
});

export async function setUpKeystoneDemo(options: KeystoneDemoOptions): Promise<void> {
  const { store } = options;
  await applyCrds(store, keystoneCrds());
  await ensureNamespace(store, CONTROL_PLANE_NAMESPACE);
  const apply = (type: ResourceType, object: KubeObject) =>
    store.apply(type, object, { fieldManager: FIELD_MANAGER, force: true });
  const writeStatus = (type: ResourceType, name: string, conditions: unknown[]) =>
    store.patch(
      type,
      CONTROL_PLANE_NAMESPACE,
      name,
      { type: 'merge', patch: { status: { conditions } } },
      { subresource: 'status' },
    );

  if (options.kv !== undefined) {
    await apply(builtin.secret, secret(KV_TOKEN_SECRET, { token: options.kv.token }));
    await apply(secretStoreType, {
      apiVersion: 'external-secrets.io/v1',
      kind: 'SecretStore',
      metadata: { name: DEFAULT_SECRET_STORE, namespace: CONTROL_PLANE_NAMESPACE },
      spec: {
        provider: {
          vault: {
            server: options.kv.url,
            path: 'kv-v2',
            version: 'v2',
            auth: { tokenSecretRef: { name: KV_TOKEN_SECRET, key: 'token' } },
          },
        },
      },
    });
  }
  await apply(korcDomainType, {
    apiVersion: 'openstack.k-orc.cloud/v1alpha1',
    kind: 'Domain',
    metadata: { name: 'cp-domain-default', namespace: CONTROL_PLANE_NAMESPACE },
    spec: {
      managementPolicy: 'unmanaged',
      cloudCredentialsRef: { secretName: 'k-orc-clouds-yaml', cloudName: 'admin' },
      import: { filter: { name: 'Default' } },
    },
  });
  await apply(controlPlaneType, {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'ControlPlane',
    metadata: { name: CONTROL_PLANE_NAME, namespace: CONTROL_PLANE_NAMESPACE },
    spec: {
      namespaceAssignments: [{ namespace: CONTROL_PLANE_NAMESPACE }],
      services: { keystone: { mode: 'External', external: { authURL: options.authUrl } } },
    },
  });
  await writeStatus(controlPlaneType, CONTROL_PLANE_NAME, [ready(ADMIN_CREDENTIAL_READY, options.clock.now())]);
}

/** The KeystoneUser controller and the bundled actuators, acting with the cloud admin's session. */
export function registerKeystoneOperator(manager: Manager, admin: AdminSession, withKv: boolean): string[] {
  registerKorcActuators(manager, { enabled: true, admin });
  if (withKv) registerEsoActuator(manager, { enabled: true });
  registerKeystoneUserController(manager);
  return ['keystone users', 'K-ORC (bundled)', ...(withKv ? ['ESO (bundled)'] : [])];
}
