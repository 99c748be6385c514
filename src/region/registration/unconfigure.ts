/**
 * `region unconfigure`: the undo of `region configure` (mode create). It removes the deployment's user, project and
 * domain (disabled first, as Keystone requires). Idempotent: what is already gone is skipped, and a second run
 * changes nothing. While the domain holds anything configure did not make (the projects and users of the region's
 * identities), it refuses: those projects may still hold servers and networks. `force` removes them too, and says
 * that their cloud resources are left behind.
 */
import {
  deleteDomain,
  deleteProject,
  deleteUser,
  listDomains,
  listProjects,
  listUsers,
  updateDomain,
  type IdentityClient,
} from '../../openstack/identity.ts';
import { exactlyNamed } from '../../openstack/exact.ts';
import { scaffoldingNames } from './configure.ts';
import { RegistrationError } from './sessions.ts';

interface UnconfigureOptions {
  readonly prefix: string;
  readonly force: boolean;
}

/** What the run removed, one line each; empty when nothing was there. */
export async function unconfigureRegion(identity: IdentityClient, options: UnconfigureOptions): Promise<string[]> {
  const names = scaffoldingNames(options.prefix);
  const domain = exactlyNamed(await listDomains(identity, { name: names.domain }), names.domain, 'keystone domain');
  if (domain === undefined) return [];
  const projects = await listProjects(identity, { domainID: domain.id });
  const users = await listUsers(identity, { domainID: domain.id });
  const foreignProjects = projects.filter((p) => p.name !== names.project);
  const foreignUsers = users.filter((u) => u.name !== names.user);
  const foreign = [...foreignProjects.map((p) => `project ${p.name}`), ...foreignUsers.map((u) => `user ${u.name}`)];
  if (foreign.length > 0 && !options.force) {
    throw new RegistrationError(
      `domain ${names.domain} still holds ${foreign.join(', ')} (the region's identities): deregister the region ` +
        'and delete its resources first, or pass --force to remove them and leave their cloud resources behind',
    );
  }
  const changes: string[] = [];
  for (const user of users) {
    await deleteUser(identity, user.id);
    changes.push(`deleted user ${user.name}`);
  }
  for (const project of projects) {
    await deleteProject(identity, project.id);
    changes.push(`deleted project ${project.name}`);
  }
  if (domain.enabled) await updateDomain(identity, domain.id, { enabled: false });
  await deleteDomain(identity, domain.id);
  changes.push(`deleted domain ${names.domain}`);
  return changes;
}
