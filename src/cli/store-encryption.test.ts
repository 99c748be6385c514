/**
 * Secrets at rest in the embedded store: the SQLite files themselves (database, WAL, shared memory), read as bytes,
 * hold no password, application-credential secret or private key, in the objects or in the change log; plain rows
 * of an older store are sealed when it opens; a new first key re-seals everything and the old one can then go.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { customResourceDefinition } from '../kube/crd.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../kube/embedded/store.ts';
import { builtin } from '../kube/resource-type.ts';
import { API_VERSION, openstackIdentityType, regionKinds } from '../region/apis/index.ts';
import { ManualClock } from '../util/clock.ts';
import { StateFile } from '../emulator/state-file.ts';
import {
  emulatorStateCodec,
  encryptionKeyFileBeside,
  KeyFileError,
  readEncryptionKeys,
  storeEncryption,
} from './store-encryption.ts';

const PASSWORD = 'identity-password-Zq81';
const APP_SECRET = 'app-credential-secret-Jm27';
const PRIVATE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n';
const SECRET_VALUE = 'kv-token-Hx55';
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** Every way the secrets could sit in a file: as text, and base64 as Secrets and Bytes fields hold them. */
const NEEDLES = [PASSWORD, APP_SECRET, PRIVATE_KEY.slice(0, 40), SECRET_VALUE].flatMap((s) => [s, b64(s)]);

const dir = mkdtempSync(join(tmpdir(), 'store-encryption-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

const clock = new ManualClock();

function open(path: string, sealed: boolean): EmbeddedStore {
  const encryption = sealed ? storeEncryption(path, { create: true, clock }) : undefined;
  return openEmbeddedStore(path, { clock, encryption });
}

async function writeSecrets(store: EmbeddedStore, name: string): Promise<void> {
  if ((await store.list(builtin.customResourceDefinition)).items.length === 0) {
    for (const kind of regionKinds)
      await store.create(builtin.customResourceDefinition, customResourceDefinition(kind));
  }
  await store.create(builtin.secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'default' },
    data: { token: b64(SECRET_VALUE) },
  });
  const identity = {
    apiVersion: API_VERSION,
    kind: 'OpenstackIdentity',
    metadata: { name, namespace: 'default' },
    spec: { userID: 'u-1', password: PASSWORD },
  };
  const created = await store.create(openstackIdentityType, identity);
  // An update: the change log keeps the old state too.
  await store.update(openstackIdentityType, {
    ...created,
    spec: {
      ...created.spec,
      applicationCredentialSecret: APP_SECRET,
      sshPrivateKey: b64(PRIVATE_KEY),
      cloudConfig: b64(`clouds:\n  cloud:\n    auth:\n      application_credential_secret: ${APP_SECRET}\n`),
    },
  });
}

/** The needles found in the raw bytes of the database, its WAL and its shared memory. */
function plainTextIn(path: string): string[] {
  const bytes = ['', '-wal', '-shm']
    .map((suffix) => `${path}${suffix}`)
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1'))
    .join('\n');
  return NEEDLES.filter((needle) => bytes.includes(needle));
}

describe('the embedded store at rest', () => {
  it('holds no password, secret or private key in plain text, in the objects or the change log', async () => {
    const path = join(dir, 'sealed', 'store.db');
    const store = open(path, true);
    await writeSecrets(store, 'kept');
    await writeSecrets(store, 'deleted');
    await store.delete(openstackIdentityType, 'default', 'deleted');
    await store.delete(builtin.secret, 'default', 'deleted');
    assert.deepEqual(plainTextIn(path), [], 'while open (the WAL holds the writes)');
    const identity = await store.get(openstackIdentityType, 'default', 'kept');
    assert.equal(identity.spec.password, PASSWORD, 'and it reads back');
    assert.equal(identity.spec.applicationCredentialSecret, APP_SECRET);
    await store.close();
    assert.deepEqual(plainTextIn(path), [], 'after closing');
    assert.equal(statSync(encryptionKeyFileBeside(path)).mode & 0o777, 0o600, 'the key file is the owner’s alone');
    const reopened = open(path, true);
    const secret = await reopened.get(builtin.secret, 'default', 'kept');
    assert.equal(Buffer.from(secret.data?.['token'] ?? '', 'base64').toString(), SECRET_VALUE);
    await reopened.close();
  });

  it('without its key the store says which key it needs; with the wrong key it refuses', async () => {
    const path = join(dir, 'keyless', 'store.db');
    const store = open(path, true);
    await writeSecrets(store, 'one');
    await store.close();
    const keyless = openEmbeddedStore(path, { clock, garbageCollection: false });
    await assert.rejects(keyless.get(openstackIdentityType, 'default', 'one'), /encrypted with key k\d{8}-[0-9a-f]{4}/);
    assert.equal((await keyless.list(builtin.namespace)).items.length, 1, 'what is not sealed still reads');
    await keyless.close();
    const keyFile = join(dir, 'keyless', 'other.yaml');
    const [key] = readEncryptionKeys(encryptionKeyFileBeside(path));
    writeFileSync(keyFile, stringify({ keys: [{ name: key?.name, secret: Buffer.alloc(32, 7).toString('base64') }] }));
    const wrong = openEmbeddedStore(path, {
      clock,
      garbageCollection: false,
      encryption: storeEncryption(path, { keyFile, clock }),
    });
    await assert.rejects(wrong.get(openstackIdentityType, 'default', 'one'), /cannot be decrypted with key/);
    await wrong.close();
    assert.throws(() => storeEncryption(path, { keyFile: join(dir, 'absent.yaml'), clock }), KeyFileError);
  });

  it('a malformed key file is refused, naming what is wrong', () => {
    const file = join(dir, 'malformed.yaml');
    const secret = Buffer.alloc(32, 1).toString('base64');
    const cases: [unknown, RegExp][] = [
      [{}, /must have a list `keys`/],
      [{ keys: [] }, /\/keys must have at least one key/],
      [{ keys: [{ name: 'has space', secret }] }, /\/keys\/0\/name must match/],
      [
        {
          keys: [
            { name: 'ok', secret },
            { name: 'k2', secret: '' },
          ],
        },
        /\/keys\/1\/secret must be a non-empty string/,
      ],
      [{ keys: [{ name: 'short', secret: 'c2hvcnQ=' }] }, /key short must be 32 bytes/],
    ];
    for (const [content, message] of cases) {
      writeFileSync(file, stringify(content));
      assert.throws(
        () => readEncryptionKeys(file),
        (e: unknown) => e instanceof KeyFileError && message.test(e.message),
      );
    }
    writeFileSync(file, stringify({ keys: [{ name: 'k1', secret }] }));
    assert.equal(readEncryptionKeys(file)[0]?.name, 'k1');
  });

  it('plain rows an older store wrote are sealed when it opens with a key, and still read', async () => {
    const path = join(dir, 'legacy', 'store.db');
    const plain = open(path, false);
    await writeSecrets(plain, 'old');
    await plain.close();
    assert.ok(plainTextIn(path).length > 0, 'the older store held them in plain text');
    const sealed = open(path, true);
    assert.deepEqual(plainTextIn(path), [], 'sealed on open, the change log too');
    assert.equal((await sealed.get(openstackIdentityType, 'default', 'old')).spec.password, PASSWORD);
    await sealed.close();
  });

  it('rotates: a new first key re-seals every row when the store opens, then the old key can go', async () => {
    const path = join(dir, 'rotate', 'store.db');
    const store = open(path, true);
    await writeSecrets(store, 'rotated');
    await store.close();
    const keyFile = encryptionKeyFileBeside(path);
    const old = (parse(readFileSync(keyFile, 'utf8')) as { keys: { name: string; secret: string }[] }).keys;
    const fresh = { name: 'k-rotated', secret: Buffer.alloc(32, 9).toString('base64') };
    writeFileSync(keyFile, stringify({ keys: [fresh, ...old] }));
    await open(path, true).close();
    const raw = readFileSync(path).toString('latin1');
    assert.ok(raw.includes('enc:aesgcm:v1:k-rotated:'), 'sealed with the new key');
    assert.ok(!raw.includes(`enc:aesgcm:v1:${old[0]?.name ?? ''}:`), 'nothing left under the old one');
    writeFileSync(keyFile, stringify({ keys: [fresh] }));
    const rotated = open(path, true);
    assert.equal((await rotated.get(openstackIdentityType, 'default', 'rotated')).spec.password, PASSWORD);
    await rotated.close();
  });
});

describe("the built-in cloud's state at rest (up's cloud.db)", () => {
  const records = Buffer.from(JSON.stringify({ users: [{ name: 'region-admin', password: PASSWORD }] }));
  const codecFor = (store: string) =>
    emulatorStateCodec(storeEncryption(store, { create: true, clock }) ?? assert.fail('a key'));

  it("is sealed with the store's keys: no password in the file, and it reads back", () => {
    const path = join(dir, 'sealed-cloud.db');
    const codec = codecFor(join(dir, 'sealed-store.db'));
    const file = new StateFile(path, codec);
    file.write(new Map([['keystone', records]]));
    file.close();
    assert.deepEqual(plainTextIn(path), []);
    const reopened = new StateFile(path, codec);
    assert.deepEqual(reopened.read()?.parts.get('keystone'), records);
    reopened.close();
  });

  it('a cloud an older up wrote in plain text is sealed when it opens, and still reads', () => {
    const path = join(dir, 'plain-cloud.db');
    const plain = new StateFile(path);
    plain.write(new Map([['keystone', records]]));
    plain.close();
    assert.notDeepEqual(plainTextIn(path), [], 'the old file holds the password in clear');
    const sealed = new StateFile(path, codecFor(join(dir, 'plain-store.db')));
    assert.deepEqual(sealed.read()?.parts.get('keystone'), records);
    sealed.close();
    assert.deepEqual(plainTextIn(path), []);
  });

  it('a sealed part is bound to its name: moved to another, it does not open', () => {
    const codec = codecFor(join(dir, 'bound-store.db'));
    assert.throws(() => codec.open('nova', codec.seal('keystone', records)), /cannot be decrypted/);
  });
});
