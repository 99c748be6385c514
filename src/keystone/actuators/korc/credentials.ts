/**
 * The credentials a K-ORC object names in spec.cloudCredentialsRef, as K-ORC's scope provider reads them: the Secret
 * in the object's namespace, its `clouds.yaml` key, the named cloud, authenticated before use. Each failure reads as
 * K-ORC's own message, so the conditions the KeystoneUser reconciler classifies look as they would with K-ORC. One
 * session per Secret version and cloud is kept, so a pass does not authenticate again; a changed Secret is read anew.
 */
import type { Client } from '../../../kube/client.ts';
import { isKubeNotFound } from '../../../kube/errors.ts';
import type { KubeObject } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { loadCloudConfig, type CloudConfig } from '../../../openstack/config.ts';
import { transportFor } from '../../../openstack/connect.ts';
import { ConfigError } from '../../../openstack/errors.ts';
import type { IdentityClient } from '../../../openstack/identity.ts';
import { Session } from '../../../openstack/session.ts';
import type { Transport } from '../../../openstack/transport.ts';
import type { Clock, Random } from '../../../util/clock.ts';

/** What cloudCredentialsRef names: a Secret in the object's namespace and a cloud in its clouds.yaml. */
interface CloudCredentialsRef {
  readonly secretName: string;
  readonly cloudName: string;
}

/** The credentials cannot be used; the message is the one K-ORC writes for the same failure. */
export class CloudCredentialsError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CloudCredentialsError';
  }
}

const CLOUDS_YAML_KEY = 'clouds.yaml';

interface Entry {
  readonly resourceVersion: string;
  readonly transport: Transport;
  readonly identity: Promise<IdentityClient>;
}

interface CloudCredentialsOptions {
  readonly client: Client;
  readonly clock: Clock;
  readonly random?: Random;
}

export class CloudCredentials {
  readonly #options: CloudCredentialsOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(options: CloudCredentialsOptions) {
    this.#options = options;
  }

  /** An authenticated identity client for the cloud `ref` names in `namespace`, or a CloudCredentialsError. */
  async identity(namespace: string, ref: CloudCredentialsRef): Promise<IdentityClient> {
    const secret = await this.#secret(namespace, ref.secretName);
    const key = `${namespace}/${ref.secretName}/${ref.cloudName}`;
    const version = secret.metadata.resourceVersion ?? '';
    let entry = this.#entries.get(key);
    if (entry?.resourceVersion !== version) {
      if (entry !== undefined) void entry.transport.close();
      const config = cloudFrom(secret, ref);
      const transport = transportFor(config, {
        clock: this.#options.clock,
        random: this.#options.random ?? Math.random,
      });
      entry = { resourceVersion: version, transport, identity: authenticate(config, transport, this.#options.clock) };
      this.#entries.set(key, entry);
      // A failed authentication is not kept: the next pass tries again with whatever the Secret then holds.
      entry.identity.catch(() => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      });
    }
    return entry.identity;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.transport.close()));
    this.#entries.clear();
  }

  async #secret(namespace: string, name: string): Promise<KubeObject> {
    try {
      return await this.#options.client.get(builtin.secret, namespace, name);
    } catch (error) {
      if (isKubeNotFound(error)) throw new CloudCredentialsError(`Secret "${name}" not found`, { cause: error });
      throw error;
    }
  }
}

function cloudFrom(secret: KubeObject, ref: CloudCredentialsRef): CloudConfig {
  const name = secret.metadata.name;
  const encoded = (secret['data'] as Readonly<Record<string, string>> | undefined)?.[CLOUDS_YAML_KEY];
  if (encoded === undefined) {
    throw new CloudCredentialsError(`OpenStack credentials secret ${name} did not contain key ${CLOUDS_YAML_KEY}`);
  }
  const text = Buffer.from(encoded, 'base64').toString('utf8');
  const file = `secret/${name}/${CLOUDS_YAML_KEY}`;
  try {
    return loadCloudConfig(
      {
        env: { OS_CLIENT_CONFIG_FILE: file },
        cwd: '/nonexistent',
        home: '/nonexistent',
        readFile: (path) => (path === file ? text : undefined),
      },
      ref.cloudName,
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const message = /no cloud named/.test(error.message)
      ? `no cloud named: ${ref.cloudName}, in the provided config`
      : /valid YAML|must be a mapping of cloud names/.test(error.message)
        ? `failed to unmarshal clouds credentials stored in secret ${name}: ${error.message}`
        : `auth option failed for cloud ${ref.cloudName}: ${error.message}`;
    throw new CloudCredentialsError(message, { cause: error });
  }
}

async function authenticate(config: CloudConfig, transport: Transport, clock: Clock): Promise<IdentityClient> {
  const session = new Session({ ...config, transport, clock });
  try {
    await session.token();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CloudCredentialsError(`providerClient authentication err: ${detail}`, { cause: error });
  }
  return session.client('identity');
}
