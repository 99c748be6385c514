/** Every CRD of the Keystone orders operator: accepted by the store, structural, and its rules and defaults hold. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openEmbeddedStore, type EmbeddedStore } from '../../kube/embedded/store.ts';
import { KubeInvalidError } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { apiVersionOf, builtin, type ResourceType } from '../../kube/resource-type.ts';
import type { JSONSchemaProps } from '../../kube/schema/types.ts';
import { ManualClock } from '../../util/clock.ts';
import { bundledActuatorCrds, c5c3StandInCrds } from '../actuators/crds.ts';
import { writeCase } from './testing/admission-corpus.ts';
import {
  controlPlaneCrd,
  controlPlaneType,
  keystoneApplicationCredentialCrd,
  keystoneApplicationCredentialType,
  keystoneCrds,
  keystoneRoleAssignmentCrd,
  keystoneRoleAssignmentType,
  keystoneUserCrd,
  korcDomainCrd,
  korcDomainType,
  korcUserCrd,
  korcUserType,
  pushSecretCrd,
  pushSecretType,
  secretStoreCrd,
  secretStoreType,
} from './index.ts';

const NS = 'tenant-a';
/** An object of the kind as a user might write it: the spec is unchecked, since admission is what is tested. */
const obj = <T extends KubeObject>(type: ResourceType<T>, name: string, spec: Record<string, unknown>): T =>
  ({ apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name, namespace: NS }, spec }) as KubeObject as T;
const stores: EmbeddedStore[] = [];
after(() => Promise.all(stores.map((s) => s.close())));

/** A fresh embedded store holding the test namespace and one CRD, closed after the file's tests. */
async function storeWith(crd: KubeObject): Promise<EmbeddedStore> {
  const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
  stores.push(store);
  await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await store.create(builtin.customResourceDefinition, crd);
  return store;
}

const rejects = async (write: Promise<unknown>, message: string): Promise<void> => {
  const error = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof KubeInvalidError, `expected a rejection with "${message}", got ${String(error)}`);
  assert.ok(
    error.causes.some((c) => c.message.includes(message)),
    JSON.stringify(error.causes),
  );
};

/** Nodes Kubernetes refuses in a structural schema, or that only TypeBox writes. */
function nonStructural(schema: JSONSchemaProps, path: string): string[] {
  const raw = schema as Record<string, unknown>;
  const bad = ['const', '$id', '$schema', 'patternProperties', 'anyOf', 'oneOf']
    .filter((k) => k in raw)
    .map((k) => `${path}: ${k}`);
  if (schema.type === undefined && schema['x-kubernetes-preserve-unknown-fields'] !== true)
    bad.push(`${path}: no type`);
  for (const [k, sub] of Object.entries(schema.properties ?? {})) bad.push(...nonStructural(sub, `${path}.${k}`));
  if (typeof schema.additionalProperties === 'object')
    bad.push(...nonStructural(schema.additionalProperties, `${path}[*]`));
  if (schema.items) bad.push(...nonStructural(schema.items, `${path}[]`));
  return bad;
}

describe('Keystone CRDs', () => {
  it('are accepted by the embedded store and every kind is served', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    try {
      for (const crd of [...keystoneCrds(), ...c5c3StandInCrds(), ...bundledActuatorCrds()]) {
        await store.create(builtin.customResourceDefinition, crd);
      }
      const served = store.servedKinds().map((k) => `${k.type.group}/${k.type.kind}`);
      for (const kind of ['c5c3.io/KeystoneUser', 'c5c3.io/ControlPlane', 'openstack.k-orc.cloud/User'])
        assert.ok(served.includes(kind), kind);
    } finally {
      await store.close();
    }
  });

  it('are structural, with nothing of TypeBox left in them (the bundled stand-ins too)', () => {
    for (const crd of [...keystoneCrds(), ...c5c3StandInCrds(), ...bundledActuatorCrds()]) {
      const spec = crd.spec as { versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[] };
      const schema = spec.versions[0]?.schema.openAPIV3Schema;
      assert.ok(schema);
      assert.deepEqual(nonStructural(schema, crd.metadata.name), []);
    }
  });

  it('KeystoneUser has the status subresource and the printer columns', () => {
    const [version] = (keystoneUserCrd().spec as { versions: [Record<string, unknown>] }).versions;
    assert.deepEqual(version.subresources, { status: {} });
    const columns = version.additionalPrinterColumns as { name: string }[];
    assert.deepEqual(
      columns.map((c) => c.name),
      ['Ready', 'ControlPlane', 'Generation', 'NextRotation', 'Age'],
    );
  });
});

describe('ControlPlane (the fields an order reads)', () => {
  it('defaults the admin credential, the region and the Keystone mode, and keeps fields it does not declare', async () => {
    const w = await storeWith(controlPlaneCrd());
    const cp = await w.create(
      controlPlaneType,
      obj(controlPlaneType, 'cp', {
        namespaceAssignments: [
          { namespace: 'tenant-a', targetClusterRef: { name: 'edge-1' }, allowedRoles: ['member'] },
        ],
        korc: { adminCredential: {} },
        services: { keystone: { publicEndpoint: 'https://keystone.example/v3' }, nova: { replicas: 3 } },
        mariadb: { size: '10Gi' },
      }),
    );
    assert.equal(cp.spec.region, 'RegionOne');
    assert.deepEqual(cp.spec.korc?.adminCredential, {
      cloudCredentialsRef: { secretName: 'k-orc-clouds-yaml', cloudName: 'admin' },
      userName: 'admin',
      projectName: 'admin',
      domainName: 'Default',
    });
    assert.equal(cp.spec.services?.keystone?.mode, 'Managed');
    assert.deepEqual((cp.spec as Record<string, unknown>).mariadb, { size: '10Gi' });
  });

  it('refuses an assignment namespace that is not a DNS label', async () => {
    const w = await storeWith(controlPlaneCrd());
    await rejects(
      w.create(controlPlaneType, obj(controlPlaneType, 'cp', { namespaceAssignments: [{ namespace: 'Tenant_A' }] })),
      'should match',
    );
  });
});

describe('KeystoneRoleAssignment and KeystoneApplicationCredential (what the holds read)', () => {
  const refs = { controlPlaneRef: { name: 'cp' }, userRef: { name: 'workflow' }, projectRef: { name: 'p' } };

  it('freeze userRef and the role', async () => {
    const w = await storeWith(keystoneRoleAssignmentCrd());
    const base = obj(keystoneRoleAssignmentType, 'ra', { ...refs, role: 'member' });
    await rejects(
      writeCase(
        w,
        { base, object: obj(keystoneRoleAssignmentType, 'ra', { ...refs, role: 'admin' }) },
        keystoneRoleAssignmentType,
      ),
      'role is immutable',
    );
    const w2 = await storeWith(keystoneRoleAssignmentCrd());
    const moved = { ...refs, userRef: { name: 'other' }, role: 'member' };
    await rejects(
      writeCase(w2, { base, object: obj(keystoneRoleAssignmentType, 'ra', moved) }, keystoneRoleAssignmentType),
      'userRef is immutable',
    );
  });

  it('default the credential schedule and refuse a grace period not shorter than the interval', async () => {
    const w = await storeWith(keystoneApplicationCredentialCrd());
    const ac = await w.create(keystoneApplicationCredentialType, obj(keystoneApplicationCredentialType, 'ac', refs));
    assert.deepEqual((ac.spec as Record<string, unknown>).rotation, { interval: '720h', gracePeriod: '24h' });
    assert.equal((ac.spec as Record<string, unknown>).credentialGeneration, 1);
    await rejects(
      w.create(
        keystoneApplicationCredentialType,
        obj(keystoneApplicationCredentialType, 'ac2', { ...refs, rotation: { interval: '1h', gracePeriod: '2h' } }),
      ),
      'rotation.gracePeriod must be shorter than rotation.interval',
    );
  });
});

describe('K-ORC User', () => {
  const cloud = { cloudCredentialsRef: { secretName: 'k-orc-clouds-yaml', cloudName: 'admin' } };

  it('defaults to managed and needs a resource then', async () => {
    const w = await storeWith(korcUserCrd());
    await rejects(w.create(korcUserType, obj(korcUserType, 'u', cloud)), 'resource must be specified');
    const u = await w.create(
      korcUserType,
      obj(korcUserType, 'u2', { ...cloud, resource: { name: 'svc', passwordRef: 'pw-v1' } }),
    );
    assert.equal(u.spec.managementPolicy, 'managed');
  });

  it('admits an unmanaged import by filter and refuses a resource on it', async () => {
    const w = await storeWith(korcUserCrd());
    const probe = {
      ...cloud,
      managementPolicy: 'unmanaged',
      import: { filter: { name: 'svc', domainRef: 'cp-domain-default' } },
    };
    await w.create(korcUserType, obj(korcUserType, 'probe', probe));
    await rejects(
      w.create(korcUserType, obj(korcUserType, 'probe2', { ...probe, resource: { name: 'svc' } })),
      'resource may not be specified',
    );
  });

  it('refuses an import on a managed User and requires one on an unmanaged User', async () => {
    const w = await storeWith(korcUserCrd());
    const imported = { import: { filter: { name: 'svc' } } };
    await rejects(
      w.create(korcUserType, obj(korcUserType, 'm', { ...cloud, ...imported, resource: { name: 'svc' } })),
      'import may not be specified when policy is managed',
    );
    await rejects(
      w.create(korcUserType, obj(korcUserType, 'u', { ...cloud, managementPolicy: 'unmanaged' })),
      'import must be specified when policy is unmanaged',
    );
  });

  it('keeps passwordRef once set and freezes domainRef', async () => {
    const w = await storeWith(korcUserCrd());
    const base = obj(korcUserType, 'u', { ...cloud, resource: { name: 'svc', domainRef: 'd', passwordRef: 'pw-v1' } });
    const removed = obj(korcUserType, 'u', { ...cloud, resource: { name: 'svc', domainRef: 'd' } });
    await rejects(writeCase(w, { base, object: removed }, korcUserType), 'passwordRef may not be removed once set');
    const w2 = await storeWith(korcUserCrd());
    const moved = obj(korcUserType, 'u', { ...cloud, resource: { name: 'svc', domainRef: 'e', passwordRef: 'pw-v1' } });
    await rejects(writeCase(w2, { base, object: moved }, korcUserType), 'domainRef is immutable');
  });
});

describe('K-ORC Domain', () => {
  const cloud = { cloudCredentialsRef: { secretName: 'k-orc-clouds-yaml', cloudName: 'admin' } };

  it('admits a managed Domain with a resource and an unmanaged one with an import', async () => {
    const w = await storeWith(korcDomainCrd());
    await w.create(korcDomainType, obj(korcDomainType, 'managed', { ...cloud, resource: { name: 'd' } }));
    const unmanaged = { ...cloud, managementPolicy: 'unmanaged', import: { filter: { name: 'Default' } } };
    await w.create(korcDomainType, obj(korcDomainType, 'unmanaged', unmanaged));
  });

  it('refuses an import on a managed Domain and requires one on an unmanaged Domain', async () => {
    const w = await storeWith(korcDomainCrd());
    await rejects(
      w.create(
        korcDomainType,
        obj(korcDomainType, 'm', {
          ...cloud,
          resource: { name: 'd' },
          import: { id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
        }),
      ),
      'import may not be specified when policy is managed',
    );
    await rejects(
      w.create(korcDomainType, obj(korcDomainType, 'u', { ...cloud, managementPolicy: 'unmanaged' })),
      'import must be specified when policy is unmanaged',
    );
  });
});

describe('ESO PushSecret and SecretStore', () => {
  it('defaults a PushSecret as c5c3 writes it and requires exactly one selector', async () => {
    const w = await storeWith(pushSecretCrd());
    const spec = {
      deletionPolicy: 'Delete',
      secretStoreRefs: [{ name: 'openbao-tenant-store' }],
      selector: { secret: { name: 'workflow-1a2b3c4d-user-source' } },
      data: [{ match: { remoteRef: { remoteKey: 'openstack/keystone/default/x/service-accounts/credentials' } } }],
    };
    const ps = await w.create(pushSecretType, obj(pushSecretType, 'backup', spec));
    assert.equal(ps.spec.refreshInterval, '1h0m0s');
    assert.equal(ps.spec.updatePolicy, 'Replace');
    assert.equal(ps.spec.secretStoreRefs[0]?.kind, 'SecretStore');
    assert.equal(ps.spec.data?.[0]?.conversionStrategy, 'None');
    await rejects(
      w.create(pushSecretType, obj(pushSecretType, 'b2', { ...spec, selector: {} })),
      'at least 1 properties',
    );
  });

  it('keeps a SecretStore provider block as written', async () => {
    const w = await storeWith(secretStoreCrd());
    const provider = {
      vault: { server: 'https://bao', path: 'kv-v2', version: 'v2', auth: { kubernetes: { role: 'eso-tenant' } } },
    };
    const ss = await w.create(secretStoreType, obj(secretStoreType, 'openbao-tenant-store', { provider }));
    assert.deepEqual((ss.spec as Record<string, unknown>).provider, provider);
  });
});
