/**
 * The decisions of deliverCredentials: the unscoped clouds.yaml, the PushSecret's hash stamp and freshness rule,
 * and the delivered Secret's ownership test, each a pure function of what the step read.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../kube/object.ts';
import type { PushSecret } from '../apis/eso.ts';
import { clusterLocation, goQuote } from '../order/format.ts';
import { DELIVERED_KEYS, PUSH_HASH_ANNOTATION, PUSH_SYNCED_BEFORE_ANNOTATION } from './constants.ts';

interface CloudsYamlInput {
  readonly cloudName: string;
  readonly authUrl: string;
  readonly userName: string;
  readonly password: string;
  readonly userDomainName: string;
  readonly region: string;
  readonly endpointType: string;
}

/**
 * The delivered clouds.yaml (upstream buildUserCloudsYAML): no project keys, so it yields an unscoped token, and
 * every value quoted as Go's %q quotes it, so a name with YAML meaning (`yes`, `*`, `: `) stays a string.
 */
export function buildUserCloudsYaml(input: CloudsYamlInput): string {
  const q = goQuote;
  return [
    'clouds:',
    `  ${q(input.cloudName)}:`,
    '    auth:',
    `      auth_url: ${q(input.authUrl)}`,
    `      username: ${q(input.userName)}`,
    `      password: ${q(input.password)}`,
    `      user_domain_name: ${q(input.userDomainName)}`,
    `    region_name: ${q(input.region)}`,
    `    endpoint_type: ${input.endpointType}`,
    '    identity_api_version: 3',
    '',
  ].join('\n');
}

/** The source Secret's keys: the document and the individual auth fields. */
export function sourceSecretData(input: CloudsYamlInput, cloudsYaml: string): Record<string, string> {
  return {
    'clouds.yaml': cloudsYaml,
    password: input.password,
    username: input.userName,
    user_domain_name: input.userDomainName,
    auth_url: input.authUrl,
    region_name: input.region,
  };
}

export function pushHash(cloudsYaml: string): string {
  return createHash('sha256').update(cloudsYaml).digest('hex');
}

/**
 * The annotations to stamp on the PushSecret. A changed document sets the new hash, so ESO pushes at once, and
 * records the syncedResourceVersion of that moment; an unchanged one keeps both as they are.
 */
export function pushStamp(live: PushSecret | undefined, hash: string): Record<string, string> {
  const annotations = live?.metadata.annotations ?? {};
  if (annotations[PUSH_HASH_ANNOTATION] === hash) {
    return {
      [PUSH_HASH_ANNOTATION]: hash,
      [PUSH_SYNCED_BEFORE_ANNOTATION]: annotations[PUSH_SYNCED_BEFORE_ANNOTATION] ?? '',
    };
  }
  return {
    [PUSH_HASH_ANNOTATION]: hash,
    [PUSH_SYNCED_BEFORE_ANNOTATION]: live?.status?.syncedResourceVersion ?? '',
  };
}

/**
 * The backup holds the current document: Ready, stamped with its hash, and pushed since the stamp. ESO moves
 * syncedResourceVersion only after a successful push; Ready alone would still read True from the previous password.
 */
export function pushFresh(ps: PushSecret | undefined, hash: string): boolean {
  if (ps === undefined) return false;
  const annotations = ps.metadata.annotations ?? {};
  const ready = ps.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  const synced = ps.status?.syncedResourceVersion;
  return (
    ready &&
    annotations[PUSH_HASH_ANNOTATION] === hash &&
    synced !== undefined &&
    synced !== '' &&
    synced !== annotations[PUSH_SYNCED_BEFORE_ANNOTATION]
  );
}

/** Step 5's refusal: a live Secret of the delivered name whose controller is not this order. */
export function deliveryRefused(live: KubeObject | undefined, orderUid: string | undefined): boolean {
  if (live === undefined) return false;
  return !(live.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === orderUid);
}

export function deliveredMessage(secretName: string, namespace: string, cluster: string): string {
  return `credentials are delivered in Secret ${goQuote(secretName)} (keys ${DELIVERED_KEYS.join(', ')}) in namespace ${goQuote(namespace)} on ${clusterLocation(cluster)}`;
}

export function refusedMessage(secretName: string, namespace: string, cluster: string): string {
  return `Secret ${goQuote(secretName)} in namespace ${goQuote(namespace)} on ${clusterLocation(cluster)} exists and is not controlled by this KeystoneUser; it is left untouched and nothing is delivered`;
}

export const NOT_PUBLISHED_MESSAGE =
  "Keystone is not published (spec.services.keystone.publicEndpoint or a gateway hostname), so an order off Keystone's cluster cannot reach it; nothing is delivered";
