/**
 * What each deployable part of openregion does on Kubernetes, as RBAC permissions. Reads come from the real
 * controller registrations: the groups register on a Manager that never starts, and every kind they watch
 * becomes get/list/watch where the caches run (the management cluster, every namespace; the target clusters for
 * watches on `all` clusters). Writes, and the reads that bypass the caches, are declared here beside the code
 * that makes them, and `up`'s end-to-end test runs the whole system through an AuthorizingClient holding these
 * rules, so a write the code makes and this file does not grant fails a test.
 */
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import type { Client } from '../../kube/client.ts';
import { registerEsoActuator } from '../../keystone/actuators/eso/controller.ts';
import { registerKorcActuators } from '../../keystone/actuators/korc/register.ts';
import {
  keystoneUserType,
  korcDomainType,
  korcUserType,
  pushSecretType,
  secretStoreType,
} from '../../keystone/apis/index.ts';
import { storeTypeAt } from '../../keystone/apis/eso.ts';
import { registerKeystoneUserController } from '../../keystone/user/register.ts';
import {
  identityType,
  loadBalancerType,
  networkType,
  openstackIdentityType,
  regionType,
  securityGroupType,
  serverType,
  sshCertificateAuthorityType,
  volumeType,
} from '../../region/apis/index.ts';
import { vlanAllocationType } from '../../region/apis/vlan-allocation.ts';
import { registerRegionController } from '../../region/controllers/region.ts';
import { registerRegionControllers, REGION_CONTROLLER_GROUPS } from '../../region/controllers/index.ts';
import { Manager } from '../../runtime/manager.ts';
import { permission, READ, type Permission } from '../../runtime/rbac.ts';
import { ManualScheduler } from '../../runtime/scheduler.ts';
import { ManualClock } from '../../util/clock.ts';
import { CONTROLLERS_LEASE, MONITOR_LEASE, regionKindsIn } from '../serve-options.ts';

/** A client that is never called: registration does no I/O, and this Manager never starts. */
const unused: Client = new Proxy({} as Client, {
  get: () => () => Promise.reject(new Error('permissions are read from registrations only')),
});

interface RegisteredReads {
  /** get/list/watch on the management cluster: in the operator's namespace for kinds `serve` watches there only. */
  readonly management: Permission[];
  /** get/list/watch on a target cluster: the watches registered on `all` clusters. */
  readonly targets: Permission[];
}

/** The kinds the controllers `register` adds to a Manager watch, as read permissions where their caches run. */
export function registeredReads(
  register: (manager: Manager) => void,
  namespacesOf: (type: ResourceType) => readonly string[] | undefined = () => undefined,
): RegisteredReads {
  const scheduler = new ManualScheduler(new ManualClock());
  const manager = new Manager({ client: unused, clock: scheduler.clock, scheduler, namespacesOf });
  register(manager);
  const unique = (types: ResourceType[]) => [...new Map(types.map((t) => [`${t.group}/${t.plural}`, t])).values()];
  const watches = manager.watches().map(({ watch }) => watch);
  return {
    management: unique(watches.map((w) => w.type)).map((t) =>
      permission(t, READ, { scope: namespacesOf(t) === undefined ? 'cluster' : 'namespace' }),
    ),
    targets: unique(watches.filter((w) => w.clusters === 'all').map((w) => w.type)).map((t) => permission(t, READ)),
  };
}

const inNamespace = { scope: 'namespace' } as const;
const REGION_KINDS = [identityType, networkType, securityGroupType, serverType, loadBalancerType, volumeType];

/**
 * The region service as `serve` runs it with every region group, the server monitor, the REST API and leader
 * election: everything in its own namespace (a Role), where its caches watch too (serve's regionKindsIn).
 */
export function regionServicePermissions(): Permission[] {
  const { management } = registeredReads((manager) => {
    registerRegionControllers(manager, () => Promise.reject(new Error('unused')), {
      groups: REGION_CONTROLLER_GROUPS,
    });
    registerRegionController(manager, unused, () => Promise.reject(new Error('unused')), { periodMs: 60_000 });
  }, regionKindsIn('the operator namespace'));
  return [
    ...management,
    // The controllers: finalizers on the object, conditions through the status subresource (provisioner.ts,
    // server/controller.ts); the identity's OpenStack record (openstack/identity/record.ts); the VLAN table
    // (vlan/allocator.ts); the identity's dependents, counted before it goes (controllers/identity.ts).
    ...REGION_KINDS.flatMap((kind) => [
      permission(kind, ['update'], inNamespace),
      permission(kind, ['update'], { ...inNamespace, subresource: 'status' }),
      permission(kind, ['list'], inNamespace),
    ]),
    // Read from an informer by workload passes (runtime/cached-client.ts), so listed and watched too.
    permission(openstackIdentityType, ['get', 'list', 'watch', 'create', 'patch', 'delete'], inNamespace),
    permission(vlanAllocationType, ['get', 'create', 'update'], inNamespace),
    // The region registry: Regions and their credentials Secrets, read uncached at bootstrap, then from informers
    // on this namespace (openstack/registry.ts, cli/region-registry.ts).
    permission(regionType, ['get', 'list', 'watch'], inNamespace),
    // The Region's Ready condition (controllers/region.ts).
    permission(regionType, ['update'], { ...inNamespace, subresource: 'status' }),
    permission(builtin.secret, ['get', 'list', 'watch'], inNamespace),
    // The server monitor lists Servers and writes their status (monitor/server-monitor.ts).
    permission(serverType, ['list'], inNamespace),
    // The REST API (http/repository.ts): every tenant resource, and owner references that block deletion
    // (children of a Network, a Network of its Identity: http/resources/meta.ts).
    ...[...REGION_KINDS, sshCertificateAuthorityType].map((kind) =>
      permission(kind, ['get', 'list', 'create', 'update', 'delete'], inNamespace),
    ),
    permission(networkType, ['update'], { ...inNamespace, subresource: 'finalizers' }),
    permission(identityType, ['update'], { ...inNamespace, subresource: 'finalizers' }),
    // Events on the objects a pass failed for, a repeat patched onto the first (kube/events.ts, provisioner.ts).
    permission(builtin.event, ['create', 'patch'], inNamespace),
    ...leaderElection(),
  ];
}

/** Leader election (`serve --leader-election`): the two Leases by name, and creating them. */
function leaderElection(): Permission[] {
  return [
    permission(builtin.lease, ['get', 'update'], { ...inNamespace, resourceNames: [CONTROLLERS_LEASE, MONITOR_LEASE] }),
    permission(builtin.lease, ['create'], inNamespace),
  ];
}

/** What the KeystoneUser reconciler writes, wherever an order or its ControlPlane lives (order/, user/). */
function keystoneUserWrites(scope: Permission['scope'] = 'cluster'): Permission[] {
  return [
    permission(keystoneUserType, ['update'], { scope }),
    permission(keystoneUserType, ['update'], { scope, subresource: 'status' }),
    // The delivered Secret's controller reference blocks the order's deletion.
    permission(keystoneUserType, ['update'], { scope, subresource: 'finalizers' }),
    permission(builtin.secret, ['create', 'patch', 'delete'], { scope }),
    // The order's Events: its gates and steps (user/reconciler.ts), a repeat patched onto the first (kube/events.ts).
    permission(builtin.event, ['create', 'patch'], { scope }),
  ];
}

/**
 * Where the Keystone operator's management-cluster caches watch: `namespaces` (the shipped overlay, `serve
 * --watch-namespaces`), its rights a Role in each watched namespace; `cluster` (the cluster-wide overlay, no
 * --watch-namespaces), a ClusterRole.
 */
export type KeystoneWatch = 'namespaces' | 'cluster';

/**
 * The Keystone orders operator as `serve --controllers keystone` runs it: the orders on the management cluster,
 * their K-ORC Users, ESO PushSecrets and Secrets in each ControlPlane's namespace: in the watched namespaces
 * (scope `watched`), or in every namespace when `watch` is `cluster`.
 */
export function keystoneOperatorPermissions(watch: KeystoneWatch = 'namespaces'): Permission[] {
  const scope: Permission['scope'] = watch === 'cluster' ? 'cluster' : 'watched';
  const { management } = registeredReads(
    (manager) => {
      registerKeystoneUserController(manager);
    },
    watch === 'cluster' ? undefined : (type) => (type.namespaced ? ['watched'] : undefined),
  );
  return [
    ...management.map((p) => (p.scope === 'namespace' ? { ...p, scope } : p)),
    ...keystoneUserWrites(scope),
    permission(korcUserType, ['create', 'patch', 'delete'], { scope }),
    // Clearing K-ORC's latched error (user/unlatch.ts).
    permission(korcUserType, ['patch'], { scope, subresource: 'status' }),
    permission(pushSecretType, ['create', 'patch', 'delete'], { scope }),
    // The ControlPlane's tenant store must be Ready before a password is pushed (user/provision.ts), read at the
    // version discovery finds (RBAC names the resource, not the version). A ClusterSecretStore has no namespace.
    permission(secretStoreType, ['get'], { scope }),
    permission(storeTypeAt('ClusterSecretStore', 'v1'), ['get']),
    // The target clusters' registration Secrets (runtime/multicluster.ts), listed and watched in --clusters-namespace.
    ...(watch === 'cluster' ? [] : [permission(builtin.secret, READ, { scope: 'registrations' })]),
    ...leaderElection().filter((p) => p.resourceNames === undefined),
    permission(builtin.lease, ['get', 'update'], { ...inNamespace, resourceNames: [CONTROLLERS_LEASE] }),
  ];
}

/**
 * On a registered target cluster, the identity its kubeconfig carries: the orders placed there and the Secret
 * delivered beside each (the watches on `all` clusters, and the reconciler's writes to the order's cluster).
 */
export function targetClusterPermissions(): Permission[] {
  const { targets } = registeredReads((manager) => {
    registerKeystoneUserController(manager);
  });
  return [...targets, ...keystoneUserWrites()];
}

/**
 * The bundled K-ORC and ESO stand-ins `up` runs (a cluster without K-ORC and ESO): what the real K-ORC and ESO
 * would do in their own deployments. Not part of a shipped overlay.
 */
export function bundledActuatorPermissions(): Permission[] {
  const { management } = registeredReads((manager) => {
    registerKorcActuators(manager, { enabled: true, clock: new ManualClock() });
    registerEsoActuator(manager, { enabled: true });
  });
  return [
    ...management,
    // Finalizers by update, status by merge patch (korc/pass.ts); a user's password Secret (korc/user.ts).
    ...[korcUserType, korcDomainType].flatMap((kind) => [
      permission(kind, ['update']),
      permission(kind, ['patch'], { subresource: 'status' }),
    ]),
    permission(builtin.secret, ['get']),
    // PushSecret finalizers and status, the store's status, the store's token Secret (eso/).
    permission(pushSecretType, ['update']),
    permission(pushSecretType, ['update'], { subresource: 'status' }),
    permission(secretStoreType, ['update'], { subresource: 'status' }),
  ];
}
