/**
 * The demo region, set up exactly as an operator would (`region configure`, then `region register`): a Keystone
 * domain with a non-admin domain-manager account made with the cloud admin's credential, then the Region and its
 * credentials Secret in the store. Run on every start: both steps converge, so a restart (a fresh emulator, or the
 * same real cloud) leaves the Region pointing at live credentials under the same region id.
 */
import { randomBytes } from 'node:crypto';
import { getOptional, type Client } from '../../kube/client.ts';
import { customResourceDefinition } from '../../kube/crd.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import type { Session } from '../../openstack/session.ts';
import type { Transport } from '../../openstack/transport.ts';
import type { Clock } from '../../util/clock.ts';
import { regionKinds } from '../../region/apis/index.ts';
import { configureRegion, planFor } from '../../region/registration/configure.ts';
import type { RegionCredentials } from '../../region/registration/credentials.ts';
import { discoverInventory } from '../../region/registration/discover.ts';
import { applyManifests, registrationManifests } from '../../region/registration/register.ts';
import { passwordWorks, projectSession } from '../../region/registration/sessions.ts';

const DEMO_PREFIX = 'openregion-demo';
const DEMO_REGION_NAME = 'demo';

interface DemoRegionOptions {
  readonly store: Client;
  /** A cloud administrator of any scope (it creates the domain, the account and its grants). */
  readonly admin: Session;
  readonly authUrl: string;
  readonly regionName: string | undefined;
  readonly transport: Transport;
  readonly clock: Clock;
  readonly namespace: string;
  readonly regionID: string;
  readonly organizationID: string;
  /** The region account's password from an earlier run, kept so the account converges instead of resetting. */
  readonly password: string | undefined;
}

interface DemoRegion {
  readonly credentials: RegionCredentials;
  readonly changes: readonly string[];
}

export async function setUpDemoRegion(options: DemoRegionOptions): Promise<DemoRegion> {
  const deps = { transport: options.transport, clock: options.clock };
  const { credentials, changes } = await configureRegion(planFor(DEMO_PREFIX), options.password, {
    identity: options.admin.client('identity'),
    authUrl: options.authUrl,
    regionName: options.regionName,
    authenticates: (userID, password) => passwordWorks(options.authUrl, userID, password, deps),
    newPassword: () => randomBytes(24).toString('base64url'),
  });
  // Volume classes fail closed: the Region exports the volume types it lists, and they are read as the region's
  // own account would (what `register` discovers).
  const inventory = await discoverInventory(projectSession(credentials, deps));
  const volumeTypes = inventory.volumeTypes.map((t) => t.id);
  await ensureRegionStore(options.store, options.namespace);
  const manifests = registrationManifests(
    {
      regionID: options.regionID,
      displayName: DEMO_REGION_NAME,
      namespace: options.namespace,
      secret: { namespace: options.namespace, name: `${options.regionID}-openstack` },
      endpoint: credentials.authUrl,
      organizationIDs: [options.organizationID],
      services: volumeTypes.length === 0 ? {} : { blockStorage: { volumeClasses: { selector: { ids: volumeTypes } } } },
    },
    credentials,
  );
  await applyManifests(options.store, manifests);
  return { credentials, changes };
}

/** Every region CRD (applied, so a newer schema replaces a stored one) and the service namespace. */
async function ensureRegionStore(store: Client, namespace: string): Promise<void> {
  await applyCrds(store, regionKinds.map(customResourceDefinition));
  await ensureNamespace(store, namespace);
}

export async function applyCrds(store: Client, crds: readonly KubeObject[]): Promise<void> {
  for (const crd of crds) {
    await store.apply(builtin.customResourceDefinition, crd, { fieldManager: 'openregion-up', force: true });
  }
}

export async function ensureNamespace(store: Client, name: string): Promise<void> {
  if ((await getOptional(store, builtin.namespace, undefined, name)) === undefined) {
    await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
}
