/** The one dependency gate of networks and security groups: the Identity they name must be Available. */
import type { Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import { identityType, type Identity } from '../apis/identity.ts';
import { identityGate, missingLabelsVerdict, type Verdict } from './decide.ts';
import { identityIDOf } from './inputs.ts';
import { getOrUndefined } from './provisioner.ts';

/** Reads the named Identity fresh and judges it; undefined when provisioning may go ahead. */
export async function gateOnIdentity(client: Client, object: KubeObject): Promise<Verdict | undefined> {
  const id = identityIDOf(object);
  if (id === undefined) return missingLabelsVerdict();
  const identity = await getOrUndefined<Identity>(client, identityType, object.metadata.namespace ?? '', id);
  return identityGate(identity);
}
