/**
 * Test support for the region controllers: an in-memory fake per provider capability whose answers a test
 * scripts, a lookup over it, an embedded store serving every region kind, object builders and a readable log.
 */
import type { Condition } from '../../../kube/object.ts';
import { silentLogger } from '../../../runtime/logger.ts';
import type { Logger, ReconcileContext } from '../../../runtime/types.ts';
import type { Clock } from '../../../util/clock.ts';
import { identityType, type Identity } from '../../apis/identity.ts';
import { networkType, type Network, type NetworkSpec } from '../../apis/network.ts';
import { serverType, type Server, type ServerStatus } from '../../apis/server.ts';
import { securityGroupType, type SecurityGroup, type SecurityGroupRule } from '../../apis/security-group.ts';
import { API_VERSION, labels } from '../../apis/shared.ts';
import type {
  IdentityProvider,
  LoadBalancerProvider,
  NetworkProvider,
  ProviderLookup,
  RegionProvider,
  SecurityGroupProvider,
  VolumeProvider,
} from '../../provider/contract.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import type {
  AttachmentInput,
  IdentityInput,
  LoadBalancerInput,
  LoadBalancerRealisation,
  NetworkInput,
  NetworkRealisation,
  SecurityGroupInput,
  ServerAddresses,
  ServerInput,
  VolumeInput,
} from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import type { ExternalNetwork, ServerVolumeAttachment } from '../../provider/types.ts';
import type { ServerLifecycle } from '../server/controller.ts';
import { defined } from '../../../util/defined.ts';

export const NAMESPACE = 'default';
export const REGION = 'region-1';
export const ORGANIZATION = 'org-1';
export const PROJECT = 'project-1';

/** One scripted answer: an outcome, an error to throw, or a function run at call time (to look at the store). */
type Answer<T> = Outcome<T> | Error | (() => Promise<Outcome<T>>);

/** Answers a test queued, in order; then the default. */
class Script<T> {
  readonly #queue: Answer<T>[] = [];
  readonly #fallback: () => Outcome<T>;

  constructor(fallback: () => Outcome<T>) {
    this.#fallback = fallback;
  }

  next(...answers: Answer<T>[]): void {
    this.#queue.push(...answers);
  }

  async take(): Promise<Outcome<T>> {
    const answer = this.#queue.shift() ?? this.#fallback();
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? answer() : answer;
  }
}

export class FakeIdentityProvider implements IdentityProvider {
  /** `create <id>` / `delete <id>`, in call order. */
  readonly calls: string[] = [];
  readonly inputs: IdentityInput[] = [];
  readonly creates = new Script<undefined>(() => Outcome.ok());
  readonly deletes = new Script<undefined>(() => Outcome.ok());

  createIdentity(_ctx: unknown, identity: IdentityInput): Promise<Outcome<undefined>> {
    this.calls.push(`create ${identity.id}`);
    this.inputs.push(identity);
    return this.creates.take();
  }

  deleteIdentity(_ctx: unknown, identity: IdentityInput): Promise<Outcome<undefined>> {
    this.calls.push(`delete ${identity.id}`);
    this.inputs.push(identity);
    return this.deletes.take();
  }
}

const realisationOf = (id: string): NetworkRealisation => ({ networkID: `net-${id}`, subnetID: `sub-${id}` });

export class FakeNetworkProvider implements NetworkProvider {
  readonly calls: string[] = [];
  readonly inputs: { identity: IdentityInput; network: NetworkInput }[] = [];
  #current = '';
  readonly creates = new Script<NetworkRealisation>(() => Outcome.done(realisationOf(this.#current)));
  readonly deletes = new Script<undefined>(() => Outcome.ok());

  createNetwork(_ctx: unknown, identity: IdentityInput, network: NetworkInput): Promise<Outcome<NetworkRealisation>> {
    this.calls.push(`create ${network.id}`);
    this.inputs.push({ identity, network });
    this.#current = network.id;
    return this.creates.take();
  }

  deleteNetwork(_ctx: unknown, identity: IdentityInput, network: NetworkInput): Promise<Outcome<undefined>> {
    this.calls.push(`delete ${network.id}`);
    this.inputs.push({ identity, network });
    return this.deletes.take();
  }

  listExternalNetworks(): Promise<readonly ExternalNetwork[]> {
    return Promise.resolve([]);
  }
}

export class FakeSecurityGroupProvider implements SecurityGroupProvider {
  readonly calls: string[] = [];
  readonly inputs: { identity: IdentityInput; securityGroup: SecurityGroupInput }[] = [];
  readonly creates = new Script<undefined>(() => Outcome.ok());
  readonly deletes = new Script<undefined>(() => Outcome.ok());

  createSecurityGroup(_ctx: unknown, identity: IdentityInput, sg: SecurityGroupInput): Promise<Outcome<undefined>> {
    this.calls.push(`create ${sg.id}`);
    this.inputs.push({ identity, securityGroup: sg });
    return this.creates.take();
  }

  deleteSecurityGroup(_ctx: unknown, identity: IdentityInput, sg: SecurityGroupInput): Promise<Outcome<undefined>> {
    this.calls.push(`delete ${sg.id}`);
    this.inputs.push({ identity, securityGroup: sg });
    return this.deletes.take();
  }
}

export class FakeLoadBalancerProvider implements LoadBalancerProvider {
  readonly calls: string[] = [];
  readonly inputs: { identity: IdentityInput; loadBalancer: LoadBalancerInput }[] = [];
  readonly creates = new Script<LoadBalancerRealisation>(() => Outcome.done({ vipAddress: '192.168.0.200' }));
  readonly deletes = new Script<undefined>(() => Outcome.ok());

  createLoadBalancer(_ctx: unknown, identity: IdentityInput, lb: LoadBalancerInput) {
    this.calls.push(`create ${lb.id}`);
    this.inputs.push({ identity, loadBalancer: lb });
    return this.creates.take();
  }

  deleteLoadBalancer(_ctx: unknown, identity: IdentityInput, lb: LoadBalancerInput) {
    this.calls.push(`delete ${lb.id}`);
    this.inputs.push({ identity, loadBalancer: lb });
    return this.deletes.take();
  }
}

export class FakeVolumeProvider implements VolumeProvider {
  readonly calls: string[] = [];
  readonly inputs: { identity: IdentityInput; volume: VolumeInput }[] = [];
  readonly creates = new Script<undefined>(() => Outcome.ok());
  readonly deletes = new Script<undefined>(() => Outcome.ok());

  createVolume(_ctx: unknown, identity: IdentityInput, volume: VolumeInput): Promise<Outcome<undefined>> {
    this.calls.push(`create ${volume.id}`);
    this.inputs.push({ identity, volume });
    return this.creates.take();
  }

  deleteVolume(_ctx: unknown, identity: IdentityInput, volume: VolumeInput): Promise<Outcome<undefined>> {
    this.calls.push(`delete ${volume.id}`);
    this.inputs.push({ identity, volume });
    return this.deletes.take();
  }

  attachVolume(): Promise<Outcome<never>> {
    return Promise.reject(new Error('the Volume controller never attaches'));
  }

  detachVolume(): Promise<Outcome<undefined>> {
    return Promise.reject(new Error('the Volume controller never detaches'));
  }
}

/** Server lifecycle calls answered from scripts; the monitor's poll is not the controller's to make. */
export class FakeServerLifecycle implements ServerLifecycle {
  /** `create|delete <server>`, `attach|detach <volume>` (with `@device` when one is asked for), in call order. */
  readonly calls: string[] = [];
  readonly creates = new Script<ServerAddresses>(() => Outcome.done({}));
  readonly deletes = new Script<undefined>(() => Outcome.ok());
  /** Attaches answer done on /dev/vdb unless scripted; detaches done. */
  readonly attaches = new Script<ServerVolumeAttachment>(() => Outcome.done({ device: '/dev/vdb' }));
  readonly detaches = new Script<undefined>(() => Outcome.ok());

  attachVolume(
    _ctx: unknown,
    _identity: IdentityInput,
    _server: ServerInput,
    volume: AttachmentInput,
  ): Promise<Outcome<ServerVolumeAttachment>> {
    this.calls.push(`attach ${volume.id}${volume.device === undefined ? '' : `@${volume.device}`}`);
    return this.attaches.take();
  }

  detachVolume(_ctx: unknown, _identity: IdentityInput, _server: ServerInput, volume: { id: string }) {
    this.calls.push(`detach ${volume.id}`);
    return this.detaches.take();
  }

  createServer(_ctx: unknown, _identity: IdentityInput, server: ServerInput): Promise<Outcome<ServerAddresses>> {
    this.calls.push(`create ${server.id}`);
    return this.creates.take();
  }

  deleteServer(_ctx: unknown, _identity: IdentityInput, server: ServerInput): Promise<Outcome<undefined>> {
    this.calls.push(`delete ${server.id}`);
    return this.deletes.take();
  }

  updateServerState(): Promise<never> {
    return Promise.reject(new Error('the monitor polls, not this fake'));
  }
}

/**
 * One region provider answering each call from the first fake that has the method; a call no fake serves fails.
 * For what drives every capability at once (registerRegionControllers), each capability still its own fake.
 */
export function fakeRegionProvider(...fakes: readonly object[]): RegionProvider {
  return new Proxy({} as RegionProvider, {
    get(_target, name) {
      // Not a thenable: a lookup resolves to the provider itself.
      if (name === 'then') return undefined;
      for (const fake of fakes) {
        const method: unknown = Reflect.get(fake, name);
        if (typeof method === 'function') return (...args: unknown[]): unknown => Reflect.apply(method, fake, args);
      }
      return () => Promise.reject(new Error(`no fake serves ${String(name)}`));
    },
  });
}

/** A lookup serving `provider` for the known regions; any other region is not found, as a region registry has it. */
export function lookupOf<P>(provider: P, regions: readonly string[] = [REGION]): ProviderLookup<P> {
  return (regionID) =>
    regions.includes(regionID)
      ? Promise.resolve(provider)
      : Promise.reject(new ResourceNotFoundError(`region ${regionID} is not configured`));
}

/** The one region test store, here beside the controllers' other fixtures. */
export { openRegionStore, regionStoresClosedAfter } from '../../apis/testing/store.ts';

export function ownerLabels(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    [labels.organization]: ORGANIZATION,
    [labels.project]: PROJECT,
    [labels.regionID]: REGION,
    ...extra,
  };
}

const meta = (name: string, objectLabels: Readonly<Record<string, string>>) => ({
  name,
  namespace: NAMESPACE,
  labels: { ...objectLabels },
});

export function identityObject(name: string, objectLabels = ownerLabels()): Identity {
  return {
    apiVersion: API_VERSION,
    kind: identityType.kind,
    metadata: meta(name, objectLabels),
    spec: { provider: 'openstack' },
  };
}

export function networkObject(
  name: string,
  identityID: string,
  spec: NetworkSpec = { prefix: '192.168.0.0/24' },
  objectLabels = ownerLabels({ [labels.identityID]: identityID }),
): Network {
  return { apiVersion: API_VERSION, kind: networkType.kind, metadata: meta(name, objectLabels), spec };
}

export function securityGroupObject(
  name: string,
  identityID: string,
  rules: SecurityGroupRule[] = [],
  objectLabels = ownerLabels({ [labels.identityID]: identityID }),
): SecurityGroup {
  return {
    apiVersion: API_VERSION,
    kind: securityGroupType.kind,
    metadata: meta(name, objectLabels),
    spec: { rules },
  };
}

/** A Server of identity `id-1`, displayed as `web`, on `net-1`; `status` and `spec` as given. */
export function serverObject(
  status?: ServerStatus,
  spec: Partial<Server['spec']> = {},
  extraLabels: Readonly<Record<string, string>> = {},
): Server {
  return {
    apiVersion: API_VERSION,
    kind: serverType.kind,
    metadata: {
      name: 's-1',
      namespace: NAMESPACE,
      generation: 1,
      labels: ownerLabels({ [labels.identityID]: 'id-1', [labels.name]: 'web', ...extraLabels }),
    },
    spec: { flavorID: 'f', image: { id: 'img' }, networks: [{ id: 'net-1' }], ...spec },
    ...defined({ status }),
  };
}

/** A stored condition, its message and transition time fixed. */
export const condition = (type: string, status: Condition['status'], reason: string): Condition => ({
  type,
  status,
  reason,
  message: 'm',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

/** The context a runtime worker would hand a pass. */
export function passContext(clock: Clock, options: { log?: Logger; signal?: AbortSignal } = {}): ReconcileContext {
  return { clock, log: options.log ?? silentLogger(), signal: options.signal ?? new AbortController().signal };
}
