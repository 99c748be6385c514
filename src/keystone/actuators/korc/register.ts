/**
 * The bundled K-ORC actuators on a runtime Manager, for `openregion up` and end-to-end tests. Off unless asked for:
 * in a real cluster K-ORC itself does this work. They act with the admin credential the caller passes in, rather
 * than each object's cloudCredentialsRef, since the embedded setup has one cloud.
 */
import type { KubeObject } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import type { Manager } from '../../../runtime/manager.ts';
import type { Request } from '../../../runtime/types.ts';
import type { Session } from '../../../openstack/session.ts';
import { korcDomainType, korcUserType, type KorcUser } from '../../apis/korc.ts';
import { domainActuator } from './domain.ts';
import { runPass } from './pass.ts';
import { userActuator } from './user.ts';

/** An admin credential of any scope that may manage users and domains. */
export type AdminSession = Session<'project'> | Session<'domain'> | Session<'system'>;

interface KorcActuatorOptions {
  /** Off by default. */
  readonly enabled?: boolean;
  /** An admin session: users and domains are created, read and deleted with it. */
  readonly admin: AdminSession;
  /** The domain of a User without domainRef (default `default`). */
  readonly defaultDomainId?: string;
  /** How often an import whose filter matches nothing looks again (default 10 s). */
  readonly pollMs?: number;
}

const DEFAULT_POLL_MS = 10_000;

/** Registers the `korc-user` and `korc-domain` controllers; returns whether it did. */
export function registerKorcActuators(manager: Manager, options: KorcActuatorOptions): boolean {
  if (options.enabled !== true) return false;
  const client = manager.client('');
  if (client === undefined) throw new Error('the management cluster has no client');
  const identity = options.admin.client('identity');
  const pass = { client, pollMs: options.pollMs ?? DEFAULT_POLL_MS };
  const users = userActuator({ client, identity, defaultDomainId: options.defaultDomainId ?? 'default' });
  const domains = domainActuator(identity);
  const usersWhere = (namespace: string, test: (u: KorcUser) => boolean): Request[] =>
    manager
      .list<KorcUser>(korcUserType, { namespace })
      .filter(test)
      .map((u) => ({ cluster: '', namespace, name: u.metadata.name }));
  const namespaceOf = (o: KubeObject) => o.metadata.namespace ?? '';

  manager
    .controller('korc-user')
    .for(korcUserType, { clusters: 'management' })
    // K-ORC watches the password Secret, so creating or replacing it wakes the User.
    .watches(
      builtin.secret,
      (s) => usersWhere(namespaceOf(s), (u) => u.spec.resource?.passwordRef === s.metadata.name),
      { clusters: 'management' },
    )
    .watches(
      korcDomainType,
      (d) =>
        usersWhere(
          namespaceOf(d),
          (u) => (u.spec.resource?.domainRef ?? u.spec.import?.filter?.domainRef) === d.metadata.name,
        ),
      { clusters: 'management' },
    )
    .complete((req, ctx) => runPass(users, pass, req, ctx));
  manager
    .controller('korc-domain')
    .for(korcDomainType, { clusters: 'management' })
    .complete((req, ctx) => runPass(domains, pass, req, ctx));
  return true;
}
