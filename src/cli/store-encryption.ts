/**
 * The embedded store's encryption key file (ADR 0025; rotation in docs/deploying.md): YAML, 0600, beside the store
 * unless `--encryption-key-file` names another. The first key encrypts, every key decrypts:
 *
 *   keys:
 *     - name: k20261202-3f9a
 *       secret: <32 random bytes, base64>
 *
 * What is sealed: Secrets, and OpenstackIdentities (identity passwords, application-credential secrets, SSH keys).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { parse, stringify } from 'yaml';
import type { PartCodec } from '../emulator/state-file.ts';
import { BodyCodec, KEY_BYTES, type EncryptionKey, type StoreEncryption } from '../kube/embedded/encryption.ts';
import { builtin, qualifiedResource } from '../kube/resource-type.ts';
import type { Clock } from '../util/clock.ts';
import { writePrivate } from './up/files.ts';

/** A key file that is missing, unreadable or malformed. */
export class KeyFileError extends Error {}

/**
 * Secrets, and the region's OpenstackIdentities (their application credentials), spelled as resource names: importing
 * the region kind would load its schema library into every command that opens a store (ADR 0037). The tests read an
 * OpenstackIdentity's row sealed, so a misspelling fails them.
 */
const SEALED_RESOURCES = [qualifiedResource(builtin.secret), 'openstackidentities.region.unikorn-cloud.org'];

interface KeyFile {
  readonly keys: readonly { readonly name: string; readonly secret: string }[];
}

const KEY_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * What is wrong with a key file's contents, if anything. Checked by hand: a schema library's validator costs every
 * command that opens a store 430-480 ms of imports (ADR 0037), for a file of two fields.
 */
function keyFileProblem(raw: unknown): string | undefined {
  const keys = (raw as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return 'the file must have a list `keys`';
  if (keys.length === 0) return '/keys must have at least one key';
  for (const [i, key] of keys.entries()) {
    const { name, secret } = (key ?? {}) as { name?: unknown; secret?: unknown };
    if (typeof name !== 'string' || !KEY_NAME.test(name))
      return `/keys/${String(i)}/name must match ${KEY_NAME.source}`;
    if (typeof secret !== 'string' || secret === '') return `/keys/${String(i)}/secret must be a non-empty string`;
  }
  return undefined;
}

/** `store.db` → `store-encryption.yaml` in the same directory. */
export const encryptionKeyFileBeside = (store: string): string =>
  join(dirname(store), `${basename(store).replace(/\.db$/, '')}-encryption.yaml`);

export function readEncryptionKeys(path: string): EncryptionKey[] {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new KeyFileError(`cannot read the encryption key file ${path}: ${(error as Error).message}`);
  }
  const problem = keyFileProblem(raw);
  if (problem !== undefined) throw new KeyFileError(`encryption key file ${path}: ${problem}`);
  return (raw as KeyFile).keys.map(({ name, secret }) => {
    const bytes = Buffer.from(secret, 'base64');
    if (bytes.length !== KEY_BYTES) {
      throw new KeyFileError(`encryption key file ${path}: key ${name} must be ${String(KEY_BYTES)} bytes, base64`);
    }
    return { name, secret: bytes };
  });
}

/** A key file with one fresh key, named for the day it was made, owner-only. */
function createEncryptionKeyFile(path: string, clock: Clock): void {
  const day = new Date(clock.now()).toISOString().slice(0, 10).replaceAll('-', '');
  const name = `k${day}-${randomBytes(2).toString('hex')}`;
  const header =
    "# The embedded store's encryption keys: the first encrypts, every one decrypts (docs/deploying.md).\n";
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writePrivate(path, header + stringify({ keys: [{ name, secret: randomBytes(KEY_BYTES).toString('base64') }] }));
}

/**
 * The encryption a store opens with: the named key file (which must exist), else the one beside the store when
 * there is one, made first when `create` says so (`up`); undefined without any (nothing is sealed).
 */
export function storeEncryption(
  store: string,
  options: { readonly keyFile?: string | undefined; readonly create?: boolean; readonly clock: Clock },
): StoreEncryption | undefined {
  if (store === ':memory:' && options.keyFile === undefined) return undefined;
  const path = options.keyFile ?? encryptionKeyFileBeside(store);
  if (!existsSync(path)) {
    if (options.keyFile !== undefined) throw new KeyFileError(`no encryption key file at ${path}`);
    if (options.create !== true) return undefined;
    createEncryptionKeyFile(path, options.clock);
  }
  return { keys: readEncryptionKeys(path), resources: SEALED_RESOURCES };
}

/** Where the emulator's sealed state parts say they live: bound into each ciphertext, so a part cannot move. */
const EMULATOR_STATE = 'emulator-state';
const SEALED_PREFIX = Buffer.from('enc:aesgcm:v1:');

/**
 * The built-in cloud's state file sealed as the store is (ADR 0025): its records hold the region's and KeystoneUsers'
 * passwords. The same keys and AES-GCM; each part is bound to its name.
 */
export function emulatorStateCodec(encryption: StoreEncryption): PartCodec {
  const codec = new BodyCodec({ keys: encryption.keys, resources: [EMULATOR_STATE] });
  const row = (name: string) => ({ resource: EMULATOR_STATE, namespace: '', name });
  return {
    seal: (name, body) => Buffer.from(codec.encode(row(name), body.toString('base64'))),
    open: (name, stored) =>
      stored.subarray(0, SEALED_PREFIX.length).equals(SEALED_PREFIX)
        ? Buffer.from(codec.decode(row(name), stored.toString('utf8')), 'base64')
        : stored,
    // The prefix names the key; a key name is at most 64 characters.
    current: (stored) => !codec.stale(EMULATOR_STATE, stored.subarray(0, 100).toString('latin1')),
  };
}
