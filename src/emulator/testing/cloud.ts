/**
 * The root of the test fixtures: an emulator on a ManualClock and openregion client sessions against it, so every
 * effect is observed through the ordinary OpenStack APIs, deterministically. The region's fixtures extend it
 * (src/region/openstack/testing/), each adding what its layer needs, so a test reaches all of it in one hop.
 */
import type { AuthMethod, ScopeKind, ScopeOf } from '../../openstack/auth.ts';
import { createProject, createUser, ensureRole, grantRole } from '../../openstack/identity.ts';
import { Session } from '../../openstack/session.ts';
import { Transport } from '../../openstack/transport.ts';
import { ManualClock } from '../../util/clock.ts';
import { Emulator, type EmulatorOptions } from '../emulator.ts';

export interface CloudFixture {
  readonly emulator: Emulator;
  readonly clock: ManualClock;
  /** admin in project admin. */
  readonly admin: Session<'project'>;
  session<K extends ScopeKind>(
    auth: AuthMethod,
    scope: K extends 'project' ? ScopeOf<'project' | 'unscoped'> : ScopeOf<K>,
  ): Session<K>;
  /** A user of its own holding `roles` in a new project `name`, and a session scoped to that project. */
  projectSession(name: string, roles: readonly string[]): Promise<Session<'project'>>;
  /** Sends a control request; resolves to the HTTP status. */
  control(method: string, path: string, body?: unknown): Promise<number>;
  close(): Promise<void>;
}

export async function cloudFixture(options: Omit<EmulatorOptions, 'clock'> = {}): Promise<CloudFixture> {
  const clock = new ManualClock();
  const emulator = await Emulator.start({ ...options, clock });
  // No retries: a test sees each answer exactly as the emulator gave it.
  const transport = new Transport({ clock, random: () => 0, retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 } });
  const session = <K extends ScopeKind>(
    auth: AuthMethod,
    scope: K extends 'project' ? ScopeOf<'project' | 'unscoped'> : ScopeOf<K>,
  ) => new Session<K>({ authUrl: emulator.authUrl, auth, scope, transport, clock, region: 'RegionOne' });
  const admin = session<'project'>(
    {
      type: 'password',
      user: { name: 'admin', domain: { id: 'default' } },
      password: options.adminPassword ?? 'secret',
    },
    { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
  );
  return {
    emulator,
    clock,
    admin,
    session,
    projectSession: async (name, roles) => {
      const identity = admin.client('identity');
      const project = await createProject(identity, { name, domain_id: 'default' });
      const user = await createUser(identity, { name, domain_id: 'default', password: 'pw' });
      for (const role of roles) {
        const roleID = await ensureRole(identity, role);
        await grantRole(identity, { userID: user.id, projectID: project.id, roleID: roleID });
      }
      return session<'project'>(
        { type: 'password', user: { id: user.id }, password: 'pw' },
        { kind: 'project', project: { id: project.id } },
      );
    },
    control: async (method, path, body) => {
      const response = await fetch(`${emulator.url}/_emulator${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      await response.arrayBuffer();
      return response.status;
    },
    close: async () => {
      await transport.close();
      await emulator.close();
    },
  };
}
