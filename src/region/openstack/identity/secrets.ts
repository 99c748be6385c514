/**
 * The secrets an identity's Keystone and Nova scaffolding is made with, generated here rather than by OpenStack
 * so they can be persisted in the OpenstackIdentity record BEFORE the call that uses them: a pass interrupted
 * right after that call still holds the secret the new resource was made with (crash safety, identity.ts).
 *
 * The SSH key is Ed25519. Nova imports only the public key (2.92+ generates none); the private key is kept in
 * OpenSSH's own format, which every ssh client reads.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';

interface SshKeypair {
  /** `-----BEGIN OPENSSH PRIVATE KEY-----` … */
  readonly privateKey: string;
  /** `ssh-ed25519 AAAA… comment`, what Nova imports. */
  readonly publicKey: string;
}

/** Injected so tests can tell generated secrets apart and find them in logs; production uses node:crypto. */
export interface IdentitySecretSource {
  password(): string;
  applicationCredentialSecret(): string;
  sshKeypair(): SshKeypair;
}

export const cryptoSecretSource: IdentitySecretSource = {
  password: () => randomBytes(24).toString('base64url'),
  applicationCredentialSecret: () => randomBytes(48).toString('base64url'),
  sshKeypair: () => generateSshKeypair(randomBytes(4).readUInt32BE(0)),
};

const KEY_TYPE = 'ssh-ed25519';
const COMMENT = 'unikorn-openstack-provider';

/** A new Ed25519 key; `checkInt` is the random check word OpenSSH writes twice into the private section. */
export function generateSshKeypair(checkInt: number): SshKeypair {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  if (jwk.x === undefined || jwk.d === undefined) throw new Error('node:crypto exported no Ed25519 key material');
  return opensshKeypair(Buffer.from(jwk.d, 'base64url'), Buffer.from(jwk.x, 'base64url'), checkInt);
}

/** The OpenSSH key pair of a raw Ed25519 seed and public key (openssh PROTOCOL.key, unencrypted). */
export function opensshKeypair(seed: Buffer, publicKey: Buffer, checkInt: number): SshKeypair {
  const publicBlob = Buffer.concat([sshString(KEY_TYPE), sshString(publicKey)]);
  const check = uint32(checkInt);
  const unpadded = Buffer.concat([
    check,
    check,
    sshString(KEY_TYPE),
    sshString(publicKey),
    sshString(Buffer.concat([seed, publicKey])),
    sshString(COMMENT),
  ]);
  const padding = Buffer.from(Array.from({ length: (8 - (unpadded.length % 8)) % 8 }, (_, i) => i + 1));
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(publicBlob),
    sshString(Buffer.concat([unpadded, padding])),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return {
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`,
    publicKey: `${KEY_TYPE} ${publicBlob.toString('base64')} ${COMMENT}`,
  };
}

/** The public key (`ssh-ed25519 AAAA… comment`) of a private key this module wrote; undefined for anything else. */
export function publicKeyOf(privateKey: string): string | undefined {
  const match = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(privateKey);
  if (match?.[1] === undefined) return undefined;
  const body = Buffer.from(match[1].replace(/\s+/g, ''), 'base64');
  const magic = 'openssh-key-v1\0';
  if (body.subarray(0, magic.length).toString('latin1') !== magic) return undefined;
  let at = magic.length;
  const next = (): Buffer | undefined => {
    if (at + 4 > body.length) return undefined;
    const length = body.readUInt32BE(at);
    const value = body.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    return value.length === length ? value : undefined;
  };
  // ciphername, kdfname, kdfoptions, then the key count and the first public key blob.
  for (let i = 0; i < 3; i++) if (next() === undefined) return undefined;
  at += 4;
  const blob = next();
  return blob === undefined ? undefined : `${KEY_TYPE} ${blob.toString('base64')} ${COMMENT}`;
}

/** The base64 key material of an OpenSSH public key line, which is what two keys compare by. */
export const publicKeyMaterial = (line: string): string | undefined => line.trim().split(/\s+/)[1];

function sshString(value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([uint32(bytes.length), bytes]);
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0, 0);
  return out;
}
