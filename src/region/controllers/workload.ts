/**
 * Workloads: the kinds realised inside the project of the Identity they name by label (networks, security groups,
 * volumes, load balancers, servers). A workload provisions only once that Identity is Available and is woken when
 * it becomes so; its delete always goes to the provider, which treats a never-realised identity as proof that
 * nothing exists. A kind that is nothing more states its input and its two provider calls (workloadProvisioner).
 */
import { getOptional, type Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import type { ControllerBuilder, Manager } from '../../runtime/manager.ts';
import type { Predicate } from '../../runtime/predicates.ts';
import { identityType } from '../apis/identity.ts';
import type { CallContext, ProviderLookup } from '../provider/contract.ts';
import type { IdentityInput, Ownership } from '../provider/inputs.ts';
import type { Outcome } from '../provider/outcome.ts';
import { identityGate, missingLabelsVerdict, type Verdict } from './decide.ts';
import { identityIDOf, workloadIdentityOf } from './ownership.ts';
import { type ProvisionedResource, type Provisioner } from './provisioner.ts';
import { becameAvailable, specOrDeletionChanged, usersOf } from './watches.ts';
import { defined } from '../../util/defined.ts';

/** Reads the named Identity fresh and judges it; undefined when provisioning may go ahead. */
export async function gateOnIdentity(client: Client, object: KubeObject): Promise<Verdict | undefined> {
  const id = identityIDOf(object);
  if (id === undefined) return missingLabelsVerdict();
  const identity = await getOptional(client, identityType, object.metadata.namespace ?? '', id);
  return identityGate(identity);
}

/** A workload kind: its provider input and its create-or-converge and delete-until-gone calls. */
interface WorkloadKind<R extends ProvisionedResource, P, I extends Ownership, V> {
  readonly type: ResourceType<R>;
  /** The provider's input, or undefined when a label or field it needs is missing. */
  inputOf(object: R): I | undefined;
  create(provider: P, ctx: CallContext, identity: IdentityInput, input: I): Promise<Outcome<V>>;
  delete(provider: P, ctx: CallContext, identity: IdentityInput, input: I): Promise<Outcome<undefined>>;
  /** A dependency besides the Identity, checked once the Identity is Available. */
  gate?(object: R, input: I): Promise<Verdict | undefined>;
  /** Status fields besides conditions this reconciler owns, from a done create. */
  readonly realised?: (value: V) => Readonly<Record<string, unknown>>;
}

export function workloadProvisioner<R extends ProvisionedResource, P, I extends Ownership, V>(
  client: Client,
  lookup: ProviderLookup<P>,
  kind: WorkloadKind<R, P, I, V>,
): Provisioner<R, P, V> {
  const { realised } = kind;
  return {
    type: kind.type,
    lookup,
    bind(object) {
      const identity = workloadIdentityOf(object);
      const input = kind.inputOf(object);
      if (identity === undefined || input === undefined) return undefined;
      return {
        regionID: input.regionID,
        gate: async () => (await gateOnIdentity(client, object)) ?? kind.gate?.(object, input),
        provision: async (provider, ctx) => ({ outcome: await kind.create(provider, ctx, identity, input) }),
        deprovision: (provider, ctx) => kind.delete(provider, ctx, identity, input),
      };
    },
    ...defined({ realised }),
  };
}

/**
 * A workload's controller, on the management cluster: its own spec, label and deletion edits (or `predicates`),
 * and its Identity becoming Available, through the identity index on `type`. Add watches, then complete.
 */
export function workloadController(
  manager: Manager,
  name: string,
  type: ResourceType,
  predicates: readonly Predicate[] = [specOrDeletionChanged],
): ControllerBuilder {
  return manager
    .controller(name)
    .for(type, { clusters: 'management', predicates })
    .watches(identityType, usersOf(manager.list.bind(manager), type), {
      clusters: 'management',
      predicates: [becameAvailable],
    });
}
