import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { resolveSSHInjection } from '../../apis/server.ts';
import {
  sshCertificateAuthorityPart,
  sshCreateParameters,
  TRUSTED_USER_CA_KEYS_PATH,
  TRUSTED_USER_CA_SSHD_DROP_IN,
} from './cloud-init.ts';

const CA = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ca@example';
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('latin1'));

describe('resolveSSHInjection', () => {
  it('unset means ca with a CA, identityKeypair without; a set mode stands', () => {
    assert.equal(resolveSSHInjection(undefined, true), 'ca');
    assert.equal(resolveSSHInjection(undefined, false), 'identityKeypair');
    for (const mode of ['ca', 'identityKeypair', 'none'] as const) {
      assert.equal(resolveSSHInjection(mode, true), mode);
      assert.equal(resolveSSHInjection(mode, false), mode);
    }
  });
});

describe('sshCertificateAuthorityPart', () => {
  it('writes the CA key and an sshd drop-in trusting it, then reloads sshd', () => {
    const part = sshCertificateAuthorityPart(`  ${CA}\n`);
    assert.equal(part.contentType, 'text/cloud-config');
    assert.equal(part.fileName, 'unikorn-ssh-certificate-authority');
    assert.ok(part.content.startsWith('#cloud-config\n'));
    const config = parse(part.content) as {
      write_files: { path: string; owner: string; permissions: string; content: string }[];
      runcmd: string[][];
    };
    assert.deepEqual(config.write_files, [
      { path: TRUSTED_USER_CA_KEYS_PATH, owner: 'root:root', permissions: '0644', content: `${CA}\n` },
      {
        path: TRUSTED_USER_CA_SSHD_DROP_IN,
        owner: 'root:root',
        permissions: '0644',
        content: 'TrustedUserCAKeys /etc/ssh/trusted-user-ca-keys.pub\n',
      },
    ]);
    const [command, ...more] = config.runcmd;
    assert.deepEqual(more, []);
    const [sh, flag, script] = command ?? [];
    assert.deepEqual([sh, flag], ['sh', '-c']);
    assert.match(script ?? '', /^systemctl reload sshd \|\| systemctl reload ssh \|\| /);
  });
});

describe('sshCreateParameters', () => {
  it('sends key_name only in the identityKeypair mode', () => {
    assert.deepEqual(sshCreateParameters({ mode: 'identityKeypair' }), {
      ok: true,
      key_name: 'unikorn-openstack-provider',
    });
    assert.deepEqual(sshCreateParameters({ mode: 'ca' }), { ok: true });
    assert.deepEqual(sshCreateParameters({ mode: 'none' }), { ok: true });
  });

  it('passes the user data through when no CA is named', () => {
    const userData = new Uint8Array(Buffer.from('#!/bin/sh\n'));
    const got = sshCreateParameters({ mode: 'none', userData });
    assert.ok(got.ok);
    assert.equal(got.userData, userData);
  });

  it('with a CA: the part alone, or merged after the user’s own data; no key_name', () => {
    const alone = sshCreateParameters({ mode: 'ca', certificateAuthorityPublicKey: CA });
    assert.ok(alone.ok && !('key_name' in alone));
    assert.equal(str(alone.userData), sshCertificateAuthorityPart(CA).content);

    const user = '#cloud-config\npackages: [htop]\n';
    const mixed = sshCreateParameters({
      mode: 'ca',
      certificateAuthorityPublicKey: CA,
      userData: new Uint8Array(Buffer.from(user)),
    });
    assert.ok(mixed.ok);
    const doc = str(mixed.userData) ?? '';
    assert.match(doc, /^Content-Type: multipart\/mixed; boundary="/);
    assert.ok(doc.indexOf(user) < doc.indexOf('TrustedUserCAKeys'));
  });

  it('a payload that cannot be merged is refused with its reason', () => {
    const got = sshCreateParameters({
      mode: 'ca',
      certificateAuthorityPublicKey: CA,
      userData: new Uint8Array([0x1f, 0x8b, 0, 0]),
    });
    assert.deepEqual(got, {
      ok: false,
      reason: 'gzip user data cannot be combined with managed cloud-init configuration',
    });
  });
});
