import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { crdNamed, ESO_LINES, esoCrds } from '../../../test/fixtures/third-party-crds/index.ts';
import { KubeForbiddenError } from '../../kube/errors.ts';
import { builtin } from '../../kube/resource-type.ts';
import { applyDefaults } from '../../kube/schema/structural.ts';
import type { JSONSchemaProps } from '../../kube/schema/types.ts';
import { silentLogger } from '../../runtime/logger.ts';
import { controlPlaneType } from '../apis/controlplane.ts';
import { pushSecretType } from '../apis/eso.ts';
import { keystoneUserType } from '../apis/keystoneuser.ts';
import { StoreVersions } from '../apis/store-versions.ts';
import { CONDITION_DELIVERY_READY, PUSH_HASH_ANNOTATION, PUSH_SYNCED_BEFORE_ANNOTATION } from './constants.ts';
import { secretValue } from './children.ts';
import { deliverCredentials } from './delivery.ts';
import { passContext } from './pass-context.ts';
import { CP, CP_NS, userFixture, NAME, NS, TARGET, type UserFixture } from './testing/fixture.ts';

const PUBLISHED = { services: { keystone: { publicEndpoint: 'https://ks.example/v3' } } };
const delivery = (h: UserFixture) => h.condition(CONDITION_DELIVERY_READY);
const delivered = (h: UserFixture) => h.orderClient.get(builtin.secret, NS, `${NAME}-credentials`);
const push = (h: UserFixture) => h.management.get(pushSecretType, CP_NS, h.names.backup);

/** Every list in `value`, by its path: a CRD's lists are atomic unless they say otherwise. */
function listsOf(value: unknown, path = ''): [string, unknown[]][] {
  if (Array.isArray(value)) return [[path, value], ...value.flatMap((v, i) => listsOf(v, `${path}[${String(i)}]`))];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => listsOf(v, `${path}.${k}`));
}

/** The spec schema of the real PushSecret CRD at v1alpha1, as one ESO line ships it. */
function pushSecretSpecSchema(line: (typeof ESO_LINES)[number]): JSONSchemaProps {
  const crd = crdNamed(esoCrds(line), 'pushsecrets.external-secrets.io') as unknown as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: JSONSchemaProps } }[] };
  };
  const schema = crd.spec.versions.find((v) => v.name === 'v1alpha1')?.schema.openAPIV3Schema.properties?.['spec'];
  if (schema === undefined) throw new Error(`${line}: no PushSecret v1alpha1 spec schema`);
  return schema;
}

/** Passes until the backup is the only thing missing. */
async function untilBackup(h: UserFixture): Promise<void> {
  for (let i = 0; i < 6 && (await delivery(h))?.reason !== 'BackupNotSynced'; i++) {
    await h.pass();
    await h.korc();
  }
}

describe('Credential delivery', () => {
  it('KeystoneNotPublished: off Keystone\u2019s cluster without a published endpoint nothing is written', async () => {
    const h = userFixture({ cluster: TARGET });
    await h.seedAll();
    await untilBackup(h);
    await h.pass();
    const c = await delivery(h);
    assert.equal(c?.reason, 'KeystoneNotPublished');
    assert.deepEqual(await h.names_in(pushSecretType), []);
    assert.equal((await h.names_in(builtin.secret)).includes(h.names.source), false);
  });

  it('the source Secret and the PushSecret to the namespace\u2019s own store, with deletionPolicy Delete', async () => {
    const h = userFixture({ cluster: TARGET });
    await h.seedAll({}, PUBLISHED);
    await untilBackup(h);
    const source = await h.secret(h.names.source);
    const keys = Object.keys(source['data'] as object).sort();
    assert.deepEqual(keys, ['auth_url', 'clouds.yaml', 'password', 'region_name', 'user_domain_name', 'username']);
    assert.equal(secretValue(source, 'auth_url'), 'https://ks.example/v3');
    const ps = await push(h);
    const prefix = h.names.backup.slice(0, -'-backup'.length);
    assert.deepEqual(ps.spec, {
      deletionPolicy: 'Delete',
      secretStoreRefs: [{ name: 'openbao-tenant-store', kind: 'SecretStore' }],
      selector: { secret: { name: h.names.source } },
      data: [
        {
          match: { remoteRef: { remoteKey: `openstack/keystone/default/${prefix}/service-accounts/credentials` } },
          conversionStrategy: 'None',
        },
      ],
    });
    assert.equal(ps.metadata.labels?.['c5c3.io/keystoneuser-cluster'], TARGET);
    assert.equal(ps.metadata.annotations?.[PUSH_SYNCED_BEFORE_ANNOTATION], '');
    assert.equal((await delivery(h))?.reason, 'BackupNotSynced');
  });

  it('the PushSecret\u2019s lists are applied as both ESO lines\u2019 CRDs store them, defaults filled, so a pass that changes nothing writes nothing', async () => {
    // An atomic list applied without a field the CRD defaults differs from the stored one on every pass, and
    // kube-apiserver before 1.24 records each such apply as a write (ADR 0047): an endless pass loop over Ready orders.
    const h = userFixture({ cluster: TARGET });
    await h.seedAll({}, PUBLISHED);
    await untilBackup(h);
    const { spec } = await push(h);
    const lists = listsOf(spec);
    assert.notDeepEqual(lists, []);
    for (const line of ESO_LINES) {
      const stored = applyDefaults(spec, pushSecretSpecSchema(line));
      for (const [path, list] of listsOf(stored)) {
        assert.deepEqual(list, lists.find(([p]) => p === path)?.[1], `${line}: spec${path} as applied`);
      }
    }
  });

  it('Delivered: the Secret beside the order, controlled by it, with the clouds.yaml and the password', async () => {
    const h = userFixture({ cluster: TARGET });
    await h.seedAll({ userName: 'svc-wf' }, PUBLISHED);
    await h.converge();
    const c = await delivery(h);
    assert.equal(c?.reason, 'Delivered');
    assert.equal(
      c.message,
      'credentials are delivered in Secret "workflow-credentials" (keys clouds.yaml, password) in namespace "tenant-a" on target cluster "edge-1"',
    );
    const order = await h.order();
    assert.equal(order.status?.secretName, 'workflow-credentials');
    assert.deepEqual(order.status.secretKeys, ['clouds.yaml', 'password']);
    const secret = await delivered(h);
    assert.deepEqual(
      secret.metadata.ownerReferences?.map((o) => [o.kind, o.uid, o.controller]),
      [['KeystoneUser', order.metadata.uid, true]],
    );
    assert.deepEqual(secret.metadata.labels, {
      'c5c3.io/keystoneuser-name': NAME,
      'c5c3.io/keystoneuser-namespace': NS,
    });
    const password = secretValue(await h.secret(h.names.password(1)), 'password');
    assert.equal(secretValue(secret, 'password'), password);
    const cloud = (
      parse(secretValue(secret, 'clouds.yaml') ?? '') as { clouds: Record<string, { auth: Record<string, string> }> }
    ).clouds['admin'];
    assert.equal(cloud?.auth['username'], 'svc-wf');
    assert.equal(cloud.auth['password'], password);
    await assert.rejects(
      h.management.get(builtin.secret, NS, `${NAME}-credentials`),
      'never on the management cluster',
    );
  });

  it('BackupNotSynced after a new password until ESO pushed it, though Ready still reads True', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const before = await push(h);
    const order = await h.order();
    await h.orderClient.update(keystoneUserType, {
      ...order,
      spec: { ...order.spec, passwordGeneration: 2 },
    });
    await h.pass();
    await h.korc();
    await h.pass();
    const stamped = await push(h);
    assert.notEqual(
      stamped.metadata.annotations?.[PUSH_HASH_ANNOTATION],
      before.metadata.annotations?.[PUSH_HASH_ANNOTATION],
    );
    assert.equal(stamped.metadata.annotations?.[PUSH_SYNCED_BEFORE_ANNOTATION], before.status?.syncedResourceVersion);
    assert.equal(stamped.status?.conditions?.[0]?.status, 'True');
    assert.equal((await delivery(h))?.reason, 'BackupNotSynced');
    assert.notEqual(
      secretValue(await delivered(h), 'password'),
      secretValue(await h.secret(h.names.password(2)), 'password'),
    );
    await h.eso();
    await h.pass();
    assert.equal((await delivery(h))?.reason, 'Delivered');
    assert.equal(
      secretValue(await delivered(h), 'password'),
      secretValue(await h.secret(h.names.password(2)), 'password'),
    );
  });

  it('DeliveryRefused: a live Secret of that name the order does not control is left untouched', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.orderClient.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${NAME}-credentials`, namespace: NS },
      data: { password: Buffer.from('theirs').toString('base64') },
    });
    await untilBackup(h);
    await h.eso();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 600_000 });
    const c = await delivery(h);
    assert.equal(c?.reason, 'DeliveryRefused');
    assert.match(c.message, /is not controlled by this KeystoneUser; it is left untouched/);
    assert.equal(secretValue(await delivered(h), 'password'), 'theirs');
    assert.equal((await delivered(h)).metadata.ownerReferences, undefined);
  });

  it('the apply is the repair: an edited key is rewritten, a deleted Secret comes back, a foreign key stays', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const secret = await delivered(h);
    const data = secret['data'] as Record<string, string>;
    await h.orderClient.update(builtin.secret, { ...secret, data: { ...data, password: 'ZWRpdGVk', extra: 'eA==' } });
    await h.pass();
    const repaired = await delivered(h);
    assert.equal((repaired['data'] as Record<string, string>)['password'], data['password']);
    assert.equal((repaired['data'] as Record<string, string>)['extra'], 'eA==');
    await h.orderClient.delete(builtin.secret, NS, `${NAME}-credentials`);
    await h.pass();
    assert.equal(secretValue(await delivered(h), 'password'), secretValue(secret, 'password'));
  });

  it('DeliveryError: a failed apply on the order\u2019s cluster is reported and retried', async () => {
    let refuse = false;
    const h = userFixture({
      cluster: TARGET,
      refuse: {
        cluster: TARGET,
        method: 'apply',
        plural: 'secrets',
        error: () => new KubeForbiddenError('secrets is forbidden'),
        when: () => refuse,
      },
    });
    await h.seedAll({}, PUBLISHED);
    await untilBackup(h);
    await h.eso();
    refuse = true;
    await assert.rejects(h.pass(), KubeForbiddenError);
    const c = await delivery(h);
    assert.equal(c?.reason, 'DeliveryError');
    assert.equal(c.message, 'secrets is forbidden');
  });

  it('PushSecretReadErrorIsReported: DeliveryError, and the pass fails for a retry', async () => {
    let refuse = false;
    const h = userFixture({
      refuse: {
        method: 'get',
        plural: 'pushsecrets',
        error: () => new KubeForbiddenError('pushsecrets is forbidden'),
        when: () => refuse,
      },
    });
    await h.seedAll();
    await untilBackup(h);
    refuse = true;
    await assert.rejects(h.pass(), /pushsecrets is forbidden/);
    assert.equal((await delivery(h))?.reason, 'DeliveryError');
    assert.equal((await h.condition('UserReady'))?.reason, 'UserProvisioned');
  });

  it('WaitingForServiceAccounts while the password of the generation is not there', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const order = await h.order();
    const cp = await h.management.get(controlPlaneType, CP_NS, CP);
    const pass = passContext({
      order,
      ref: h.ref,
      cp,
      management: h.management,
      orderClient: h.orderClient,
      now: h.clock.now(),
      randomBytes: () => Buffer.alloc(0),
      log: silentLogger(),
      storeVersions: new StoreVersions(),
    });
    const outcome = await deliverCredentials(pass, 5);
    assert.equal(outcome.condition.reason, 'WaitingForServiceAccounts');
    assert.equal(outcome.condition.message, 'the password of generation 5 is not available yet');
    assert.deepEqual(outcome.result, { requeueAfterMs: 10_000 });
  });
});
