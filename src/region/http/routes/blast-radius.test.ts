/**
 * The blast-radius contract (docs/adr/0034-server-identity-and-delete-blast-radius.md): a DELETE removes exactly its
 * own subtree. Random mixed v1/v2 topologies (several identities, v1 objects inside v2-made identities, networks,
 * security groups, servers, load balancers, volumes) are built through the REST API and provisioned by the region
 * controllers' own passes over fake providers; then one random DELETE route runs, the controllers' passes drain every
 * deletion, and every object outside the subtree the test's own model computes is untouched, in the store (same
 * resourceVersion) and in the cloud (no provider delete). `BLAST_RADIUS_RUNS` sets the budget (default 20).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { KubeConflictError } from '../../../kube/errors.ts';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import {
  identityType,
  loadBalancerType,
  networkType,
  securityGroupType,
  serverType,
  volumeType,
} from '../../apis/index.ts';
import { identityProvisioner } from '../../controllers/identity.ts';
import { loadBalancerProvisioner } from '../../controllers/load-balancer.ts';
import { networkProvisioner } from '../../controllers/network.ts';
import { reconcileProvisioned, type Provisioner } from '../../controllers/provisioner.ts';
import { securityGroupProvisioner } from '../../controllers/security-group.ts';
import { serverProvisioner } from '../../controllers/server/controller.ts';
import {
  FakeIdentityProvider,
  FakeLoadBalancerProvider,
  FakeNetworkProvider,
  FakeSecurityGroupProvider,
  FakeServerLifecycle,
  FakeVolumeProvider,
  lookupOf,
  passContext,
} from '../../controllers/testing/fakes.ts';
import { volumeProvisioner } from '../../controllers/volume.ts';
import {
  apiFixture,
  call,
  FLAVOR,
  IMAGE,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  VOLUME_CLASS,
} from '../testing/api.ts';

const RUNS = Number(process.env['BLAST_RADIUS_RUNS'] ?? '20');

/** The test's own model of what was made: each object's kind, the route that deletes it, and what it sits in. */
interface Made {
  readonly kind: 'Identity' | 'Network' | 'SecurityGroup' | 'Server' | 'LoadBalancer' | 'Volume';
  readonly id: string;
  readonly identity: string;
  /** The network it is on (none for identities, networks and v1 security groups). */
  readonly network?: string;
  /** The v1 path it was made under, or undefined for a v2 object. */
  readonly v1Base?: string;
  /** An identity the v2 network API made for this network. */
  readonly ownIdentity?: boolean;
}

/** One step of a topology, its targets chosen by index into what exists at that point. */
type Step =
  | { readonly op: 'v2-network' }
  | { readonly op: 'v1-identity' }
  | { readonly op: 'v1-network'; readonly identity: number }
  | { readonly op: 'v1-sg'; readonly identity: number }
  | { readonly op: 'v1-server'; readonly network: number; readonly name: number }
  | { readonly op: 'v2-server' | 'v2-sg' | 'v2-lb' | 'v2-volume'; readonly network: number; readonly name: number };

const index = fc.nat({ max: 7 });
const name = fc.nat({ max: 2 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ op: 'v2-network' as const }),
  fc.constant({ op: 'v1-identity' as const }),
  fc.record({ op: fc.constant('v1-network' as const), identity: index }),
  fc.record({ op: fc.constant('v1-sg' as const), identity: index }),
  fc.record({ op: fc.constant('v1-server' as const), network: index, name }),
  fc.record({
    op: fc.constantFrom('v2-server' as const, 'v2-sg' as const, 'v2-lb' as const, 'v2-volume' as const),
    network: index,
    name,
  }),
);

const PROJECT = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}`;
const PREFIXES = ['10.1', '10.2', '10.3', '10.4', '10.5', '10.6', '10.7', '10.8', '10.9'];

/** The objects `target`'s DELETE may remove, from the model alone. */
function subtree(made: readonly Made[], target: Made): Set<string> {
  const out = new Set([target.id]);
  if (target.kind === 'Identity') {
    for (const m of made) if (m.identity === target.id) out.add(m.id);
  } else if (target.kind === 'Network') {
    for (const m of made) if (m.network === target.id) out.add(m.id);
    // v2: the network's own identity too, when nothing else lives there.
    if (target.v1Base === undefined && target.ownIdentity === true) {
      const inIdentity = made.filter((m) => m.identity === target.identity && m.kind !== 'Identity');
      if (inIdentity.every((m) => out.has(m.id))) out.add(target.identity);
    }
  }
  return out;
}

describe('the blast radius of every DELETE route over random mixed v1/v2 topologies', () => {
  const fixtures: { close(): Promise<void> }[] = [];
  after(async () => {
    for (const f of fixtures) await f.close();
  });

  it(`removes exactly the subtree the route names, in the store and in the cloud (${String(RUNS)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 3, maxLength: 12 }),
        fc.nat(),
        fc.boolean(),
        async (steps, pick, v1) => {
          // With the store's garbage collector, as `up` runs it: routes that ask for a foreground delete get one.
          const f = await apiFixture(undefined, {}, { garbageCollection: true });
          fixtures.push(f);
          const ctx = passContext(f.clock);
          const fakes = {
            identity: new FakeIdentityProvider(),
            network: new FakeNetworkProvider(),
            securityGroup: new FakeSecurityGroupProvider(),
            server: new FakeServerLifecycle(),
            loadBalancer: new FakeLoadBalancerProvider(),
            volume: new FakeVolumeProvider(),
          };
          const regions = [REGION_ID];
          const provisioners: [ResourceType, Provisioner<never, unknown, unknown>][] = [
            [identityType, identityProvisioner(f.store, lookupOf(fakes.identity, regions)) as never],
            [networkType, networkProvisioner(f.store, lookupOf(fakes.network, regions)) as never],
            [securityGroupType, securityGroupProvisioner(f.store, lookupOf(fakes.securityGroup, regions)) as never],
            [volumeType, volumeProvisioner(f.store, lookupOf(fakes.volume, regions)) as never],
            [loadBalancerType, loadBalancerProvisioner(f.store, lookupOf(fakes.loadBalancer, regions)) as never],
            [serverType, serverProvisioner(f.store, lookupOf(fakes.server, regions)) as never],
          ];
          const everything = async (): Promise<[ResourceType, KubeObject][]> => {
            const all: [ResourceType, KubeObject][] = [];
            for (const [type] of provisioners) {
              for (const o of (await f.store.list(type, { namespace: NAMESPACE })).items) all.push([type, o]);
            }
            return all;
          };
          /** One pass of every object's controller, as the runtime would run them. */
          const passes = async (): Promise<void> => {
            for (const [type, provisioner] of provisioners) {
              for (const o of (await f.store.list(type, { namespace: NAMESPACE })).items) {
                // A write the collector beat is requeued by the runtime; the next round retries it.
                await reconcileProvisioned(
                  f.store,
                  provisioner,
                  { cluster: '', namespace: NAMESPACE, name: o.metadata.name },
                  ctx,
                ).catch((error: unknown) => {
                  if (!(error instanceof KubeConflictError)) throw error;
                });
              }
            }
          };

          // Build the topology through the API.
          const made: Made[] = [];
          const post = async (path: string, body: unknown): Promise<string | undefined> => {
            const answer = await call<{ metadata: { id: string } }>(f, f.tokens.a, 'POST', path, body);
            return answer.status === 201 ? answer.body.metadata.id : undefined;
          };
          const identities = () => made.filter((m) => m.kind === 'Identity');
          const networks = () => made.filter((m) => m.kind === 'Network');
          let prefixes = 0;
          for (const s of steps) {
            const prefix = `${PREFIXES[prefixes++ % PREFIXES.length] ?? '10.0'}.0.0/24`;
            if (s.op === 'v2-network') {
              const id = await post('/api/v2/networks', {
                metadata: { name: 'net' },
                spec: {
                  organizationId: ORG_A,
                  projectId: PROJECT_A,
                  regionId: REGION_ID,
                  prefix,
                  dnsNameservers: [],
                },
              });
              if (id === undefined) continue;
              const stored = await f.store.get(networkType, NAMESPACE, id);
              const identity = stored.metadata.labels?.['regions.unikorn-cloud.org/identity-id'] ?? '';
              made.push({ kind: 'Identity', id: identity, identity, v1Base: `${PROJECT}/identities/${identity}` });
              made.push({ kind: 'Network', id, identity, ownIdentity: true });
            } else if (s.op === 'v1-identity') {
              const id = await post(`${PROJECT}/identities`, {
                metadata: { name: 'id' },
                spec: { regionId: REGION_ID },
              });
              if (id !== undefined)
                made.push({ kind: 'Identity', id, identity: id, v1Base: `${PROJECT}/identities/${id}` });
            } else if (s.op === 'v1-network' || s.op === 'v1-sg') {
              const identity = identities()[s.identity % Math.max(1, identities().length)];
              if (identity?.v1Base === undefined) continue;
              const kind = s.op === 'v1-network' ? 'Network' : 'SecurityGroup';
              const id = await post(
                `${identity.v1Base}/${kind === 'Network' ? 'networks' : 'securitygroups'}`,
                kind === 'Network'
                  ? { metadata: { name: 'v1' }, spec: { prefix, dnsNameservers: [] } }
                  : { metadata: { name: 'v1' }, spec: { rules: [] } },
              );
              if (id !== undefined) made.push({ kind, id, identity: identity.id, v1Base: identity.v1Base });
            } else {
              const network = networks()[s.network % Math.max(1, networks().length)];
              if (network === undefined) continue;
              const named = `n${String(s.name)}`;
              let id: string | undefined;
              let kind: Made['kind'];
              const base = `${PROJECT}/identities/${network.identity}`;
              if (s.op === 'v1-server') {
                kind = 'Server';
                id = await post(`${base}/servers`, {
                  metadata: { name: named },
                  spec: { flavorId: FLAVOR, imageId: IMAGE, networks: [{ id: network.id }] },
                });
              } else {
                const spec = { networkId: network.id };
                const [path, body, k]: [string, object, Made['kind']] =
                  s.op === 'v2-server'
                    ? ['/api/v2/servers', { ...spec, flavorId: FLAVOR, imageId: IMAGE }, 'Server']
                    : s.op === 'v2-sg'
                      ? ['/api/v2/securitygroups', { ...spec, rules: [] }, 'SecurityGroup']
                      : s.op === 'v2-lb'
                        ? ['/api/v2/loadbalancers', { ...spec, listeners: [] }, 'LoadBalancer']
                        : ['/api/v2/volumes', { ...spec, volumeClassId: VOLUME_CLASS, sizeGiB: 10 }, 'Volume'];
                kind = k;
                id = await post(path, { metadata: { name: named }, spec: body });
              }
              if (id !== undefined) {
                made.push({
                  kind,
                  id,
                  identity: network.identity,
                  network: network.id,
                  ...(s.op === 'v1-server' ? { v1Base: base } : {}),
                });
              }
            }
          }
          if (made.length === 0) return;
          await passes();
          await passes();

          // One DELETE, through the v1 route or the v2 one where the kind has both.
          const target = made[pick % made.length] as Made;
          const viaV1 =
            target.kind === 'Identity' || (v1 && target.kind !== 'LoadBalancer' && target.kind !== 'Volume');
          const path = viaV1
            ? target.kind === 'Identity'
              ? `${PROJECT}/identities/${target.id}`
              : `${PROJECT}/identities/${target.identity}/${{ Network: 'networks', SecurityGroup: 'securitygroups', Server: 'servers' }[target.kind as 'Network']}/${target.id}`
            : `/api/v2/${{ Network: 'networks', SecurityGroup: 'securitygroups', Server: 'servers', LoadBalancer: 'loadbalancers', Volume: 'volumes' }[target.kind as 'Network']}/${target.id}`;
          const model = viaV1 ? { ...target, v1Base: target.v1Base ?? 'v1' } : { ...target, v1Base: undefined };
          const expected = subtree(made, model as Made);
          const before = new Map((await everything()).map(([, o]) => [o.metadata.name, o.metadata.resourceVersion]));
          const deletes = () =>
            Object.values(fakes).flatMap((fake) =>
              fake.calls.filter((c) => c.startsWith('delete ')).map((c) => c.slice(7)),
            );
          const answer = await call(f, f.tokens.a, 'DELETE', path);
          assert.equal(answer.status, 202, `${path}: ${JSON.stringify(answer.body)}`);
          for (let round = 0; round < 12; round++) {
            if ((await everything()).every(([, o]) => o.metadata.deletionTimestamp === undefined)) break;
            await passes();
          }

          const left = await everything();
          const gone = [...before.keys()].filter((n) => !left.some(([, o]) => o.metadata.name === n));
          const story = `${path}\nsteps ${JSON.stringify(steps)}\nmade ${JSON.stringify(made)}`;
          assert.deepEqual(new Set(gone), expected, `exactly the subtree is gone\n${story}`);
          for (const [, o] of left) {
            assert.equal(
              o.metadata.deletionTimestamp,
              undefined,
              `${o.kind} ${o.metadata.name} is not being deleted\n${story}`,
            );
            assert.equal(
              o.metadata.resourceVersion,
              before.get(o.metadata.name),
              `${o.kind} ${o.metadata.name} untouched\n${story}`,
            );
          }
          const cloud = new Set(deletes());
          for (const id of cloud)
            assert.ok(expected.has(id), `the cloud saw a delete of ${id} outside the subtree\n${story}`);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
