import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SecretStore } from '../../apis/eso.ts';
import { entryValue, sameJson, secretStrings, vaultStoreOf } from './remote.ts';

const store = (provider: Record<string, unknown>): SecretStore => ({
  apiVersion: 'external-secrets.io/v1',
  kind: 'SecretStore',
  metadata: { name: 's', namespace: 'ns' },
  spec: { provider },
});

describe('remote: store settings and entry values', () => {
  it('vaultStoreOf reads server, mount and the token Secret; refuses what it cannot serve', () => {
    const auth = { tokenSecretRef: { name: 'tok', key: 'token' } };
    assert.deepEqual(vaultStoreOf(store({ vault: { server: 'http://x', path: 'kv-v2', version: 'v2', auth } })), {
      server: 'http://x',
      mount: 'kv-v2',
      tokenSecret: { name: 'tok', key: 'token' },
    });
    assert.ok('unsupported' in vaultStoreOf(store({ aws: {} })));
    assert.ok('unsupported' in vaultStoreOf(store({ vault: { server: 'http://x', path: 'kv', version: 'v1', auth } })));
    assert.ok(
      'unsupported' in vaultStoreOf(store({ vault: { server: 'http://x', path: 'kv', auth: { kubernetes: {} } } })),
    );
  });

  it('entryValue: whole Secret, a property merge, a JSON-object key, and the errors', () => {
    const secret = { 'clouds.yaml': 'c', json: '{"a":1}' };
    const remoteRef = { remoteKey: 'k' };
    assert.deepEqual(entryValue({ match: { remoteRef } }, secret), { value: secret, merge: false });
    assert.deepEqual(
      entryValue({ match: { secretKey: 'clouds.yaml', remoteRef: { remoteKey: 'k', property: 'p' } } }, secret),
      {
        value: { p: 'c' },
        merge: true,
      },
    );
    assert.deepEqual(entryValue({ match: { secretKey: 'json', remoteRef } }, secret), {
      value: { a: 1 },
      merge: false,
    });
    assert.ok('error' in entryValue({ match: { secretKey: 'clouds.yaml', remoteRef } }, secret));
    assert.ok('error' in entryValue({ match: { secretKey: 'missing', remoteRef } }, secret));
  });

  it('secretStrings decodes base64 data', () => {
    const data = { a: Buffer.from('héllo').toString('base64') };
    assert.deepEqual(secretStrings({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data }), {
      a: 'héllo',
    });
  });

  it('sameJson agrees with JSON round trips on equal values and tells a changed value apart', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        assert.ok(sameJson(v, JSON.parse(JSON.stringify(v)) as unknown));
        assert.ok(!sameJson({ v }, { v, extra: 1 }));
      }),
    );
  });
});
