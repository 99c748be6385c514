import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../kube/object.ts';
import type { Region, RegionOpenstack } from '../apis/region.ts';
import {
  RegionConfigError,
  RegionProviderKindError,
  configFingerprint,
  openstackConfigOf,
  parseCredentials,
} from './region-config.ts';

const config: RegionOpenstack = {
  endpoint: 'https://keystone.example/v3',
  serviceAccountSecret: { namespace: 'ns', name: 'creds' },
  compute: { serverGroupPolicy: 'soft-anti-affinity' },
};
const secret = (data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'ns' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const full = { 'domain-id': 'd', 'project-id': 'p', 'user-id': 'u', password: 'pw' };
const region = (spec: Region['spec']): Region => ({
  apiVersion: 'region.unikorn-cloud.org/v1alpha1',
  kind: 'Region',
  metadata: { name: 'r1' },
  spec,
});

describe('region config', () => {
  it('reads the four keys of the Secret and the endpoint of the Region', () => {
    assert.deepEqual(parseCredentials(config, secret(full)), {
      authUrl: 'https://keystone.example/v3',
      domainID: 'd',
      projectID: 'p',
      userID: 'u',
      password: 'pw',
    });
  });

  it('an absent or empty key is refused by name', () => {
    assert.throws(
      () => parseCredentials(config, secret({ ...full, 'user-id': '' })),
      /secret ns\/creds: key user-id is empty/,
    );
    const { password: _, ...noPassword } = full;
    assert.throws(() => parseCredentials(config, secret(noPassword)), RegionConfigError);
    assert.throws(() => parseCredentials(config, { ...secret(full), data: undefined }), /has no key domain-id/);
  });

  it('the fingerprint ignores key order and changes with any value of the config or the Secret', () => {
    const base = configFingerprint(config, secret(full));
    const reordered: RegionOpenstack = {
      compute: { serverGroupPolicy: 'soft-anti-affinity' },
      serviceAccountSecret: { name: 'creds', namespace: 'ns' },
      endpoint: 'https://keystone.example/v3',
    };
    assert.equal(configFingerprint(reordered, secret(full)), base);
    assert.notEqual(configFingerprint(config, secret({ ...full, password: 'other' })), base);
    assert.notEqual(configFingerprint({ ...config, endpoint: 'https://other/v3' }, secret(full)), base);
  });

  it('only an OpenStack region with spec.openstack yields a config', () => {
    assert.equal(openstackConfigOf(region({ provider: 'openstack', openstack: config })), config);
    assert.throws(() => openstackConfigOf(region({ provider: 'simulated' })), RegionProviderKindError);
    assert.throws(() => openstackConfigOf(region({ provider: 'openstack' })), RegionConfigError);
  });
});
