/**
 * The KeystoneUser admission corpus: one invalid order per schema rule, and valid orders with what the server
 * must default. Shared by the embedded-store test and test/kube/keystone-admission.test.ts (the real apiserver),
 * so both servers are held to the same rules and messages. Mirrors upstream's invalid-keystoneuser-cr cases 00–11
 * and adds the rules the specification adds (rotation.interval) and the edges upstream leaves out.
 */
import type { Client } from '../../../kube/client.ts';
import { KubeInvalidError } from '../../../kube/errors.ts';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import {
  keystoneUserMessages as m,
  keystoneUserType,
  type KeystoneUser,
  type KeystoneUserSpec,
} from '../keystoneuser.ts';

interface AdmissionCase {
  readonly id: string;
  /** What the case breaks, in a few words. */
  readonly rule: string;
  /** Structural rules are enforced by every apiserver; CEL rules need Kubernetes ≥ 1.25 (or the embedded store). */
  readonly enforcedBy: 'structural' | 'cel';
  /** Created as is, or (`update`) `base` is created first and `object` written over it. */
  readonly base?: KeystoneUser;
  readonly object: KeystoneUser;
  /** The rejected field (`<root>` for a rule on the whole object) and a part of the message every server writes. */
  readonly field: string;
  readonly message: string | RegExp;
}

interface ValidCase {
  readonly id: string;
  readonly base?: KeystoneUser;
  readonly object: KeystoneUser;
  /** The stored spec: the written one with the schema's defaults. */
  readonly stored: KeystoneUserSpec;
}

const apiVersion = `${keystoneUserType.group}/${keystoneUserType.version}`;

/** An order in `namespace`; `spec` replaces the base spec's fields (undefined drops one). */
export function keystoneUser(
  namespace: string,
  name: string,
  spec: Partial<Record<keyof KeystoneUserSpec, unknown>> = {},
): KeystoneUser {
  const merged = Object.fromEntries(
    Object.entries({ controlPlaneRef: { name: 'cp', namespace: 'default' }, ...spec }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  return { apiVersion, kind: keystoneUserType.kind, metadata: { name, namespace }, spec: merged as KeystoneUserSpec };
}

/** kube-apiserver 1.20 says "should be at most N chars long"; the embedded store words it as newer releases do. */
const tooLong = (n: number) => new RegExp(`(should be at most ${n} chars long|may not be longer than ${n})`);

/** The order as written with no spec at all (the type requires one; the schema must say so too). */
function withoutSpec(order: KeystoneUser): KeystoneUser {
  const { spec: _spec, ...rest } = order;
  return rest as KeystoneUser;
}

const DEFAULT_ROTATION = { interval: '720h' } as const;

export function invalidKeystoneUsers(ns: string): AdmissionCase[] {
  const ku = (name: string, spec?: Parameters<typeof keystoneUser>[2]) => keystoneUser(ns, name, spec);
  const base = (name: string) => ku(name, { userName: 'svc-user', passwordGeneration: 2 });
  const update = (name: string, spec: Parameters<typeof keystoneUser>[2]) => ({
    base: base(name),
    object: ku(name, { userName: 'svc-user', passwordGeneration: 2, ...spec }),
  });
  return [
    {
      id: '00-username-comma',
      rule: 'userName has no comma (K-ORC OpenStackName)',
      enforcedBy: 'structural',
      object: ku('username-comma', { userName: 'svc,user' }),
      field: 'spec.userName',
      message: "should match '^[^,]+$'",
    },
    {
      id: '01-username-empty',
      rule: 'userName is at least 1 character; the default is the absent field',
      enforcedBy: 'structural',
      object: ku('username-empty', { userName: '' }),
      field: 'spec.userName',
      message: 'should be at least 1 chars long',
    },
    {
      id: '02-username-too-long',
      rule: 'userName is at most 255 characters',
      enforcedBy: 'structural',
      object: ku('username-too-long', { userName: 'u'.repeat(256) }),
      field: 'spec.userName',
      message: tooLong(255),
    },
    {
      id: '03-passwordgeneration-zero',
      rule: 'passwordGeneration is at least 1',
      enforcedBy: 'structural',
      object: ku('passwordgeneration-zero', { passwordGeneration: 0 }),
      field: 'spec.passwordGeneration',
      message: 'should be greater than or equal to 1',
    },
    {
      id: '04-controlplaneref-name-missing',
      rule: 'controlPlaneRef.name is required',
      enforcedBy: 'structural',
      object: ku('controlplaneref-name-missing', { controlPlaneRef: { namespace: 'default' } }),
      field: 'spec.controlPlaneRef.name',
      message: 'Required value',
    },
    {
      id: '05-controlplaneref-name-empty',
      rule: 'controlPlaneRef.name is at least 1 character',
      enforcedBy: 'structural',
      object: ku('controlplaneref-name-empty', { controlPlaneRef: { name: '' } }),
      field: 'spec.controlPlaneRef.name',
      message: 'should be at least 1 chars long',
    },
    {
      id: '06-controlplaneref-namespace-invalid',
      rule: 'controlPlaneRef.namespace is an RFC 1123 label',
      enforcedBy: 'structural',
      object: ku('controlplaneref-namespace-invalid', { controlPlaneRef: { name: 'cp', namespace: 'Not_A_Label' } }),
      field: 'spec.controlPlaneRef.namespace',
      message: 'should match',
    },
    {
      id: '07-controlplaneref-namespace-too-long',
      rule: 'controlPlaneRef.namespace is at most 63 characters',
      enforcedBy: 'structural',
      object: ku('controlplaneref-namespace-too-long', { controlPlaneRef: { name: 'cp', namespace: 'n'.repeat(64) } }),
      field: 'spec.controlPlaneRef.namespace',
      message: tooLong(63),
    },
    {
      id: '08-spec-missing',
      rule: 'spec is required',
      enforcedBy: 'structural',
      object: withoutSpec(ku('spec-missing')),
      field: 'spec',
      message: 'Required value',
    },
    {
      id: '09-name-too-long',
      rule: 'metadata.name is at most 63 bytes: it is a label value on the children',
      enforcedBy: 'cel',
      object: ku('n'.repeat(64)),
      field: '<root>',
      message: m.nameTooLong,
    },
    {
      id: '10-immutable-controlplaneref-name',
      rule: 'controlPlaneRef.name is immutable',
      enforcedBy: 'cel',
      ...update('immutable-cp-name', { controlPlaneRef: { name: 'other-cp', namespace: 'default' } }),
      field: 'spec.controlPlaneRef',
      message: m.controlPlaneNameImmutable,
    },
    {
      id: '11-immutable-controlplaneref-namespace',
      rule: 'controlPlaneRef.namespace is immutable, including adding or removing it',
      enforcedBy: 'cel',
      ...update('immutable-cp-namespace', { controlPlaneRef: { name: 'cp' } }),
      field: 'spec.controlPlaneRef',
      message: m.controlPlaneNamespaceImmutable,
    },
    {
      id: '12-immutable-username',
      rule: 'the effective user name is immutable (userName changed)',
      enforcedBy: 'cel',
      ...update('immutable-username', { userName: 'another-user' }),
      field: '<root>',
      message: m.userNameImmutable,
    },
    {
      id: '13-immutable-username-set-later',
      rule: 'the effective user name is immutable (userName set to other than metadata.name)',
      enforcedBy: 'cel',
      base: ku('username-set-later'),
      object: ku('username-set-later', { userName: 'another-user' }),
      field: '<root>',
      message: m.userNameImmutable,
    },
    {
      id: '14-passwordgeneration-decrease',
      rule: 'passwordGeneration may only increase',
      enforcedBy: 'cel',
      ...update('passwordgeneration-decrease', { passwordGeneration: 1 }),
      field: 'spec.passwordGeneration',
      message: m.passwordGenerationDecrease,
    },
    {
      id: '15-rotation-interval-too-short',
      rule: 'rotation.interval is 0s or at least 1m',
      enforcedBy: 'cel',
      object: ku('rotation-interval-too-short', { rotation: { interval: '30s' } }),
      field: 'spec.rotation.interval',
      message: m.intervalTooShort,
    },
    {
      id: '16-rotation-interval-too-long',
      rule: 'rotation.interval is at most 87600h',
      enforcedBy: 'cel',
      object: ku('rotation-interval-too-long', { rotation: { interval: '87601h' } }),
      field: 'spec.rotation.interval',
      message: m.intervalTooLong,
    },
  ];
}

export function validKeystoneUsers(ns: string): ValidCase[] {
  const cpRef = { name: 'cp', namespace: 'default' };
  return [
    {
      id: 'minimal order gets passwordGeneration 1 and the 720h schedule',
      object: keystoneUser(ns, 'minimal'),
      stored: { controlPlaneRef: cpRef, passwordGeneration: 1, rotation: DEFAULT_ROTATION },
    },
    {
      id: 'controlPlaneRef without a namespace (the order’s own)',
      object: keystoneUser(ns, 'same-namespace', { controlPlaneRef: { name: 'cp' } }),
      stored: { controlPlaneRef: { name: 'cp' }, passwordGeneration: 1, rotation: DEFAULT_ROTATION },
    },
    {
      id: 'rotation off with 0s',
      object: keystoneUser(ns, 'rotation-off', { rotation: { interval: '0s' } }),
      stored: { controlPlaneRef: cpRef, passwordGeneration: 1, rotation: { interval: '0s' } },
    },
    {
      id: 'the edges: a 63-byte name, a 255-character userName, 1m and 87600h',
      object: keystoneUser(ns, 'e'.repeat(63), { userName: 'u'.repeat(255), rotation: { interval: '1m' } }),
      stored: {
        controlPlaneRef: cpRef,
        userName: 'u'.repeat(255),
        passwordGeneration: 1,
        rotation: { interval: '1m' },
      },
    },
    {
      id: 'the longest interval',
      object: keystoneUser(ns, 'rotation-longest', { passwordGeneration: 7, rotation: { interval: '87600h' } }),
      stored: { controlPlaneRef: cpRef, passwordGeneration: 7, rotation: { interval: '87600h' } },
    },
    {
      id: 'raising passwordGeneration and changing the interval on update',
      base: keystoneUser(ns, 'raise', { userName: 'svc', passwordGeneration: 2 }),
      object: keystoneUser(ns, 'raise', { userName: 'svc', passwordGeneration: 3, rotation: { interval: '0s' } }),
      stored: { controlPlaneRef: cpRef, userName: 'svc', passwordGeneration: 3, rotation: { interval: '0s' } },
    },
    {
      id: 'spelling out the effective name (userName = metadata.name) on update',
      base: keystoneUser(ns, 'spelled-out'),
      object: keystoneUser(ns, 'spelled-out', { userName: 'spelled-out' }),
      stored: { controlPlaneRef: cpRef, userName: 'spelled-out', passwordGeneration: 1, rotation: DEFAULT_ROTATION },
    },
  ];
}

/** The writes a case needs; a Client has them, and so can a test harness without a server. */
type OrderWriter = Pick<Client, 'create' | 'update'>;

/** Creates the case's object, or creates its base and writes the object over it as an update. */
export async function writeCase<T extends KubeObject>(
  client: OrderWriter,
  c: { readonly base?: T | undefined; readonly object: T },
  type: ResourceType<T>,
): Promise<T> {
  if (c.base === undefined) return client.create(type, c.object);
  const created = await client.create(type, c.base);
  const metadata = { ...c.object.metadata, resourceVersion: created.metadata.resourceVersion ?? '' };
  return client.update(type, { ...c.object, metadata });
}

/** Why `error` is not the case's rejection, or undefined when it is: Invalid, naming the field and the message. */
export function rejectionMismatch(error: unknown, c: AdmissionCase): string | undefined {
  if (!(error instanceof KubeInvalidError)) return `expected a KubeInvalidError, got ${String(error)}`;
  const says = (message: string) =>
    typeof c.message === 'string' ? message.includes(c.message) : c.message.test(message);
  const hit = error.causes.some((cause) => cause.field === c.field && says(cause.message));
  return hit ? undefined : `no cause on ${c.field} with ${String(c.message)} in ${JSON.stringify(error.causes)}`;
}
