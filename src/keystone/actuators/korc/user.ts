/**
 * The K-ORC User's I/O over Keystone: look the user up (by status.id, import or exact name in its domain), create it
 * with the password from the passwordRef Secret and no default project, set a moved password, delete it. Keystone is
 * reached with the credentials the User's cloudCredentialsRef names, as K-ORC does.
 */
import { getOptional, type Client } from '../../../kube/client.ts';
import type { KubeObject, Secret } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { isNotFound } from '../../../openstack/errors.ts';
import {
  createUser,
  deleteUser,
  findUserByName,
  getUser,
  listUsers,
  setUserPassword,
  type IdentityClient,
  type User,
} from '../../../openstack/identity.ts';
import { KORC_USER_FINALIZER, korcUserType, type KorcUser } from '../../apis/korc.ts';
import type { Lookup, PasswordFacts } from './decide.ts';
import { resolveDomain } from './domain-ref.ts';
import type { KindActuator } from './pass.ts';
import { defined } from '../../../util/defined.ts';

interface UserActuatorOptions {
  readonly client: Client;
  /** The identity client for an object, from its cloudCredentialsRef. */
  readonly identityFor: (object: KorcUser) => Promise<IdentityClient>;
  /** The domain of a User without domainRef. */
  readonly defaultDomainID: string;
}

export function userActuator(options: UserActuatorOptions): KindActuator<KorcUser> {
  const { client, identityFor, defaultDomainID } = options;
  const namespaceOf = (u: KorcUser) => u.metadata.namespace ?? '';
  const nameOf = (u: KorcUser) => u.spec.resource?.name ?? u.metadata.name;
  const password = async (u: KorcUser): Promise<string | undefined> => {
    const ref = u.spec.resource?.passwordRef;
    return ref === undefined ? undefined : readPassword(client, namespaceOf(u), ref);
  };

  const lookup = async (
    u: KorcUser,
    identity: IdentityClient,
  ): Promise<{ lookup: Lookup; dependencyWait?: string; found?: User }> => {
    const recorded = u.status?.id;
    if (recorded !== undefined && recorded !== '') {
      const found = await userIfExists(identity, recorded);
      return found === undefined
        ? { lookup: { by: 'statusId', ids: [] } }
        : { lookup: { by: 'statusId', ids: [found.id] }, found };
    }
    const imp = u.spec.import;
    if (u.spec.managementPolicy === 'unmanaged') {
      if (imp?.id !== undefined) return { lookup: { by: 'importId', ids: await idIfExists(identity, imp.id) } };
      const domain = await resolveDomain(client, namespaceOf(u), imp?.filter?.domainRef, undefined);
      if ('wait' in domain) return { lookup: { by: 'none' }, dependencyWait: domain.wait };
      const name = imp?.filter?.name;
      const users = await listUsers(identity, { domainID: domain.id, name });
      // Keystone's name filter follows the database collation: keep exact matches only.
      return {
        lookup: { by: 'filter', ids: users.filter((x) => name === undefined || x.name === name).map((x) => x.id) },
      };
    }
    const domain = await resolveDomain(client, namespaceOf(u), u.spec.resource?.domainRef, defaultDomainID);
    if ('wait' in domain) return { lookup: { by: 'none' }, dependencyWait: domain.wait };
    const found = await findUserByName(identity, domain.id ?? defaultDomainID, nameOf(u));
    return { lookup: { by: 'name', ids: found === undefined ? [] : [found.id] } };
  };

  const userIfExists = async (identity: IdentityClient, id: string): Promise<User | undefined> => {
    try {
      return await getUser(identity, id);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  const idIfExists = async (identity: IdentityClient, id: string): Promise<string[]> => {
    const found = await userIfExists(identity, id);
    return found === undefined ? [] : [found.id];
  };

  return {
    type: korcUserType,
    finalizer: KORC_USER_FINALIZER,
    observe: async (u) => {
      const { lookup: looked, dependencyWait, found } = await lookup(u, await identityFor(u));
      const ref = u.spec.resource?.passwordRef;
      const pw: PasswordFacts = {
        ref,
        applied: u.status?.resource?.appliedPasswordRef,
        secret: ref === undefined ? 'ok' : await secretState(client, namespaceOf(u), ref),
      };
      return {
        dependencyWait,
        lookup: looked,
        password: pw,
        // The user as just read by status.id: an available step reports it without reading it again.
        ...(found === undefined ? {} : { described: describeUser(found) }),
      };
    },
    create: async (u) => {
      const resource = u.spec.resource;
      const domain = await resolveDomain(client, namespaceOf(u), resource?.domainRef, defaultDomainID);
      if ('wait' in domain) throw new Error(domain.wait);
      const pw = await password(u);
      const user = await createUser(await identityFor(u), {
        name: nameOf(u),
        domain_id: domain.id ?? defaultDomainID,
        ...defined({ password: pw, description: resource?.description, enabled: resource?.enabled }),
      });
      return { id: user.id, described: describeUser(user) };
    },
    delete: async (u, id) => deleteUser(await identityFor(u), id),
    setPassword: async (u, id) => {
      const pw = await password(u);
      if (pw === undefined) throw new Error('Password secret does not contain "password" key');
      await setUserPassword(await identityFor(u), id, pw);
    },
    describe: async (u, id) => describeUser(await getUser(await identityFor(u), id)),
  };
}

function describeUser(user: User): Readonly<Record<string, unknown>> {
  return {
    name: user.name,
    domainID: user.domain_id,
    enabled: user.enabled,
    ...(user.description ? { description: user.description } : {}),
    ...(user.default_project_id ? { defaultProjectID: user.default_project_id } : {}),
    ...(user.password_expires_at ? { passwordExpiresAt: user.password_expires_at } : {}),
  };
}

function readSecret(client: Client, namespace: string, name: string): Promise<Secret | undefined> {
  return getOptional(client, builtin.secret, namespace, name);
}

function passwordOf(secret: KubeObject): string | undefined {
  const data = secret['data'] as Readonly<Record<string, string>> | undefined;
  const encoded = data?.['password'];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

async function secretState(client: Client, namespace: string, name: string): Promise<PasswordFacts['secret']> {
  const secret = await readSecret(client, namespace, name);
  if (secret === undefined) return 'absent';
  return passwordOf(secret) === undefined ? 'noKey' : 'ok';
}

async function readPassword(client: Client, namespace: string, name: string): Promise<string | undefined> {
  const secret = await readSecret(client, namespace, name);
  return secret === undefined ? undefined : passwordOf(secret);
}
