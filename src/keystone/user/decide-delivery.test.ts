import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { ControlPlane, ControlPlaneSpec } from '../apis/controlplane.ts';
import type { PushSecret } from '../apis/eso.ts';
import { PUSH_HASH_ANNOTATION, PUSH_SYNCED_BEFORE_ANNOTATION } from './constants.ts';
import { buildUserCloudsYaml, deliveryRefused, pushFresh, pushHash, pushStamp } from './decide-delivery.ts';
import { resolveAuthUrl } from './plane.ts';
import { cond } from './testing/fixture.ts';
import { defined } from '../../util/defined.ts';

const input = {
  cloudName: 'admin',
  authUrl: 'https://keystone.example/v3',
  userName: 'yes',
  password: 'p"a:s s\\w',
  userDomainName: 'Default',
  region: 'RegionOne',
  endpointType: 'internal',
};

const plane = (spec: Partial<ControlPlaneSpec>): ControlPlane => ({
  apiVersion: 'c5c3.io/v1alpha1',
  kind: 'ControlPlane',
  metadata: { name: 'cp', namespace: 'openstack' },
  spec,
});

const push = (annotations: Record<string, string>, synced: string | undefined, ready = true): PushSecret => ({
  apiVersion: 'external-secrets.io/v1alpha1',
  kind: 'PushSecret',
  metadata: { name: 'b', annotations },
  spec: { secretStoreRefs: [], selector: { secret: { name: 's' } } },
  status: {
    conditions: [cond('Ready', ready ? 'True' : 'False')],
    ...defined({ syncedResourceVersion: synced }),
  },
});

describe('The unscoped clouds.yaml', () => {
  it('has no project keys, and quotes every value so it reads back verbatim', () => {
    const text = buildUserCloudsYaml(input);
    assert.equal(
      text,
      [
        'clouds:',
        '  "admin":',
        '    auth:',
        '      auth_url: "https://keystone.example/v3"',
        '      username: "yes"',
        '      password: "p\\"a:s s\\\\w"',
        '      user_domain_name: "Default"',
        '    region_name: "RegionOne"',
        '    endpoint_type: internal',
        '    identity_api_version: 3',
        '',
      ].join('\n'),
    );
    const parsed = parse(text) as { clouds: { admin: { auth: Record<string, unknown> } } };
    assert.deepEqual(parsed.clouds.admin.auth, {
      auth_url: input.authUrl,
      username: 'yes',
      password: input.password,
      user_domain_name: 'Default',
    });
    assert.doesNotMatch(text, /project/);
  });
});

describe('Credential delivery: the decisions', () => {
  it('step 1: the auth URL for the order\u2019s cluster', () => {
    assert.deepEqual(resolveAuthUrl(plane({}), ''), {
      row: 'D1-InCluster',
      url: 'http://cp-keystone.openstack.svc:5000/v3',
      endpointType: 'internal',
    });
    assert.deepEqual(resolveAuthUrl(plane({}), 'edge-1'), { row: 'D1-NotPublished' });
    const published = plane({
      services: { keystone: { publicEndpoint: 'https://ks.example/v3', gateway: { hostname: 'gw' } } },
    });
    assert.equal(resolveAuthUrl(published, 'edge-1').row, 'D1-Published');
    assert.equal(resolveAuthUrl(published, '').row, 'D1-InCluster');
    const gateway = resolveAuthUrl(
      plane({ services: { keystone: { gateway: { hostname: 'id.example' } } } }),
      'edge-1',
    );
    assert.deepEqual(gateway, { row: 'D1-Gateway', url: 'https://id.example/v3', endpointType: 'internal' });
    const external = plane({ services: { keystone: { mode: 'External', external: { authURL: 'https://x/v3' } } } });
    assert.deepEqual(resolveAuthUrl(external, 'edge-1'), {
      row: 'D1-External',
      url: 'https://x/v3',
      endpointType: 'public',
    });
  });

  it('step 4: a changed document stamps its hash and the syncedResourceVersion of that moment', () => {
    const hash = pushHash('doc-2');
    assert.deepEqual(pushStamp(undefined, hash), { [PUSH_HASH_ANNOTATION]: hash, [PUSH_SYNCED_BEFORE_ANNOTATION]: '' });
    const live = push({ [PUSH_HASH_ANNOTATION]: pushHash('doc-1'), [PUSH_SYNCED_BEFORE_ANNOTATION]: '1-a' }, '1-b');
    assert.deepEqual(pushStamp(live, hash), { [PUSH_HASH_ANNOTATION]: hash, [PUSH_SYNCED_BEFORE_ANNOTATION]: '1-b' });
    const same = push({ [PUSH_HASH_ANNOTATION]: hash, [PUSH_SYNCED_BEFORE_ANNOTATION]: '1-b' }, '1-c');
    assert.deepEqual(pushStamp(same, hash), { [PUSH_HASH_ANNOTATION]: hash, [PUSH_SYNCED_BEFORE_ANNOTATION]: '1-b' });
  });

  it('step 4: fresh only when Ready, stamped with the hash, and pushed since the stamp', () => {
    const hash = pushHash('doc');
    const stamped = { [PUSH_HASH_ANNOTATION]: hash, [PUSH_SYNCED_BEFORE_ANNOTATION]: '1-before-push' };
    assert.ok(pushFresh(push(stamped, '1-pushed'), hash));
    assert.ok(!pushFresh(push(stamped, '1-before-push'), hash), 'Ready from the push of the previous password');
    assert.ok(!pushFresh(push(stamped, '1-pushed', false), hash));
    assert.ok(!pushFresh(push(stamped, '1-pushed'), pushHash('other')));
    assert.ok(!pushFresh(push(stamped, undefined), hash));
    assert.ok(!pushFresh(undefined, hash));
  });

  it('step 5: a live Secret the order does not control is refused', () => {
    const secret = (owners: { uid: string; controller?: boolean }[]) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'x',
        ownerReferences: owners.map((o) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'KeystoneUser', name: 'w', ...o })),
      },
    });
    assert.ok(!deliveryRefused(undefined, 'u1'));
    assert.ok(!deliveryRefused(secret([{ uid: 'u1', controller: true }]), 'u1'));
    assert.ok(deliveryRefused(secret([]), 'u1'));
    assert.ok(deliveryRefused(secret([{ uid: 'u1' }]), 'u1'), 'an owner that is not the controller');
    assert.ok(deliveryRefused(secret([{ uid: 'u2', controller: true }]), 'u1'));
  });
});
