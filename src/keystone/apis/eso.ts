/**
 * External Secrets (external-secrets.io): PushSecret (v1alpha1) and SecretStore, the fields the KeystoneUser
 * reconciler writes and reads and the bundled PushSecret actuator serves. Provider details stay unknown-preserving.
 * ESO 2.x serves SecretStore and ClusterSecretStore at v1 only; ESO 0.10 (still common) at v1beta1 and v1alpha1.
 * Readers find the version a cluster serves (store-versions.ts); the bundled stand-in serves v1.
 */
import Type from 'typebox';
import type { Condition, Resource } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { Duration, StringEnum, StringMap } from './common.ts';
import { customResourceDefinition } from '../../kube/crd.ts';

export const pushSecretType: ResourceType<PushSecret> = {
  group: 'external-secrets.io',
  version: 'v1alpha1',
  kind: 'PushSecret',
  plural: 'pushsecrets',
  namespaced: true,
};

export const ESO_GROUP = 'external-secrets.io';

/** The SecretStore versions openregion reads, preferred first: ESO 2.x's v1, then ESO 0.10's v1beta1. */
export const SECRET_STORE_VERSIONS = ['v1', 'v1beta1'] as const;
export type SecretStoreVersion = (typeof SECRET_STORE_VERSIONS)[number];
export type SecretStoreKind = 'SecretStore' | 'ClusterSecretStore';

/** SecretStore or ClusterSecretStore at one of the versions openregion reads. */
export function storeTypeAt(kind: SecretStoreKind, version: SecretStoreVersion): ResourceType<SecretStore> {
  return kind === 'SecretStore'
    ? { group: ESO_GROUP, version, kind, plural: 'secretstores', namespaced: true }
    : { group: ESO_GROUP, version, kind, plural: 'clustersecretstores', namespaced: false };
}

/** SecretStore as the bundled stand-in CRD serves it (v1, as ESO 2.x). */
export const secretStoreType: ResourceType<SecretStore> = {
  group: ESO_GROUP,
  version: 'v1',
  kind: 'SecretStore',
  plural: 'secretstores',
  namespaced: true,
};

export const PUSH_SECRET_FINALIZER = 'pushsecret.externalsecrets.io/finalizer';

/** corev1-style conditions: no observedGeneration. Ready with reason Synced or Errored. */
const EsoConditions = () =>
  Type.Array(
    Type.Unsafe<Omit<Condition, 'observedGeneration'>>({
      type: 'object',
      required: ['type', 'status'],
      properties: {
        type: { type: 'string' },
        status: { type: 'string' },
        reason: { type: 'string' },
        message: { type: 'string' },
        lastTransitionTime: { type: 'string', format: 'date-time' },
      },
    }),
  );

const LabelSelector = Type.Object(
  {
    matchLabels: Type.Optional(StringMap(Type.String())),
    matchExpressions: Type.Optional(
      Type.Array(
        Type.Object({
          key: Type.String(),
          operator: Type.String(),
          values: Type.Optional(Type.Array(Type.String())),
        }),
      ),
    ),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

const PushSecretSpecSchema = Type.Object({
  refreshInterval: Type.Optional(Duration({ default: '1h0m0s' })),
  secretStoreRefs: Type.Array(
    Type.Object({
      name: Type.Optional(Type.String()),
      labelSelector: Type.Optional(LabelSelector),
      kind: Type.Optional(StringEnum(['SecretStore', 'ClusterSecretStore'] as const, { default: 'SecretStore' })),
    }),
  ),
  updatePolicy: Type.Optional(StringEnum(['Replace', 'IfNotExists'] as const, { default: 'Replace' })),
  deletionPolicy: Type.Optional(StringEnum(['None', 'Delete'] as const, { default: 'None' })),
  selector: Type.Object(
    {
      // ESO 0.10 selects a Secret by name only (2.x adds a label selector): the stand-in keeps to what both serve.
      secret: Type.Optional(Type.Object({ name: Type.String() })),
      generatorRef: Type.Optional(
        Type.Object({ apiVersion: Type.Optional(Type.String()), kind: Type.String(), name: Type.String() }),
      ),
    },
    { minProperties: 1, maxProperties: 1 },
  ),
  data: Type.Optional(
    Type.Array(
      Type.Object({
        match: Type.Object({
          secretKey: Type.Optional(Type.String()),
          remoteRef: Type.Object({ remoteKey: Type.String(), property: Type.Optional(Type.String()) }),
        }),
        metadata: Type.Optional(Type.Unsafe<unknown>({ 'x-kubernetes-preserve-unknown-fields': true })),
        conversionStrategy: Type.Optional(StringEnum(['None', 'ReverseUnicode'] as const, { default: 'None' })),
      }),
    ),
  ),
});

/** `"<Kind>/<storeName>"` → `"<remoteKey>[/<property>]"` → the pushed data entry. */
const PushSecretStatusSchema = Type.Object({
  refreshTime: Type.Optional(Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true })),
  /** `<generation>-<hash(labels, annotations)>`, moved only after a successful push. */
  syncedResourceVersion: Type.Optional(Type.String()),
  syncedPushSecrets: Type.Optional(
    StringMap(
      StringMap(Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true })),
    ),
  ),
  conditions: Type.Optional(EsoConditions()),
});

export type PushSecretSpec = Type.Static<typeof PushSecretSpecSchema>;
export type PushSecretStatus = Type.Static<typeof PushSecretStatusSchema>;
export type PushSecret = Resource<PushSecretSpec, PushSecretStatus>;

const SecretStoreSpecSchema = Type.Object({
  /** The provider block (vault with server, path, version, auth …); one provider key, kept as written. */
  provider: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    minProperties: 1,
    maxProperties: 1,
  }),
  refreshInterval: Type.Optional(Type.Integer()),
  controller: Type.Optional(Type.String()),
});

const SecretStoreStatusSchema = Type.Object({
  conditions: Type.Optional(EsoConditions()),
  capabilities: Type.Optional(StringEnum(['ReadOnly', 'WriteOnly', 'ReadWrite'] as const)),
});

export type SecretStore = Resource<
  Type.Static<typeof SecretStoreSpecSchema>,
  Type.Static<typeof SecretStoreStatusSchema>
>;

export const pushSecretCrd = () =>
  customResourceDefinition({
    type: pushSecretType,
    schema: Type.Object({ spec: PushSecretSpecSchema, status: Type.Optional(PushSecretStatusSchema) }),
    printerColumns: [
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Status', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].reason" },
    ],
  });

export const secretStoreCrd = () =>
  customResourceDefinition({
    type: secretStoreType,
    schema: Type.Object({ spec: SecretStoreSpecSchema, status: Type.Optional(SecretStoreStatusSchema) }),
    shortNames: ['ss'],
    printerColumns: [
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Status', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].reason" },
      { name: 'Capabilities', type: 'string', jsonPath: '.status.capabilities' },
      { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    ],
  });
