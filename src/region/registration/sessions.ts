/**
 * Sessions of the region user, from its credentials: scoped to its managed domain (identity scaffolding) or to its
 * own project (discovery), and the checks `configure` makes with them. Time and transport are injected.
 */
import { UnauthorizedError } from '../../openstack/errors.ts';
import { Session } from '../../openstack/session.ts';
import type { Transport } from '../../openstack/transport.ts';
import type { Clock } from '../../util/clock.ts';
import type { RegionCredentials } from './credentials.ts';

interface SessionDeps {
  readonly transport: Transport;
  readonly clock: Clock;
}

export class RegistrationError extends Error {}

const auth = (c: Pick<RegionCredentials, 'userID' | 'password'>) =>
  ({ type: 'password', user: { id: c.userID }, password: c.password }) as const;

export function domainSession(c: RegionCredentials, deps: SessionDeps): Session<'domain'> {
  return new Session<'domain'>({
    authUrl: c.authUrl,
    auth: auth(c),
    scope: { kind: 'domain', domain: { id: c.domainID } },
    region: c.regionName,
    ...deps,
  });
}

export function projectSession(c: RegionCredentials, deps: SessionDeps): Session<'project'> {
  return new Session<'project'>({
    authUrl: c.authUrl,
    auth: auth(c),
    scope: { kind: 'project', project: { id: c.projectID } },
    region: c.regionName,
    ...deps,
  });
}

/** Whether `password` authenticates the user (unscoped); a wrong password is false, anything else throws. */
export async function passwordWorks(
  authUrl: string,
  userID: string,
  password: string,
  deps: SessionDeps,
): Promise<boolean> {
  const session = new Session<'unscoped'>({
    authUrl,
    auth: auth({ userID, password }),
    scope: { kind: 'unscoped' },
    ...deps,
  });
  try {
    await session.token();
    return true;
  } catch (error) {
    if (error instanceof UnauthorizedError) return false;
    throw error;
  }
}

/**
 * Authenticates with the credentials scoped to the domain and to the project; a refusal is a RegistrationError
 * naming the scope (never the password). Keystone's Fernet revocation events have one-second resolution, so a
 * token asked for in the second a password changed is refused once: one retry after 1.1 s covers it.
 */
export async function validateCredentials(c: RegionCredentials, deps: SessionDeps, source: string): Promise<void> {
  const attempts: [string, () => Session<'domain'> | Session<'project'>][] = [
    [`domain ${c.domainName} (${c.domainID})`, () => domainSession(c, deps)],
    [`project ${c.projectName} (${c.projectID})`, () => projectSession(c, deps)],
  ];
  for (const [what, make] of attempts) {
    for (let attempt = 0; ; attempt++) {
      try {
        await make().token();
        break;
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        if (attempt === 0) {
          await deps.clock.sleep(1_100);
          continue;
        }
        throw new RegistrationError(
          `the credentials of ${source} do not authenticate: Keystone at ${c.authUrl} refused user ${c.userID} ` +
            `a token scoped to ${what} (401)`,
        );
      }
    }
  }
}
