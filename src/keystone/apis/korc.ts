/**
 * K-ORC (openstack.k-orc.cloud/v1alpha1) User and Domain, as the KeystoneUser reconciler writes and reads them and
 * the bundled actuator serves them. Rules mirror upstream's CRDs (reference §2); only the fields used are declared.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { Conditions, Duration, OpenStackName, StringEnum, Time } from './common.ts';
import { customResourceDefinition, type PrinterColumn } from '../../kube/crd.ts';

const GROUP = 'openstack.k-orc.cloud';

export const korcUserType: ResourceType<KorcUser> = {
  group: GROUP,
  version: 'v1alpha1',
  kind: 'User',
  plural: 'users',
  namespaced: true,
};

export const korcDomainType: ResourceType<KorcDomain> = {
  group: GROUP,
  version: 'v1alpha1',
  kind: 'Domain',
  plural: 'domains',
  namespaced: true,
};

/** K-ORC's condition types and reasons (terminal = InvalidConfiguration or UnrecoverableError). */
export const korcConditions = { available: 'Available', progressing: 'Progressing' } as const;
export const korcReasons = {
  progressing: 'Progressing',
  invalidConfiguration: 'InvalidConfiguration',
  unrecoverableError: 'UnrecoverableError',
  transientError: 'TransientError',
  success: 'Success',
} as const;
export const KORC_USER_FINALIZER = 'openstack.k-orc.cloud/user';
/** The message of an unmanaged import whose filter matches nothing yet. */
export const KORC_WAITING_FOR_EXTERNAL = 'Waiting for OpenStack resource to be created externally';

const immutable = (field: string) => [{ rule: 'self == oldSelf', message: `${field} is immutable` }];
const KubeName = () => Type.String({ minLength: 1, maxLength: 253 });

const CloudCredentialsRefSchema = Type.Object({
  secretName: Type.String({ minLength: 1, maxLength: 253 }),
  cloudName: Type.String({ minLength: 1, maxLength: 256 }),
});

const commonSpec = {
  managementPolicy: Type.Optional(
    Type.Unsafe<'managed' | 'unmanaged'>({
      ...StringEnum(['managed', 'unmanaged'] as const, { default: 'managed' }),
      'x-kubernetes-validations': immutable('managementPolicy'),
    }),
  ),
  managedOptions: Type.Optional(
    Type.Object({ onDelete: Type.Optional(StringEnum(['delete', 'detach'] as const, { default: 'delete' })) }),
  ),
  resyncPeriod: Type.Optional(Duration({ description: 'How often to resync; 0s disables it.' })),
  cloudCredentialsRef: CloudCredentialsRefSchema,
};

/**
 * Upstream's spec rules: managed ⇒ resource and no import; unmanaged ⇒ import and no resource; managedOptions only
 * when managed. `import` is a CEL reserved word, so rules spell it `__import__`.
 */
const policyRules = [
  {
    rule: "self.managementPolicy == 'managed' ? has(self.resource) : true",
    message: 'resource must be specified when policy is managed',
  },
  {
    rule: "self.managementPolicy == 'managed' ? !has(self.__import__) : true",
    message: 'import may not be specified when policy is managed',
  },
  {
    rule: "self.managementPolicy == 'unmanaged' ? !has(self.resource) : true",
    message: 'resource may not be specified when policy is unmanaged',
  },
  {
    rule: "self.managementPolicy == 'unmanaged' ? has(self.__import__) : true",
    message: 'import must be specified when policy is unmanaged',
  },
  {
    rule: "has(self.managedOptions) ? self.managementPolicy == 'managed' : true",
    message: 'managedOptions may only be provided when policy is managed',
  },
];

const KorcUserSpecSchema = Type.Object(
  {
    ...commonSpec,
    import: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(Type.String({ format: 'uuid' })),
          filter: Type.Optional(
            Type.Object(
              { name: Type.Optional(OpenStackName()), domainRef: Type.Optional(KubeName()) },
              { minProperties: 1 },
            ),
          ),
        },
        { minProperties: 1, maxProperties: 1 },
      ),
    ),
    resource: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(OpenStackName('Defaults to the object name.')),
          description: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          domainRef: Type.Optional(
            Type.Unsafe<string>({ ...KubeName(), 'x-kubernetes-validations': immutable('domainRef') }),
          ),
          defaultProjectRef: Type.Optional(
            Type.Unsafe<string>({ ...KubeName(), 'x-kubernetes-validations': immutable('defaultProjectRef') }),
          ),
          enabled: Type.Optional(Type.Boolean()),
          passwordRef: Type.Optional(KubeName()),
        },
        {
          'x-kubernetes-validations': [
            {
              rule: '!has(oldSelf.passwordRef) || has(self.passwordRef)',
              message: 'passwordRef may not be removed once set',
            },
          ],
        },
      ),
    ),
  },
  { 'x-kubernetes-validations': policyRules },
);

const KorcUserStatusSchema = Type.Object({
  conditions: Type.Optional(Conditions(32)),
  id: Type.Optional(Type.String()),
  lastSyncTime: Type.Optional(Time()),
  resource: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      domainID: Type.Optional(Type.String()),
      defaultProjectID: Type.Optional(Type.String()),
      enabled: Type.Optional(Type.Boolean()),
      passwordExpiresAt: Type.Optional(Type.String()),
      /** The passwordRef K-ORC last applied: a password is applied only when passwordRef moves off it. */
      appliedPasswordRef: Type.Optional(Type.String()),
    }),
  ),
});

export type KorcUserSpec = Type.Static<typeof KorcUserSpecSchema>;
type KorcUserStatus = Type.Static<typeof KorcUserStatusSchema>;
export type KorcUser = Resource<KorcUserSpec, KorcUserStatus>;

const KorcDomainSpecSchema = Type.Object(
  {
    ...commonSpec,
    import: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(Type.String({ format: 'uuid' })),
          filter: Type.Optional(
            Type.Object(
              {
                name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
                enabled: Type.Optional(Type.Boolean()),
              },
              { minProperties: 1 },
            ),
          ),
        },
        { minProperties: 1, maxProperties: 1 },
      ),
    ),
    resource: Type.Optional(
      Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        description: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        enabled: Type.Optional(Type.Boolean()),
      }),
    ),
  },
  { 'x-kubernetes-validations': policyRules },
);

const KorcDomainStatusSchema = Type.Object({
  conditions: Type.Optional(Conditions(32)),
  id: Type.Optional(Type.String()),
  resource: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      enabled: Type.Optional(Type.Boolean()),
    }),
  ),
});

export type KorcDomain = Resource<Type.Static<typeof KorcDomainSpecSchema>, Type.Static<typeof KorcDomainStatusSchema>>;

const korcColumns: readonly PrinterColumn[] = [
  { name: 'ID', type: 'string', jsonPath: '.status.id' },
  { name: 'Available', type: 'string', jsonPath: ".status.conditions[?(@.type=='Available')].status" },
  { name: 'Message', type: 'string', jsonPath: ".status.conditions[?(@.type=='Progressing')].message" },
];

export const korcUserCrd = () =>
  customResourceDefinition({
    type: korcUserType,
    schema: Type.Object({ spec: KorcUserSpecSchema, status: Type.Optional(KorcUserStatusSchema) }),
    printerColumns: korcColumns,
  });

export const korcDomainCrd = () =>
  customResourceDefinition({
    type: korcDomainType,
    schema: Type.Object({ spec: KorcDomainSpecSchema, status: Type.Optional(KorcDomainStatusSchema) }),
    printerColumns: korcColumns,
  });
