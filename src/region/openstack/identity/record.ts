/**
 * The OpenstackIdentity record: the one piece of provider state persisted (docs/spec/openstack-provider.md
 * §OpenstackIdentity: it holds what cannot be re-derived — secrets and ids). Same name and namespace as its Identity.
 *
 * Secrets are written here before the OpenStack call that uses them (`withSecrets`), ids right after the call
 * that made them (`save`); a pass interrupted between the two re-finds the resource by name and still holds the
 * secret it was made with.
 */
import { stringify } from 'yaml';
import { getFreshOptional, getOptional, type Client } from '../../../kube/client.ts';
import { ignoreNotFound, KubeAlreadyExistsError } from '../../../kube/errors.ts';
import {
  API_VERSION,
  labels,
  openstackIdentityType,
  type OpenstackIdentity,
  type OpenstackIdentitySpec,
} from '../../apis/index.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import type { IdentitySecretSource } from './secrets.ts';
import type { IdentityCredentials } from '../principals.ts';
import type { RealisedIdentity, UserIdentity } from '../realised.ts';

/** The cloud name in the clouds.yaml handed to consumers (`cloud`, docs/spec/upstream-region.md §CRDs). */
export const CLOUD_NAME = 'cloud';

/** A record with every secret present: what a create pass works from once `withSecrets` returns. */
interface RecordSecrets {
  readonly password: string;
  readonly applicationCredentialSecret: string;
  /** Decoded; the record holds it base64 (a `[]byte` upstream). */
  readonly sshPrivateKey: string;
}

export class IdentityRecords {
  readonly #kube: Client;
  readonly #namespace: string;

  constructor(kube: Client, namespace: string) {
    this.#kube = kube;
    this.#namespace = namespace;
  }

  get(identityID: string): Promise<OpenstackIdentity | undefined> {
    return getOptional(this.#kube, openstackIdentityType, this.#namespace, identityID);
  }

  /**
   * The identity's project when it was realised (a record holding a project id), for workload calls; undefined
   * proves no workload resource of it can exist, since none is made before its identity is Available.
   */
  async realised(identityID: string): Promise<RealisedIdentity | undefined> {
    const projectID = (await this.#complete(identityID, (r) => r.spec.projectID !== undefined))?.spec.projectID;
    return projectID === undefined ? undefined : { identityID, projectID };
  }

  /** The identity with its own user, once the record holds its project, user and password. */
  async withUser(identityID: string): Promise<UserIdentity | undefined> {
    const record = await this.#complete(identityID, (r) => identityCredentialsOf(r) !== undefined);
    const credentials = record === undefined ? undefined : identityCredentialsOf(record);
    if (record === undefined || credentials === undefined) return undefined;
    const { serverGroupID } = record.spec;
    return { identityID, projectID: credentials.projectID, credentials, ...(serverGroupID ? { serverGroupID } : {}) };
  }

  /**
   * The record, read again from the API server when the (possibly cached) answer lacks what `complete` asks: a delete
   * takes a record without a project or credentials as proof that nothing was realised, so that proof is never taken
   * from an informer that has not yet seen the record's latest write. A complete record is only ever completed
   * further (nothing is taken off one), so a cached complete answer is as good as a live one.
   */
  async #complete(
    identityID: string,
    complete: (record: OpenstackIdentity) => boolean,
  ): Promise<OpenstackIdentity | undefined> {
    // An absent record is already the API server's answer: a cached client confirms a miss live.
    const record = await this.get(identityID);
    if (record === undefined || complete(record)) return record;
    return getFreshOptional(this.#kube, openstackIdentityType, this.#namespace, identityID);
  }

  /** The record, created or completed so that it holds every secret a create pass may need. */
  async withSecrets(
    identity: IdentityInput,
    source: IdentitySecretSource,
  ): Promise<{ record: OpenstackIdentity; secrets: RecordSecrets }> {
    // A secret is made only where the API server's record has none: one made where a lagging cache lacked it would
    // replace, through the merge patch, the secret the project's resources were made with.
    let record = await this.#complete(identity.id, (r) =>
      Boolean(r.spec.password && r.spec.applicationCredentialSecret && r.spec.sshPrivateKey),
    );
    const missing: Partial<OpenstackIdentitySpec> = {
      ...(record?.spec.password ? {} : { password: source.password() }),
      ...(record?.spec.applicationCredentialSecret
        ? {}
        : { applicationCredentialSecret: source.applicationCredentialSecret() }),
      ...(record?.spec.sshPrivateKey ? {} : { sshPrivateKey: base64(source.sshKeypair().privateKey) }),
    };
    if (record === undefined) {
      try {
        record = await this.#kube.create(openstackIdentityType, this.#newRecord(identity, missing));
      } catch (error) {
        // Another writer made it between our read and create: work from theirs (its secrets win).
        if (!(error instanceof KubeAlreadyExistsError)) throw error;
        return this.withSecrets(identity, source);
      }
    } else if (Object.keys(missing).length > 0) {
      record = await this.save(record, missing);
    }
    const { password, applicationCredentialSecret, sshPrivateKey } = record.spec;
    if (!password || !applicationCredentialSecret || !sshPrivateKey) throw new Error('record secrets were not saved');
    return { record, secrets: { password, applicationCredentialSecret, sshPrivateKey: unbase64(sshPrivateKey) } };
  }

  /** Merges `changes` into the spec; writes nothing when every field already has its value. */
  async save(record: OpenstackIdentity, changes: Partial<OpenstackIdentitySpec>): Promise<OpenstackIdentity> {
    const spec: Record<string, unknown> = record.spec;
    const changed = Object.entries(changes).filter(([key, value]) => spec[key] !== value);
    if (changed.length === 0) return record;
    return this.#kube.patch(openstackIdentityType, this.#namespace, record.metadata.name, {
      type: 'merge',
      patch: { spec: Object.fromEntries(changed) },
    });
  }

  /** Deletes the record; absent is deleted. */
  async delete(identityID: string): Promise<void> {
    await ignoreNotFound(this.#kube.delete(openstackIdentityType, this.#namespace, identityID));
  }

  #newRecord(identity: IdentityInput, spec: Partial<OpenstackIdentitySpec>): OpenstackIdentity {
    return {
      apiVersion: API_VERSION,
      kind: openstackIdentityType.kind,
      metadata: {
        name: identity.id,
        namespace: this.#namespace,
        labels: {
          [labels.organization]: identity.organizationID,
          [labels.project]: identity.projectID,
          [labels.regionID]: identity.regionID,
          [labels.identityID]: identity.id,
        },
      },
      spec,
    };
  }
}

/** What the identity's own user authenticates with, once the record holds its project, user and password. */
export function identityCredentialsOf(record: OpenstackIdentity): IdentityCredentials | undefined {
  const { projectID, userID, password } = record.spec;
  return projectID && userID && password ? { projectID, userID, password } : undefined;
}

/** The clouds.yaml consumers get: one cloud, `cloud`, authenticating with the identity's application credential. */
export function cloudsYaml(authUrl: string, credential: { readonly id: string; readonly secret: string }): string {
  return stringify({
    clouds: {
      [CLOUD_NAME]: {
        auth_type: 'v3applicationcredential',
        auth: {
          auth_url: authUrl,
          application_credential_id: credential.id,
          application_credential_secret: credential.secret,
        },
      },
    },
  });
}

export const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
export const unbase64 = (encoded: string): string => Buffer.from(encoded, 'base64').toString('utf8');
