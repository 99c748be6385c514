/**
 * Cascading deletes that finish without a garbage collector (ADR 0019). An owner on its way out (an Identity, a
 * Network) deletes what depends on it in stages, each dependent through its own controller and its own teardown:
 * first what holds ports and attachments (servers, load balancers), then what those used (security groups,
 * volumes), then networks. The owner's provider delete runs only once no dependent remains, so Neutron never sees a
 * network or a project that is still in use. The store's or Kubernetes' garbage collector, where one runs, finds
 * nothing left to do; where none runs (a bare kube-apiserver), nothing waits for one.
 */
import type { Client } from '../../kube/client.ts';
import { findCondition } from '../../kube/conditions.ts';
import { ignoreNotFound } from '../../kube/errors.ts';
import type { Condition, KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { loadBalancerType } from '../apis/load-balancer.ts';
import { networkType } from '../apis/network.ts';
import { securityGroupType } from '../apis/security-group.ts';
import { serverType } from '../apis/server.ts';
import { conditionReasons, conditionTypes, isOnNetwork, labels } from '../apis/shared.ts';
import { volumeType } from '../apis/volume.ts';
import { RECHECK_MS, type Verdict } from './decide.ts';

/** The order dependents go in: every stage is gone before the next is deleted. */
export const CASCADE_STAGES: readonly (readonly ResourceType[])[] = [
  [serverType, loadBalancerType],
  [securityGroupType, volumeType],
  [networkType],
];

/** What an owner does next about its dependents (pure). */
type CascadeStep =
  /** Nothing depends on the owner any more: its own delete may go ahead. */
  | { readonly kind: 'clear' }
  /** Mark these for deletion (the earliest stage that still has dependents), then wait. */
  | { readonly kind: 'delete'; readonly objects: readonly KubeObject[]; readonly remaining: number }
  /** Every dependent of the earliest stage is being deleted; `blocked` of them report that their delete failed. */
  | { readonly kind: 'wait'; readonly remaining: number; readonly blocked: number };

/** The next step for dependents grouped by stage, earliest first. */
export function nextCascadeStep(stages: readonly (readonly KubeObject[])[]): CascadeStep {
  const remaining = stages.reduce((n, stage) => n + stage.length, 0);
  const current = stages.find((stage) => stage.length > 0);
  if (current === undefined) return { kind: 'clear' };
  const undeleted = current.filter((o) => o.metadata.deletionTimestamp === undefined);
  if (undeleted.length > 0) return { kind: 'delete', objects: undeleted, remaining };
  return { kind: 'wait', remaining, blocked: current.filter(deleteFailed).length };
}

/** A deleting dependent whose own teardown reports an error (its Available condition says Errored). */
function deleteFailed(object: KubeObject): boolean {
  const status = object['status'] as { conditions?: readonly Condition[] } | undefined;
  return findCondition(status?.conditions, conditionTypes.available)?.reason === conditionReasons.errored;
}

export const cascadeMessages = {
  /** Shown while dependents are being deleted and none reports a failure. */
  waiting: (what: string) => `waiting for the resources that use this ${what} to be deleted`,
  /** Shown while a dependent's own delete reports an error: the owner cannot go before it does. */
  blocked: (what: string) =>
    `deletion is blocked: a resource that uses this ${what} cannot be deleted; its own status says why`,
} as const;

/** The verdict that holds an owner's deletion for `step`, or undefined when the owner may go. */
export function cascadeVerdict(step: CascadeStep, what: string): Verdict | undefined {
  if (step.kind === 'clear') return undefined;
  const blocked = step.kind === 'wait' && step.blocked > 0;
  return {
    action: 'report',
    row: blocked ? 'dependents-blocked' : 'dependents-remain',
    available: {
      status: 'False',
      reason: conditionReasons.deprovisioning,
      message: blocked ? cascadeMessages.blocked(what) : cascadeMessages.waiting(what),
    },
    requeueAfterMs: RECHECK_MS,
  };
}

/** Which objects of a kind depend on the owner: a label selector narrows the read, a predicate decides. */
interface DependentsQuery {
  readonly namespace: string;
  readonly labelSelector: string;
  readonly dependsOn?: (object: KubeObject) => boolean;
}

/**
 * Reads the owner's dependents fresh (a stale cache here would delete too early or leak), performs the step they
 * call for, and returns it. A kind the server does not serve has no objects.
 */
export async function cascade(
  client: Client,
  query: DependentsQuery,
  stages: readonly (readonly ResourceType[])[] = CASCADE_STAGES,
): Promise<CascadeStep> {
  const found: { type: ResourceType; object: KubeObject }[][] = [];
  for (const stage of stages) {
    const objects: { type: ResourceType; object: KubeObject }[] = [];
    for (const type of stage) {
      const listed = await ignoreNotFound(
        client.list(type, { namespace: query.namespace, labelSelector: query.labelSelector }),
      );
      for (const object of listed?.items ?? []) {
        if (query.dependsOn === undefined || query.dependsOn(object)) objects.push({ type, object });
      }
    }
    found.push(objects);
  }
  const step = nextCascadeStep(found.map((stage) => stage.map((o) => o.object)));
  if (step.kind === 'delete') {
    const marked = new Set(step.objects);
    for (const { type, object } of found.flat()) {
      if (marked.has(object)) await ignoreNotFound(client.delete(type, query.namespace, object.metadata.name));
    }
  }
  return step;
}

/** The dependents of an Identity: everything labelled with it. */
export function identityDependents(identity: KubeObject): DependentsQuery {
  return {
    namespace: identity.metadata.namespace ?? '',
    labelSelector: `${labels.identityID}=${identity.metadata.name}`,
  };
}

/**
 * The dependents of a Network: what is on it (`isOnNetwork`: the network label, its owner reference or, for a
 * server, its spec); never another network, nor anything of another identity.
 */
export function networkDependents(network: KubeObject): DependentsQuery {
  const identityID = network.metadata.labels?.[labels.identityID];
  return {
    namespace: network.metadata.namespace ?? '',
    // Everything on a network runs in the network's identity; that label narrows the read.
    labelSelector:
      identityID === undefined || identityID === ''
        ? `${labels.networkID}=${network.metadata.name}`
        : `${labels.identityID}=${identityID}`,
    dependsOn: (object) => isOnNetwork(object, network),
  };
}
