/**
 * What every region.unikorn-cloud.org kind shares: the group and version, ownership labels, tags, conditions,
 * common field shapes and the object envelope. Each schema is written once and gives the TypeScript type, the
 * CRD openAPIV3Schema (crd.ts) and request validation.
 */
import Type, { type TSchema } from 'typebox';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { isCanonicalPrefix } from '../../util/ipv4.ts';

const GROUP = 'region.unikorn-cloud.org';
const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** A kind of this group; every region kind lives in the region service's namespace. */
export function regionResourceType<T extends KubeObject>(kind: string, plural: string): ResourceType<T> {
  return { group: GROUP, version: VERSION, kind, plural, namespaced: true };
}

/** Ownership and lookup labels, as upstream sets them. Resource names are UUIDs; `name` is the display name. */
export const labels = {
  organization: 'unikorn-cloud.org/organization',
  project: 'unikorn-cloud.org/project',
  name: 'unikorn-cloud.org/name',
  regionID: 'regions.unikorn-cloud.org/region-id',
  identityID: 'regions.unikorn-cloud.org/identity-id',
  networkID: 'regions.unikorn-cloud.org/network-id',
  securityGroupID: 'regions.unikorn-cloud.org/security-group-id',
  serverID: 'regions.unikorn-cloud.org/server-id',
} as const;

export const conditionTypes = {
  /** Provisioning axis: owned by the reconciler, never by the monitor. */
  available: 'Available',
  /** Health axis: Server only, written by the monitor and by rebuild accept/park. */
  healthy: 'Healthy',
  /** Lifecycle axis: Server only, True only while Running. */
  active: 'Active',
} as const;

/** Reasons of the Available and Healthy conditions (unikorn core). */
export const conditionReasons = {
  provisioning: 'Provisioning',
  provisioned: 'Provisioned',
  cancelled: 'Cancelled',
  errored: 'Errored',
  deprovisioning: 'Deprovisioning',
  deprovisioned: 'Deprovisioned',
  unknown: 'Unknown',
  healthy: 'Healthy',
  degraded: 'Degraded',
  dependencyNotReady: 'DependencyNotReady',
  dependencyFailed: 'DependencyFailed',
  dependencyNotFound: 'DependencyNotFound',
} as const;

/** Reasons of the Active condition: the server's live lifecycle, derived from Nova (and Ironic for baremetal). */
export const activeReasons = {
  pending: 'Pending',
  queued: 'Queued',
  building: 'Building',
  rebuilding: 'Rebuilding',
  running: 'Running',
  stopping: 'Stopping',
  stopped: 'Stopped',
  error: 'Error',
} as const;
export type ActiveReason = (typeof activeReasons)[keyof typeof activeReasons];

// Plain decimal octets, no leading zeros: `010.050.000.000` is not how Neutron or Kubernetes write 10.50.0.0.
const IPV4_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4_PATTERN = `^(${IPV4_OCTET}\\.){3}${IPV4_OCTET}$`;
const IPV4_PREFIX_PATTERN = `^(${IPV4_OCTET}\\.){3}${IPV4_OCTET}/(3[0-2]|[12]?[0-9])$`;
/** Kubernetes resource.Quantity, as controller-gen emits it. */
const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
/** A Kubernetes label value (at most 63 characters, checked apart): what tenancy ids and names are stored as. */
export const LABEL_VALUE_PATTERN = '^[0-9A-Za-z](?:[0-9A-Za-z-_.]{0,61}[0-9A-Za-z])?$';
/** A DNS label that starts with a letter: listener names. */
export const DNS_LABEL_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';

/** What a refused value should have looked like, in words: a regular expression is no help to a tenant. */
const PATTERN_MEANINGS: ReadonlyMap<string, string> = new Map([
  [IPV4_PATTERN, 'must be an IPv4 address in dotted decimal, such as 192.0.2.10'],
  [IPV4_PREFIX_PATTERN, 'must be an IPv4 prefix in CIDR notation, such as 10.0.0.0/24'],
  [
    LABEL_VALUE_PATTERN,
    "must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
  ],
  [DNS_LABEL_PATTERN, 'must be lower-case letters, digits and hyphens, starting with a letter and ending alphanumeric'],
]);

/** The words for a pattern's refusal, when the pattern is one of ours that has them. */
export function patternMeaning(pattern: string): string | undefined {
  return PATTERN_MEANINGS.get(pattern);
}

// Every string a CEL rule compares or walks carries a maxLength, so kube-apiserver 1.25+ costs it by its real size
// (src/kube/schema/cel-cost.ts); these are the longest values the patterns admit.
export const IPv4Address = (description: string) => Type.String({ pattern: IPV4_PATTERN, maxLength: 15, description });
/** A prefix is written canonically: its network address, no host bits set (what Neutron stores). */
export const IPv4Prefix = (description: string) =>
  refined(Type.String({ pattern: IPV4_PREFIX_PATTERN, maxLength: 18, description }), prefixRules.canonical, (v) =>
    isCanonicalPrefix(v),
  );

/** A rule of a field with its stable name and the message a refusal gives, as field violations carry them. */
export interface FieldRule {
  readonly rule: string;
  readonly message: string;
}

export const prefixRules = {
  canonical: {
    rule: 'canonicalPrefix',
    message: 'must be a network address with no host bits set, in plain decimal (e.g. 10.0.0.0/24)',
  },
} as const satisfies Record<string, FieldRule>;

/**
 * A check no JSON Schema keyword expresses, run by request validation (TypeBox's refinements are not serialised, so
 * the CRD carries a CEL twin where one can be written). The error reads `<rule>: <message>`, which request
 * validation splits back into a field violation's rule and message.
 */
function refined<S extends TSchema>(schema: S, rule: FieldRule, check: (value: Type.Static<S>) => boolean) {
  return Type.Refine(schema, check, () => `${rule.rule}: ${rule.message}`);
}
/** A reference to another resource or an OpenStack object by ID; IDs are opaque here (Nova's flavor IDs: 255). */
export const ID = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
export const Port = (description: string) => Type.Integer({ minimum: 1, maximum: 65535, description });
/** Bytes ([]byte in Go), base64 in JSON. */
export const Bytes = (description: string) => Type.String({ format: 'byte', description });
export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
export const Quantity = (description: string) =>
  Type.Unsafe<string | number>({ 'x-kubernetes-int-or-string': true, pattern: QUANTITY_PATTERN, description });

export const Provider = Type.Enum(['openstack', 'kubernetes', 'simulated'], {
  description: 'The provider that realises the resource.',
});
export type Provider = Type.Static<typeof Provider>;

export const Architecture = Type.Enum(['x86_64', 'aarch64'], { description: 'A CPU architecture.' });
export type Architecture = Type.Static<typeof Architecture>;

export const GPUVendor = Type.Enum(['NVIDIA', 'AMD'], { description: 'A GPU vendor.' });

const Tag = Type.Object({
  name: Type.String({ minLength: 1, description: 'The tag name.' }),
  value: Type.String({ description: 'The tag value.' }),
});
type Tag = Type.Static<typeof Tag>;

const TagList = Type.Array(Tag, { description: 'Opaque name/value pairs for clients.' });

/** Fields most specs carry. */
export const commonSpec = {
  tags: Type.Optional(TagList),
  pause: Type.Optional(Type.Boolean({ description: 'Stops reconciliation while true.' })),
};

const Condition = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 316, description: 'The condition type, e.g. Available.' }),
  status: Type.Enum(['True', 'False', 'Unknown'], { description: 'The condition status.' }),
  reason: Type.String({ maxLength: 1024, description: 'A CamelCase reason for the status.' }),
  message: Type.String({ maxLength: 32768, description: 'A human-readable, cause-neutral message.' }),
  lastTransitionTime: Timestamp('When the status last changed.'),
  observedGeneration: Type.Optional(
    Type.Integer({ minimum: 0, description: 'The spec generation the condition describes.' }),
  ),
});
type Condition = Type.Static<typeof Condition>;

export const Conditions = Type.Array(Condition, { description: 'The current state, one entry per type.' });

/**
 * The envelope of a custom resource. apiVersion, kind and metadata are validated by the server itself, so the
 * schema only declares them (metadata as a bare object, as controller-gen emits it).
 */
export function envelope<Props extends Type.TProperties>(description: string, properties: Props) {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String({ description: 'The versioned schema of this object.' })),
      kind: Type.Optional(Type.String({ description: 'The REST resource this object represents.' })),
      metadata: Type.Optional(Type.Object({})),
      ...properties,
    },
    { description },
  );
}

/** unikorn core's finalizer, the region controllers' own: what an upstream controller provisioned ours releases. */
export const PROVISIONER_FINALIZER = 'unikorn';

/** Finalizers that hold no reference: the provisioner's own and the garbage collector's. */
const NOT_REFERENCES: ReadonlySet<string> = new Set([PROVISIONER_FINALIZER, 'foregroundDeletion', 'orphan']);

/**
 * The references other services hold on a resource (upstream core: every finalizer but its own and the garbage
 * collector's). Each one blocks the resource's deletion until its holder releases it.
 */
export function referencesOf(object: KubeObject): string[] {
  return (object.metadata.finalizers ?? []).filter((f) => !NOT_REFERENCES.has(f));
}

/**
 * What a reference may be called: a Kubernetes qualified finalizer name, `<dns-subdomain>/<name>` (upstream's are
 * `<resource>.<group>/<id>`, e.g. `clusters.kubernetes.unikorn-cloud.org/<id>`).
 */
export const REFERENCE_PATTERN =
  '^(?=.{1,253}/)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';

export function isReservedFinalizer(name: string): boolean {
  return NOT_REFERENCES.has(name);
}

// --- Blast radius (docs/adr/0034-server-identity-and-delete-blast-radius.md) ----------------------------------------

/**
 * An object is on a network when it names the network by label, is owned by it, or (a server) lists it in its spec;
 * never another network. A network's delete removes exactly these, and the network.
 */
export function isOnNetwork(object: KubeObject, network: KubeObject): boolean {
  if (object.kind === 'Network') return false;
  const name = network.metadata.name;
  const uid = network.metadata.uid;
  const spec = object['spec'] as { networks?: readonly { id?: string }[] } | undefined;
  return (
    object.metadata.labels?.[labels.networkID] === name ||
    (uid !== undefined && (object.metadata.ownerReferences ?? []).some((r) => r.uid === uid)) ||
    (spec?.networks ?? []).some((n) => n.id === name)
  );
}

/**
 * Marks an Identity the v2 network API made as one network's service principal (upstream maps them 1:1 and hides
 * them): the value is that network's id. Only the API writes it.
 */
export const NETWORK_SERVICE_PRINCIPAL_ANNOTATION = 'regions.unikorn-cloud.org/service-principal-of-network';

/** The display name upstream's v2 network API gives the identity it makes (and older objects carry alone). */
export const NETWORK_SERVICE_PRINCIPAL_NAME = 'networkv2-service-principal';

/** True when `identity` is a v2 network's own service principal: its annotation, or (older objects) its name. */
export function isNetworkServicePrincipal(identity: KubeObject): boolean {
  const annotated = identity.metadata.annotations?.[NETWORK_SERVICE_PRINCIPAL_ANNOTATION];
  return annotated !== undefined
    ? annotated !== ''
    : identity.metadata.labels?.[labels.name] === NETWORK_SERVICE_PRINCIPAL_NAME;
}
