import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cryptoSecretSource, generateSshKeypair, opensshKeypair, publicKeyMaterial, publicKeyOf } from './secrets.ts';

function hasSshKeygen(): boolean {
  try {
    execFileSync('ssh-keygen', ['-?'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // ssh-keygen exits 1 on -? but runs; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

describe('identity secrets', () => {
  it('passwords and application credential secrets are long and never repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const password = cryptoSecretSource.password();
      const secret = cryptoSecretSource.applicationCredentialSecret();
      assert.ok(password.length >= 32 && secret.length >= 64);
      assert.ok(!seen.has(password) && !seen.has(secret));
      seen.add(password).add(secret);
    }
  });

  it('the public key line carries the Ed25519 key of the private key', () => {
    const node = generateKeyPairSync('ed25519');
    const jwk = node.privateKey.export({ format: 'jwk' });
    const key = opensshKeypair(Buffer.from(jwk.d ?? '', 'base64url'), Buffer.from(jwk.x ?? '', 'base64url'), 9);
    assert.match(key.publicKey, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/=]+ unikorn-openstack-provider$/);
    assert.match(key.privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
    // The last 32 bytes of the public blob are the raw key: a signature by the private key verifies against it.
    const raw = Buffer.from(publicKeyMaterial(key.publicKey) ?? '', 'base64').subarray(-32);
    const pub = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
    assert.ok(verify(null, Buffer.from('x'), pub, sign(null, Buffer.from('x'), node.privateKey)));
    assert.equal(publicKeyOf(key.privateKey), key.publicKey);
  });

  it('each generated key is new; publicKeyOf reads only keys in the OpenSSH format', () => {
    const a = generateSshKeypair(1);
    const b = generateSshKeypair(1);
    assert.notEqual(publicKeyMaterial(a.publicKey), publicKeyMaterial(b.publicKey));
    assert.equal(publicKeyOf(a.privateKey), a.publicKey);
    assert.equal(publicKeyOf('not a key'), undefined);
    assert.equal(
      publicKeyOf('-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----'),
      undefined,
    );
  });

  it('ssh-keygen reads the private key and derives the same public key', { skip: !hasSshKeygen() }, () => {
    const key = generateSshKeypair(7);
    const dir = mkdtempSync(join(tmpdir(), 'openregion-sshkey-'));
    try {
      const file = join(dir, 'id');
      writeFileSync(file, key.privateKey, { mode: 0o600 });
      const derived = execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' });
      assert.equal(publicKeyMaterial(derived), publicKeyMaterial(key.publicKey));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
