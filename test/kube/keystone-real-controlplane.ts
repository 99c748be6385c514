/**
 * The Keystone orders operator on a cluster where the c5c3 operator's real ControlPlane CRD
 * (test/fixtures/third-party-crds/c5c3) was installed first: the operator's own install path keeps it exactly as it
 * was (stand-ins go in only for the kinds that are absent), and an order runs against a ControlPlane that CRD
 * serves. The real CRD at the fixture's revision has no spec.namespaceAssignments, so the apiserver prunes the
 * assignment and the order is frozen (NamespaceNotAssigned) with nothing created: what the assignment gate
 * does for a ControlPlane that assigns nothing. Run on the embedded store only: kube-apiserver 1.20 (test:kube) refuses
 * the real CRD itself (its `default: ""` on string fields reads as null there); the c5c3 operator needs a newer one.
 */
/* eslint-disable @typescript-eslint/no-floating-promises -- node:test's describe/it return promises the runner awaits itself. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../../src/kube/client.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin, type ResourceType } from '../../src/kube/resource-type.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { systemClock } from '../../src/util/clock.ts';
import { installBundledActuatorCrds, installC5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import { installCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import {
  ADMIN_CREDENTIAL_READY,
  controlPlaneType,
  keystoneCrds,
  keystoneUserType,
  korcUserType,
  pushSecretType,
  type KeystoneUser,
} from '../../src/keystone/apis/index.ts';
import { planeFacts } from '../../src/keystone/user/plane.ts';
import { registerKeystoneUserController } from '../../src/keystone/user/register.ts';
import { c5c3ControlPlaneCrd } from '../fixtures/third-party-crds/index.ts';
import { eventually } from './fixtures.ts';

const CP_NS = 'openstack-realcp';
const ORDER_NS = 'tenant-realcp';
const CONVERGE_MS = 60_000;

const namespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

/** A management cluster, empty but for what a cluster has; `close` stops whatever `start` started. */
export interface RealControlPlaneCluster {
  readonly client: Client;
  close(): Promise<void>;
}

export function keystoneOrderWithRealControlPlane(backend: string, start: () => Promise<RealControlPlaneCluster>) {
  describe(`the Keystone operator with the c5c3 operator's real ControlPlane CRD installed first, on ${backend}`, () => {
    let cluster: RealControlPlaneCluster;
    let client: Client;
    let manager: Manager | undefined;

    const served = (type: ResourceType) =>
      eventually(`${type.kind} served`, async () =>
        (await client.servedVersions(type.group, type.plural)).includes(type.version) ? true : undefined,
      );

    before(async () => {
      cluster = await start();
      client = cluster.client;
      await installCrds(client, [c5c3ControlPlaneCrd()]);
      await served(controlPlaneType);
    });

    after(async () => {
      await manager?.stop();
      await cluster.close();
    });

    it("the operator's install path keeps the real ControlPlane CRD exactly; stand-ins only where absent", async () => {
      const real = await client.get(builtin.customResourceDefinition, undefined, 'controlplanes.c5c3.io');
      const report = await installC5c3StandInCrds(client);
      assert.deepEqual(report.kept, ['controlplanes.c5c3.io']);
      assert.deepEqual([...report.installed].sort(), [
        'keystoneapplicationcredentials.c5c3.io',
        'keystoneroleassignments.c5c3.io',
      ]);
      const after = await client.get(builtin.customResourceDefinition, undefined, 'controlplanes.c5c3.io');
      assert.equal(after.metadata.resourceVersion, real.metadata.resourceVersion, 'not written at all');
      assert.deepEqual(after.spec, real.spec);
    });

    it('an order against a ControlPlane the real CRD serves: read, and frozen, since that CRD holds no assignments', async () => {
      await installCrds(client, keystoneCrds());
      await installBundledActuatorCrds(client); // K-ORC and ESO stand-ins: the operator watches their kinds
      for (const type of [keystoneUserType, korcUserType, pushSecretType]) await served(type);
      for (const name of [CP_NS, ORDER_NS]) await client.create(builtin.namespace, namespace(name));
      // What the real schema requires (korc.adminCredential, openStackRelease, services), and the specification's assignment.
      await client.create(controlPlaneType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'ControlPlane',
        metadata: { name: 'cp', namespace: CP_NS },
        spec: {
          openStackRelease: '2025.1',
          korc: {
            adminCredential: {
              applicationCredential: { rotation: {} },
              cloudCredentialsRef: {},
              passwordSecretRef: { name: 'pw' },
            },
          },
          services: { keystone: { mode: 'External', external: { authURL: 'http://keystone.invalid:5000/v3' } } },
          namespaceAssignments: [{ namespace: ORDER_NS }],
        },
      } as KubeObject as never);
      const cp = await client.get(controlPlaneType, CP_NS, 'cp');
      assert.equal(cp.spec.namespaceAssignments, undefined, 'pruned: the real CRD has no such field');
      // The fields the operator reads through planeFacts come back from the real schema, with its defaults.
      const plane = planeFacts(cp);
      assert.equal(plane.external, true);
      assert.equal(plane.region, 'RegionOne');
      assert.deepEqual(plane.probeCredentials, { secretName: 'k-orc-clouds-yaml', cloudName: 'admin' });
      await client.patch(
        controlPlaneType,
        CP_NS,
        'cp',
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

      manager = new Manager({ client, clock: systemClock, random: Math.random });
      registerKeystoneUserController(manager);
      await manager.start();
      await client.create(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name: 'realcp', namespace: ORDER_NS },
        spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
      });
      const frozen = await eventually(
        'the order frozen',
        async () => {
          const o: KeystoneUser = await client.get(keystoneUserType, ORDER_NS, 'realcp');
          const c = o.status?.conditions?.find((x) => x.type === 'UserReady');
          return c?.reason === 'NamespaceNotAssigned' ? o : undefined;
        },
        CONVERGE_MS,
      );
      assert.match(
        frozen.status?.conditions?.find((c) => c.type === 'DeliveryReady')?.message ?? '',
        /assigns no namespace "tenant-realcp" on the management cluster/,
      );
      assert.deepEqual((await client.list(korcUserType, { namespace: CP_NS })).items, [], 'nothing provisioned');
      assert.deepEqual((await client.list(pushSecretType, { namespace: CP_NS })).items, []);
      assert.equal(frozen.metadata.finalizers, undefined, 'no finalizer on an order the operator does not serve');
    });
  });
}
