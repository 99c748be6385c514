/**
 * KeystoneUser (c5c3.io/v1alpha1): one Keystone user ordered from an assigned namespace, on the management
 * cluster or a target cluster. The kind has no webhook (a target cluster runs none), so every admission rule is a
 * schema rule: structural where the apiserver checks it without CEL, CEL for immutability and monotony.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import {
  Conditions,
  DNS_LABEL_PATTERN,
  Duration,
  durationRules,
  OpenStackName,
  Time,
  type DurationBounds,
  columns,
} from './common.ts';
import { customResourceDefinition } from '../../kube/crd.ts';

export const keystoneUserType: ResourceType<KeystoneUser> = {
  group: 'c5c3.io',
  version: 'v1alpha1',
  kind: 'KeystoneUser',
  plural: 'keystoneusers',
  namespaced: true,
};

/** The admission messages, shared with the tests and the admission corpus. */
export const keystoneUserMessages = {
  nameTooLong: "metadata.name must be at most 63 bytes; it is carried as a label value on the order's children",
  userNameImmutable: 'userName is immutable; delete and re-create the KeystoneUser to rename its user',
  controlPlaneNameImmutable:
    'controlPlaneRef.name is immutable; delete and re-create the KeystoneUser to move it to another ControlPlane',
  controlPlaneNamespaceImmutable:
    'controlPlaneRef.namespace is immutable; delete and re-create the KeystoneUser to move it to another ControlPlane',
  passwordGenerationDecrease: 'passwordGeneration may only increase',
  intervalTooShort: 'rotation.interval is 0s or at least 1m',
  intervalTooLong: 'rotation.interval is at most 87600h',
} as const;

/**
 * The ControlPlane an order names. Both halves are frozen: re-pointing a live order would strand its Keystone user
 * on the old plane. The namespace rule spells the field `__namespace__`, the escape Kubernetes CEL requires for a
 * property named after a CEL reserved word, and sits on the parent so adding or removing the field counts too.
 */
export const ControlPlaneRefSchema = (kind: string) =>
  Type.Object(
    {
      name: Type.String({ minLength: 1, description: 'The ControlPlane name.' }),
      namespace: Type.Optional(
        Type.String({
          maxLength: 63,
          pattern: DNS_LABEL_PATTERN,
          description: "The ControlPlane namespace; empty means the order's own namespace.",
        }),
      ),
    },
    {
      'x-kubernetes-validations': [
        {
          rule: 'self.name == oldSelf.name',
          message: `controlPlaneRef.name is immutable; delete and re-create the ${kind} to move it to another ControlPlane`,
        },
        {
          rule: "(has(self.__namespace__) ? self.__namespace__ : '') == (has(oldSelf.__namespace__) ? oldSelf.__namespace__ : '')",
          message: `controlPlaneRef.namespace is immutable; delete and re-create the ${kind} to move it to another ControlPlane`,
        },
      ],
    },
  );

/**
 * The bounds of spec.rotation.interval, written once: the CRD's CEL rules are generated from them, and the
 * reconciler checks them itself (order/decide-durations.ts), because an apiserver before 1.25 drops CEL rules.
 */
export const ROTATION_INTERVAL_BOUNDS: DurationBounds = {
  field: 'spec.rotation.interval',
  zeroAllowed: true,
  min: '1m',
  max: '87600h',
  tooShort: keystoneUserMessages.intervalTooShort,
  tooLong: keystoneUserMessages.intervalTooLong,
};

/** The password schedule. The block defaults to {}, so an order that omits it gets the interval's default. */
const KeystoneUserRotationSchema = Type.Object(
  {
    interval: Type.Optional(
      Duration({
        default: '720h',
        description:
          'Time between two scheduled password rotations, counted from status.lastPasswordRotation. 0s turns the schedule off.',
        rules: durationRules(ROTATION_INTERVAL_BOUNDS),
      }),
    ),
  },
  { default: {} },
);

const KeystoneUserSpecSchema = Type.Object({
  controlPlaneRef: ControlPlaneRefSchema('KeystoneUser'),
  userName: Type.Optional(
    OpenStackName(
      'The Keystone user name. Empty means metadata.name; the reconciler resolves it and the stored object keeps it empty.',
    ),
  ),
  passwordGeneration: Type.Optional(
    Type.Integer({
      default: 1,
      minimum: 1,
      format: 'int64',
      description: 'Raising it rotates the password at once. It may only increase; a stored 0 reads as 1.',
      'x-kubernetes-validations': [
        { rule: 'self >= oldSelf', message: keystoneUserMessages.passwordGenerationDecrease },
      ],
    }),
  ),
  rotation: Type.Optional(KeystoneUserRotationSchema),
});

/** Written by the KeystoneUser reconciler only (the single writer of this status). */
const KeystoneUserStatusSchema = Type.Object({
  conditions: Type.Optional(Conditions()),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  userID: Type.Optional(Type.String({ maxLength: 1024 })),
  /** The generation Keystone holds. */
  passwordGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  lastPasswordRotation: Type.Optional(Time('When the User was last pointed at a new password, or the anchor.')),
  nextPasswordRotation: Type.Optional(Time('When the schedule is next due; absent with the schedule off.')),
  secretName: Type.Optional(Type.String({ description: 'The delivered Secret, <metadata.name>-credentials.' })),
  secretKeys: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
});

const KeystoneUserSchema = Type.Object(
  {
    spec: KeystoneUserSpecSchema,
    status: Type.Optional(KeystoneUserStatusSchema),
  },
  {
    'x-kubernetes-validations': [
      { rule: 'size(self.metadata.name) <= 63', message: keystoneUserMessages.nameTooLong },
      {
        rule: '(has(self.spec.userName) ? self.spec.userName : self.metadata.name) == (has(oldSelf.spec.userName) ? oldSelf.spec.userName : oldSelf.metadata.name)',
        message: keystoneUserMessages.userNameImmutable,
      },
    ],
  },
);

export type KeystoneUserSpec = Type.Static<typeof KeystoneUserSpecSchema>;
export type KeystoneUserStatus = Type.Static<typeof KeystoneUserStatusSchema>;
export type KeystoneUser = Resource<KeystoneUserSpec, KeystoneUserStatus>;

export const keystoneUserCrd = () =>
  customResourceDefinition({
    type: keystoneUserType,
    schema: KeystoneUserSchema,
    printerColumns: [
      columns.ready,
      columns.controlPlane,
      { name: 'Generation', type: 'integer', jsonPath: '.status.passwordGeneration' },
      { name: 'NextRotation', type: 'string', jsonPath: '.status.nextPasswordRotation' },
      columns.age,
    ],
  });
