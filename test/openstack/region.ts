/**
 * The region service's side of a contract test: an embedded store holding the region CRDs and the regions exactly
 * as `openregion region register --create-secret` writes them, with the non-admin region credential from
 * `region configure`, and the provider registry over them. No admin credential is anywhere in this path.
 */
import assert from 'node:assert/strict';
import { customResourceDefinition } from '../../src/kube/crd.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../src/kube/embedded/store.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { systemClock } from '../../src/util/clock.ts';
import { regionKinds } from '../../src/region/apis/index.ts';
import type { RegionCredentials } from '../../src/region/openstack/principals.ts';
import { clientSetFactory, RegionRegistry, type RegionContext } from '../../src/region/openstack/registry.ts';
import { RecordingTransport } from '../../src/region/openstack/testing/region.ts';
import {
  applyManifests,
  registrationManifests,
  type RegisterPlan,
  type ServiceConfig,
} from '../../src/region/registration/register.ts';
import type { ContractCloud } from './cloud.ts';

/** Where the region service keeps its records in these tests. */
export const REGION_NAMESPACE = 'default';
const SECRET = 'region-credentials';

export interface ContractRegions {
  readonly store: EmbeddedStore;
  /** Every request the provider sent, with the credential and scope behind it. */
  readonly transport: RecordingTransport;
  readonly credentials: RegionCredentials;
  readonly registry: RegionRegistry;
  lookup(regionID: string): Promise<RegionContext>;
  close(): Promise<void>;
}

/** Registers one region per entry (its id and per-service configuration) against the contract cloud. */
export async function contractRegions(
  c: ContractCloud,
  regions: readonly { readonly id: string; readonly services?: ServiceConfig }[],
): Promise<ContractRegions> {
  assert.ok(c.regionAuth.type === 'password' && 'id' in c.regionAuth.user, 'the region credential is a user id');
  const domainToken = await c.region.token();
  const domain = domainToken.domain ?? assert.fail('a domain-scoped token');
  const project = (await c.regionProject.token()).project ?? assert.fail('a project-scoped token');
  const credentials: RegionCredentials = {
    authUrl: c.authUrl,
    domainID: domain.id,
    projectID: project.id,
    userID: c.regionAuth.user.id,
    password: c.regionAuth.password,
  };
  const store = openEmbeddedStore(':memory:', { clock: systemClock, garbageCollection: false });
  for (const kind of regionKinds) await store.create(builtin.customResourceDefinition, customResourceDefinition(kind));
  const registered = {
    authUrl: c.authUrl,
    regionName: 'RegionOne',
    domainID: domain.id,
    domainName: domain.name,
    projectID: project.id,
    projectName: project.name,
    userID: credentials.userID,
    userName: domainToken.user.name,
    password: credentials.password,
  };
  for (const [index, region] of regions.entries()) {
    const plan: RegisterPlan = {
      regionID: region.id,
      displayName: `contract-${String(index)}`,
      namespace: REGION_NAMESPACE,
      secret: { namespace: REGION_NAMESPACE, name: SECRET },
      endpoint: c.authUrl,
      organizationIDs: [],
      services: region.services ?? {},
    };
    const manifests = registrationManifests(plan, registered);
    // The Secret once; every further region references it.
    await applyManifests(store, index === 0 ? manifests : manifests.slice(-1));
  }
  const transport = new RecordingTransport({ clock: systemClock, random: Math.random });
  const registry = await RegionRegistry.bootstrap({
    namespace: REGION_NAMESPACE,
    bootstrapClient: store,
    runtimeClient: store,
    clientSets: clientSetFactory({ transport, clock: systemClock, region: 'RegionOne' }),
  });
  return {
    store,
    transport,
    credentials,
    registry,
    lookup: (regionID) => registry.lookup(regionID),
    close: async () => {
      await transport.close();
      await store.close();
    },
  };
}
