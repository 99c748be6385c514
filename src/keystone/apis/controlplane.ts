/**
 * ControlPlane (c5c3.io/v1alpha1): only the fields a Keystone order reads. The upstream type is far larger, so
 * spec and status keep unknown fields rather than prune what another writer of a full ControlPlane set.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { Conditions, DNS_LABEL_PATTERN, StringEnum, columns } from './common.ts';
import { customResourceDefinition } from '../../kube/crd.ts';

export const controlPlaneType: ResourceType<ControlPlane> = {
  group: 'c5c3.io',
  version: 'v1alpha1',
  kind: 'ControlPlane',
  plural: 'controlplanes',
  namespaced: true,
};

/** The management cluster's name in a request and in a `targetClusterRef`-less assignment. */
export const MANAGEMENT_CLUSTER = '';

/** The only ControlPlane condition the order gates read. */
export const ADMIN_CREDENTIAL_READY = 'AdminCredentialReady';

/** The store used when spec.secretStoreRef is unset: a namespaced SecretStore in the ControlPlane's namespace. */
export const DEFAULT_SECRET_STORE = 'openbao-tenant-store';

/** One namespace assigned to a service owner, on the management cluster or (with targetClusterRef) a target. */
const NamespaceAssignmentSchema = Type.Object({
  namespace: Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL_PATTERN }),
  targetClusterRef: Type.Optional(Type.Object({ name: Type.String({ minLength: 1 }) })),
  allowedRoles: Type.Optional(Type.Array(Type.String())),
  allowCatalogEntries: Type.Optional(Type.Boolean()),
});

const AdminCredentialSchema = Type.Object({
  cloudCredentialsRef: Type.Optional(
    Type.Object(
      {
        secretName: Type.Optional(Type.String({ default: 'k-orc-clouds-yaml' })),
        cloudName: Type.Optional(Type.String({ default: 'admin' })),
      },
      { default: {} },
    ),
  ),
  userName: Type.Optional(Type.String({ default: 'admin' })),
  projectName: Type.Optional(Type.String({ default: 'admin' })),
  domainName: Type.Optional(Type.String({ default: 'Default' })),
  passwordSecretRef: Type.Optional(Type.Object({ name: Type.String() })),
});

/** Keystone's mode and how it is reached from another cluster. */
const KeystoneServiceSchema = Type.Object({
  mode: Type.Optional(StringEnum(['Managed', 'External'] as const, { default: 'Managed' })),
  publicEndpoint: Type.Optional(Type.String({ description: 'The published auth URL for orders off its cluster.' })),
  gateway: Type.Optional(Type.Object({ hostname: Type.Optional(Type.String()) })),
  external: Type.Optional(
    Type.Object({
      authURL: Type.String({ minLength: 1 }),
      endpointType: Type.Optional(StringEnum(['public', 'internal', 'admin'] as const, { default: 'public' })),
    }),
  ),
});

const ControlPlaneSpecSchema = Type.Object(
  {
    namespaceAssignments: Type.Optional(Type.Array(NamespaceAssignmentSchema)),
    korc: Type.Optional(
      Type.Object(
        {
          adminCredential: Type.Optional(AdminCredentialSchema),
          serviceRegistrations: Type.Optional(
            Type.Object({ allowedNamespaces: Type.Optional(Type.Array(Type.String())) }),
          ),
        },
        { 'x-kubernetes-preserve-unknown-fields': true },
      ),
    ),
    region: Type.Optional(Type.String({ default: 'RegionOne' })),
    secretStoreRef: Type.Optional(
      Type.Object({
        name: Type.String({ minLength: 1 }),
        kind: Type.Optional(StringEnum(['SecretStore', 'ClusterSecretStore'] as const, { default: 'SecretStore' })),
      }),
    ),
    services: Type.Optional(
      Type.Object({ keystone: Type.Optional(KeystoneServiceSchema) }, { 'x-kubernetes-preserve-unknown-fields': true }),
    ),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const NamespaceAssignmentStatusSchema = Type.Object({
  namespace: Type.String(),
  targetClusterRef: Type.Optional(Type.Object({ name: Type.String() })),
  allowedRoles: Type.Optional(Type.Array(Type.String())),
  allowCatalogEntries: Type.Optional(Type.Boolean()),
  clusterReachable: Type.Optional(Type.Boolean()),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

const ControlPlaneStatusSchema = Type.Object(
  {
    conditions: Type.Optional(Conditions()),
    namespaceAssignments: Type.Optional(Type.Array(NamespaceAssignmentStatusSchema)),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const ControlPlaneSchema = Type.Object({
  spec: ControlPlaneSpecSchema,
  status: Type.Optional(ControlPlaneStatusSchema),
});

export type ControlPlaneSpec = Type.Static<typeof ControlPlaneSpecSchema>;
type ControlPlaneStatus = Type.Static<typeof ControlPlaneStatusSchema>;
export type ControlPlane = Resource<ControlPlaneSpec, ControlPlaneStatus>;

export const controlPlaneCrd = () =>
  customResourceDefinition({
    type: controlPlaneType,
    schema: ControlPlaneSchema,
    printerColumns: [columns.ready, { name: 'Region', type: 'string', jsonPath: '.spec.region' }, columns.age],
  });
