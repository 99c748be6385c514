/**
 * The bundled K-ORC actuators on a runtime Manager, for `openregion up` and end-to-end tests. Off unless asked for:
 * in a real cluster K-ORC itself does this work. As K-ORC, each object reaches Keystone with the cloud its
 * spec.cloudCredentialsRef names (a Secret in its namespace holding clouds.yaml).
 */
import type { KubeObject } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import type { Manager } from '../../../runtime/manager.ts';
import type { Request } from '../../../runtime/types.ts';
import type { Clock } from '../../../util/clock.ts';
import { korcDomainType, korcUserType, type KorcDomain, type KorcUser } from '../../apis/korc.ts';
import { CloudCredentials } from './credentials.ts';
import { domainActuator } from './domain.ts';
import { runPass } from './pass.ts';
import { userActuator } from './user.ts';

interface KorcActuatorOptions {
  /** Off by default. */
  readonly enabled?: boolean;
  /** The clock the Keystone sessions read. */
  readonly clock: Clock;
  /** The domain of a User without domainRef (default `default`). */
  readonly defaultDomainID?: string;
  /** How often an import whose filter matches nothing looks again (default 15 s, K-ORC's externalUpdatePollingPeriod). */
  readonly pollMs?: number;
}

const DEFAULT_POLL_MS = 15_000;
/**
 * `<namespace>/<name>` of each Secret an object reads (a User's password and credentials, a Domain's credentials),
 * as K-ORC indexes its dependencies: a Secret's event finds its readers without scanning every User.
 */
const USER_SECRETS_INDEX = 'korc.user.secrets';
const DOMAIN_SECRETS_INDEX = 'korc.domain.secrets';

/**
 * Registers the `korc-user` and `korc-domain` controllers; returns the credentials they share (close it once the
 * manager has stopped), or undefined when not enabled.
 */
export function registerKorcActuators(manager: Manager, options: KorcActuatorOptions): CloudCredentials | undefined {
  if (options.enabled !== true) return undefined;
  const client = manager.client('');
  if (client === undefined) throw new Error('the management cluster has no client');
  const credentials = new CloudCredentials({ client, clock: options.clock });
  const identityFor = (o: KorcUser | KorcDomain) =>
    credentials.identity(o.metadata.namespace ?? '', o.spec.cloudCredentialsRef);
  const pass = { client, pollMs: options.pollMs ?? DEFAULT_POLL_MS };
  const users = userActuator({ client, identityFor, defaultDomainID: options.defaultDomainID ?? 'default' });
  const domains = domainActuator(identityFor);
  const secretsOf = (o: KubeObject): string[] => {
    const { spec } = o as KorcUser;
    const names = new Set([spec.cloudCredentialsRef.secretName, spec.resource?.passwordRef]);
    return [...names].filter((n) => n !== undefined).map((n) => `${o.metadata.namespace ?? ''}/${n}`);
  };
  manager.index(korcUserType, USER_SECRETS_INDEX, secretsOf, { clusters: 'management' });
  manager.index(korcDomainType, DOMAIN_SECRETS_INDEX, secretsOf, { clusters: 'management' });
  const readersOf = (type: typeof korcUserType | typeof korcDomainType, index: string) => (s: KubeObject) =>
    manager
      .list(type, { index, value: `${namespaceOf(s)}/${s.metadata.name}` })
      .map((o): Request => ({ cluster: '', namespace: namespaceOf(o), name: o.metadata.name }));
  const whereIn = (
    type: typeof korcUserType | typeof korcDomainType,
    namespace: string,
    test: (o: KorcUser & KorcDomain) => boolean,
  ): Request[] =>
    manager
      .list(type, { namespace })
      .filter(test)
      .map((o) => ({ cluster: '', namespace, name: o.metadata.name }));
  const namespaceOf = (o: KubeObject) => o.metadata.namespace ?? '';

  manager
    .controller('korc-user')
    .for(korcUserType, { clusters: 'management' })
    // K-ORC watches the password Secret, so creating or replacing it wakes the User; so does its credentials Secret.
    .watches(builtin.secret, readersOf(korcUserType, USER_SECRETS_INDEX), { clusters: 'management' })
    .watches(
      korcDomainType,
      (d) =>
        whereIn(
          korcUserType,
          namespaceOf(d),
          (u) => (u.spec.resource?.domainRef ?? u.spec.import?.filter?.domainRef) === d.metadata.name,
        ),
      { clusters: 'management' },
    )
    .complete((req, ctx) => runPass(users, pass, req, ctx));
  manager
    .controller('korc-domain')
    .for(korcDomainType, { clusters: 'management' })
    .watches(builtin.secret, readersOf(korcDomainType, DOMAIN_SECRETS_INDEX), { clusters: 'management' })
    .complete((req, ctx) => runPass(domains, pass, req, ctx));
  return credentials;
}
