/**
 * `region deregister`: the undo of `region register`. It removes the Region, the credentials Secret only when
 * `register --create-secret` wrote it, and the namespace only when `register` created it and no other Region is left
 * in it. Idempotent (a Region already gone is "nothing to do"), and it refuses while the region still serves
 * resources (they would lose their cloud), unless forced.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import { ignoreNotFound } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import {
  identityType,
  labels,
  loadBalancerType,
  networkType,
  regionType,
  securityGroupType,
  serverType,
  volumeType,
} from '../apis/index.ts';
import { CREATED_BY, CREATED_BY_LABEL } from './register.ts';
import { RegistrationError } from './sessions.ts';

/** The kinds a region serves; any of them labelled with the region keeps it registered. */
const SERVED_KINDS: readonly ResourceType[] = [
  identityType,
  networkType,
  securityGroupType,
  serverType,
  loadBalancerType,
  volumeType,
];

interface DeregisterOptions {
  readonly namespace: string;
  readonly regionID: string;
  /** Remove the Region even while resources use it (they are left as they are). */
  readonly force: boolean;
}

/** What a run did, one line each; empty when there was nothing to remove. */
export async function deregisterRegion(client: Client, options: DeregisterOptions): Promise<string[]> {
  const region = await getOptional(client, regionType, options.namespace, options.regionID);
  const changes: string[] = [];
  if (region !== undefined) {
    const using = await resourcesUsing(client, options.namespace, options.regionID);
    if (using.length > 0 && !options.force) {
      throw new RegistrationError(
        `region ${options.regionID} still serves ${using.join(', ')}: delete them first (their cloud resources go ` +
          'with them), or pass --force to remove the Region and leave them',
      );
    }
    await ignoreNotFound(client.delete(regionType, options.namespace, options.regionID));
    changes.push(`deleted region ${options.regionID} in ${options.namespace}`);
    const ref = region.spec.openstack?.serviceAccountSecret;
    if (ref !== undefined) {
      const secret = await getOptional(client, builtin.secret, ref.namespace, ref.name);
      if (createdByRegister(secret)) {
        await ignoreNotFound(client.delete(builtin.secret, ref.namespace, ref.name));
        changes.push(`deleted secret ${ref.name} in ${ref.namespace}`);
      }
    }
  }
  const namespace = await getOptional(client, builtin.namespace, undefined, options.namespace);
  if (createdByRegister(namespace) && namespace?.metadata.deletionTimestamp === undefined) {
    const { items } = await client.list(regionType, { namespace: options.namespace });
    if (items.length === 0) {
      await ignoreNotFound(client.delete(builtin.namespace, undefined, options.namespace));
      changes.push(`deleted namespace ${options.namespace} (register created it)`);
    }
  }
  return changes;
}

function createdByRegister(object: KubeObject | undefined): boolean {
  return object?.metadata.labels?.[CREATED_BY_LABEL] === CREATED_BY;
}

async function resourcesUsing(client: Client, namespace: string, regionID: string): Promise<string[]> {
  const found: string[] = [];
  for (const type of SERVED_KINDS) {
    // A kind the cluster does not serve holds nothing.
    const listed = await ignoreNotFound(
      client.list(type, { namespace, labelSelector: `${labels.regionID}=${regionID}` }),
    );
    const items = listed?.items ?? [];
    if (items.length > 0) found.push(`${String(items.length)} ${type.kind}${items.length === 1 ? '' : 's'}`);
  }
  return found;
}
