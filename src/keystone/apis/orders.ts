/**
 * The further order kinds, as far as a KeystoneUser's teardown holds and rotation hold read them: which user an
 * order names (spec.userRef) and whether it is being deleted (metadata). Their own reconcilers come later.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { Conditions, OpenStackName, Time, columns } from './common.ts';
import { customResourceDefinition } from '../../kube/crd.ts';
import { ControlPlaneRefSchema } from './keystoneuser.ts';

/** A reference to another order in the same namespace on the same cluster. Frozen after creation. */
const KeystoneOrderRef = (field: string, kind: string, what: string) =>
  Type.Object(
    { name: Type.String({ minLength: 1, maxLength: 63 }) },
    {
      'x-kubernetes-validations': [
        {
          rule: 'self.name == oldSelf.name',
          message: `${field} is immutable; delete and re-create the ${kind} to bind another ${what}`,
        },
      ],
    },
  );

const nameRule = {
  rule: 'size(self.metadata.name) <= 63',
  message: "metadata.name must be at most 63 bytes; it is carried as a label value on the order's children",
};

export const keystoneRoleAssignmentType: ResourceType<KeystoneRoleAssignment> = {
  group: 'c5c3.io',
  version: 'v1alpha1',
  kind: 'KeystoneRoleAssignment',
  plural: 'keystoneroleassignments',
  namespaced: true,
};

const KeystoneRoleAssignmentSpecSchema = Type.Object({
  controlPlaneRef: ControlPlaneRefSchema('KeystoneRoleAssignment'),
  userRef: KeystoneOrderRef('userRef', 'KeystoneRoleAssignment', 'user'),
  projectRef: KeystoneOrderRef('projectRef', 'KeystoneRoleAssignment', 'project'),
  role: Type.Unsafe<string>({
    ...OpenStackName(),
    'x-kubernetes-validations': [
      { rule: 'self == oldSelf', message: 'role is immutable; delete and re-create the KeystoneRoleAssignment' },
    ],
  }),
});

const KeystoneRoleAssignmentStatusSchema = Type.Object({
  conditions: Type.Optional(Conditions()),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  roleID: Type.Optional(Type.String()),
  userID: Type.Optional(Type.String()),
  projectID: Type.Optional(Type.String()),
});

export type KeystoneRoleAssignment = Resource<
  Type.Static<typeof KeystoneRoleAssignmentSpecSchema>,
  Type.Static<typeof KeystoneRoleAssignmentStatusSchema>
>;

export const keystoneRoleAssignmentCrd = () =>
  customResourceDefinition({
    type: keystoneRoleAssignmentType,
    schema: Type.Object(
      { spec: KeystoneRoleAssignmentSpecSchema, status: Type.Optional(KeystoneRoleAssignmentStatusSchema) },
      { 'x-kubernetes-validations': [nameRule] },
    ),
    printerColumns: [
      columns.ready,
      columns.controlPlane,
      columns.user,
      columns.project,
      { name: 'Role', type: 'string', jsonPath: '.spec.role' },
      columns.age,
    ],
  });

export const keystoneApplicationCredentialType: ResourceType<KeystoneApplicationCredential> = {
  group: 'c5c3.io',
  version: 'v1alpha1',
  kind: 'KeystoneApplicationCredential',
  plural: 'keystoneapplicationcredentials',
  namespaced: true,
};

const KIND_AC = 'KeystoneApplicationCredential';

const KeystoneApplicationCredentialSpecSchema = Type.Object({
  controlPlaneRef: ControlPlaneRefSchema(KIND_AC),
  userRef: KeystoneOrderRef('userRef', KIND_AC, 'user'),
  projectRef: KeystoneOrderRef('projectRef', KIND_AC, 'project'),
  credentialGeneration: Type.Optional(
    Type.Integer({
      default: 1,
      minimum: 1,
      format: 'int64',
      'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'credentialGeneration may only increase' }],
    }),
  ),
  rotation: Type.Optional(
    Type.Object(
      {
        interval: Type.Optional(
          Type.String({
            default: '720h',
            'x-kubernetes-validations': [
              {
                rule: "duration(self) == duration('0s') || duration(self) >= duration('1m')",
                message: 'rotation.interval is 0s or at least 1m',
              },
              { rule: "duration(self) <= duration('87600h')", message: 'rotation.interval is at most 87600h' },
            ],
          }),
        ),
        gracePeriod: Type.Optional(
          Type.String({
            default: '24h',
            'x-kubernetes-validations': [
              { rule: "duration(self) >= duration('0s')", message: 'rotation.gracePeriod is not negative' },
            ],
          }),
        ),
      },
      {
        default: {},
        // The has() guards are for the CRD's own check of the block default {}, which runs without field defaults.
        'x-kubernetes-validations': [
          {
            rule: "!has(self.interval) || !has(self.gracePeriod) || duration(self.interval) == duration('0s') || duration(self.gracePeriod) < duration(self.interval)",
            message: 'rotation.gracePeriod must be shorter than rotation.interval',
          },
        ],
      },
    ),
  ),
});

const KeystoneApplicationCredentialStatusSchema = Type.Object({
  conditions: Type.Optional(Conditions()),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  credentialID: Type.Optional(Type.String({ maxLength: 1024 })),
  credentialGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  credentialExpiresAt: Type.Optional(Time()),
  lastRotation: Type.Optional(Time()),
  nextRotation: Type.Optional(Time()),
  previousCredentialID: Type.Optional(Type.String({ maxLength: 1024 })),
  previousCredentialGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  previousCredentialDeleteAt: Type.Optional(Time()),
  secretName: Type.Optional(Type.String()),
  secretKeys: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
});

export type KeystoneApplicationCredential = Resource<
  Type.Static<typeof KeystoneApplicationCredentialSpecSchema>,
  Type.Static<typeof KeystoneApplicationCredentialStatusSchema>
>;

export const keystoneApplicationCredentialCrd = () =>
  customResourceDefinition({
    type: keystoneApplicationCredentialType,
    schema: Type.Object(
      {
        spec: KeystoneApplicationCredentialSpecSchema,
        status: Type.Optional(KeystoneApplicationCredentialStatusSchema),
      },
      { 'x-kubernetes-validations': [nameRule] },
    ),
    printerColumns: [
      columns.ready,
      columns.controlPlane,
      columns.user,
      columns.project,
      { name: 'Generation', type: 'integer', jsonPath: '.status.credentialGeneration' },
      { name: 'NextRotation', type: 'string', jsonPath: '.status.nextRotation' },
      columns.age,
    ],
  });
