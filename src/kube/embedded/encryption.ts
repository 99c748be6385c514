/**
 * Encryption at rest for the embedded store (ADR 0025), as kube-apiserver's `aesgcm` provider does it: the chosen
 * resources' stored bodies are AES-256-GCM ciphertext with a prefix naming the key, so keys can rotate. The first key
 * encrypts; every key decrypts. The row's resource, namespace and name are the additional authenticated data, so a
 * ciphertext moved to another row does not decrypt. A body that is plain JSON (written before encryption was on)
 * still reads, and is rewritten when the store opens.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptionKey {
  /** Stored beside each ciphertext: letters, digits, `-` and `_`. */
  readonly name: string;
  /** 32 bytes. */
  readonly secret: Buffer;
}

export interface StoreEncryption {
  /** The first encrypts; all decrypt. */
  readonly keys: readonly EncryptionKey[];
  /** The resources (e.g. `secrets`) whose bodies are encrypted. */
  readonly resources: readonly string[];
}

const PREFIX = 'enc:aesgcm:v1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;
const KEY_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Where a stored body lives: what its ciphertext is bound to. */
interface RowKey {
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

const aad = (row: RowKey): Buffer => Buffer.from(`${row.resource}/${row.namespace}/${row.name}`);

/** A store's body transformer: what is written to and read from SQLite. */
export class BodyCodec {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #primary: EncryptionKey | undefined;
  readonly #resources: ReadonlySet<string>;

  constructor(encryption: StoreEncryption | undefined) {
    for (const key of encryption?.keys ?? []) {
      if (!KEY_NAME_PATTERN.test(key.name))
        throw new Error(`encryption key name ${key.name} is not ${KEY_NAME_PATTERN}`);
      if (key.secret.length !== KEY_BYTES) throw new Error(`encryption key ${key.name} is not ${KEY_BYTES} bytes`);
    }
    this.#keys = new Map((encryption?.keys ?? []).map((k) => [k.name, k.secret]));
    this.#primary = encryption?.keys[0];
    this.#resources = new Set(encryption?.resources ?? []);
  }

  /** The body to store for `json` at `row`. */
  encode(row: RowKey, json: string): string {
    if (this.#primary === undefined || !this.#resources.has(row.resource)) return json;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#primary.secret, nonce).setAAD(aad(row));
    const sealed = Buffer.concat([nonce, cipher.update(json, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.#primary.name}:${sealed.toString('base64')}`;
  }

  /** The JSON a stored body holds. */
  decode(row: RowKey, stored: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const [name = '', payload = ''] = stored.slice(PREFIX.length).split(':');
    const secret = this.#keys.get(name);
    if (secret === undefined) {
      throw new Error(
        `${row.resource} ${row.namespace}/${row.name} is encrypted with key ${name}, which the store's ` +
          'encryption key file does not hold (pass --encryption-key-file)',
      );
    }
    const sealed = Buffer.from(payload, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', secret, sealed.subarray(0, NONCE_BYTES)).setAAD(aad(row));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const body = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch (cause) {
      throw new Error(
        `${row.resource} ${row.namespace}/${row.name} cannot be decrypted with key ${name}: not the key it was ` +
          'sealed with, or the row is damaged',
        { cause },
      );
    }
  }

  /** Whether a stored body is not as `encode` would write it now: plain where it should be sealed, or an old key. */
  stale(resource: string, stored: string): boolean {
    if (this.#primary === undefined || !this.#resources.has(resource)) return false;
    return !stored.startsWith(`${PREFIX}${this.#primary.name}:`);
  }

  /** The resources this codec seals (none without a key). */
  get sealed(): readonly string[] {
    return this.#primary === undefined ? [] : [...this.#resources];
  }
}
