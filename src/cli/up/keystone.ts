/**
 * The Keystone orders operator in `up`: its CRD and the stand-ins of the c5c3 operator's, K-ORC's and ESO's (never
 * replacing a real CRD the store may hold), a ready demo ControlPlane `default/demo` that assigns namespace `default`
 * on the management cluster, and what that ControlPlane would provide in a real deployment: the admin clouds K-ORC
 * authenticates with, the K-ORC Domain import of its admin domain, and the tenant SecretStore (the emulator's KV v2
 * as OpenBao). Every name comes from planeFacts, the same reading of the ControlPlane the reconciler makes, so the
 * demo cannot drift from what an order looks for. Then the controllers: the KeystoneUser reconciler with the bundled
 * K-ORC and ESO actuators (in a real cluster K-ORC and ESO do that work).
 */
import type { Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import { apiVersionOf, builtin, type ResourceType } from '../../kube/resource-type.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { Clock } from '../../util/clock.ts';
import { installBundledActuatorCrds, installC5c3StandInCrds } from '../../keystone/actuators/crds.ts';
import { registerBundledActuators } from '../../keystone/actuators/bundled.ts';
import {
  ADMIN_CREDENTIAL_READY,
  controlPlaneType,
  discoverStoreType,
  keystoneCrds,
  korcDomainType,
  type ControlPlane,
  type SecretStore,
} from '../../keystone/apis/index.ts';
import { planeFacts } from '../../keystone/user/plane.ts';
import { registerKeystoneUserController } from '../../keystone/user/register.ts';
import { applyCrds, ensureNamespace } from './demo-region.ts';

export const CONTROL_PLANE_NAMESPACE = 'default';
export const CONTROL_PLANE_NAME = 'demo';
const KV_TOKEN_SECRET = 'openbao-token';
const FIELD_MANAGER = 'openregion-up';

interface KeystoneDemoOptions {
  readonly store: Client;
  readonly authUrl: string;
  /** A clouds.yaml holding the cloud administrator as cloud `admin`: what K-ORC authenticates with. */
  readonly adminCloudsYaml: string;
  /** The KV v2 endpoint (the emulator's) and its token. */
  readonly kv?: { readonly url: string; readonly token: string } | undefined;
  readonly clock: Clock;
}

interface KeystoneDemo {
  /** The SecretStore type the store serves (the stand-in's v1, or a real ESO's version). */
  readonly storeType: ResourceType<SecretStore> | undefined;
  /** CRDs of K-ORC or ESO kinds the store already held and that were left as they were. */
  readonly keptCrds: readonly string[];
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

/** The demo ControlPlane: External Keystone at the built-in (or --cloud) cloud, namespace `default` assigned. */
function demoControlPlane(authUrl: string): ControlPlane {
  return {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'ControlPlane',
    metadata: { name: CONTROL_PLANE_NAME, namespace: CONTROL_PLANE_NAMESPACE },
    spec: {
      namespaceAssignments: [{ namespace: CONTROL_PLANE_NAMESPACE }],
      services: { keystone: { mode: 'External', external: { authURL: authUrl } } },
    },
  };
}

export async function setUpKeystoneDemo(options: KeystoneDemoOptions): Promise<KeystoneDemo> {
  const { store } = options;
  await applyCrds(store, keystoneCrds());
  // The c5c3 operator's CRDs (the ControlPlane first), only where absent: a real one is never replaced.
  const c5c3 = await installC5c3StandInCrds(store);
  const actuators = await installBundledActuatorCrds(store);
  const kept = [...c5c3.kept, ...actuators.kept];
  await ensureNamespace(store, CONTROL_PLANE_NAMESPACE);
  const apply = (type: ResourceType, object: KubeObject) =>
    store.apply(type, object, { fieldManager: FIELD_MANAGER, force: true });
  const cp = demoControlPlane(options.authUrl);
  const plane = planeFacts(cp);

  // The admin clouds the ControlPlane hands K-ORC: the probe's and the managed children's credentials.
  for (const ref of [plane.probeCredentials, plane.managedCredentials]) {
    await apply(builtin.secret, secret(ref.secretName, { 'clouds.yaml': options.adminCloudsYaml }));
  }
  const storeType = await discoverStoreType(store, plane.store.kind);
  if (options.kv !== undefined && storeType !== undefined) {
    await apply(builtin.secret, secret(KV_TOKEN_SECRET, { token: options.kv.token }));
    await apply(storeType, {
      apiVersion: apiVersionOf(storeType),
      kind: plane.store.kind,
      metadata: { name: plane.store.name, namespace: CONTROL_PLANE_NAMESPACE },
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
  // The admin domain, imported under the name the orders' users reference (domainRef).
  await apply(korcDomainType, {
    apiVersion: 'openstack.k-orc.cloud/v1alpha1',
    kind: 'Domain',
    metadata: { name: plane.domainRef, namespace: CONTROL_PLANE_NAMESPACE },
    spec: {
      managementPolicy: 'unmanaged',
      cloudCredentialsRef: plane.probeCredentials,
      import: { filter: { name: plane.adminDomainName } },
    },
  });
  await apply(controlPlaneType, cp);
  await store.patch(
    controlPlaneType,
    CONTROL_PLANE_NAMESPACE,
    CONTROL_PLANE_NAME,
    { type: 'merge', patch: { status: { conditions: [ready(ADMIN_CREDENTIAL_READY, options.clock.now())] } } },
    { subresource: 'status' },
  );
  return { storeType, keptCrds: kept };
}

interface KeystoneOperator {
  readonly running: readonly string[];
  /** Closes the bundled K-ORC's Keystone sessions; after the manager stopped. */
  close(): Promise<void>;
}

/** The KeystoneUser controller and the bundled actuators (ESO only with a KV to push to). */
export function registerKeystoneOperator(
  manager: Manager,
  demo: KeystoneDemo,
  options: { readonly withKv: boolean; readonly clock: Clock },
): KeystoneOperator {
  const actuators = registerBundledActuators(manager, {
    storeType: options.withKv ? demo.storeType : undefined,
    clock: options.clock,
  });
  registerKeystoneUserController(manager);
  return { running: ['keystone users', ...actuators.running], close: () => actuators.close() };
}
