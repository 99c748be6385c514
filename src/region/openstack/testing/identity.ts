/**
 * What the identity tests check after a pass, as the cloud admin sees it: exactly one project, user, application
 * credential, server group and keypair under the identity's names (or none after a delete), each usable with what
 * the OpenstackIdentity record holds. Also a secret source whose every secret is remembered, so a test can scan for
 * leaks.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { listServerGroups } from '../../../openstack/compute.ts';
import { listApplicationCredentials, listProjects, listUsers } from '../../../openstack/identity.ts';
import { openstackIdentityType, type OpenstackIdentity } from '../../apis/index.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { unbase64 } from '../identity/record.ts';
import { generateSshKeypair, publicKeyMaterial, publicKeyOf, type IdentitySecretSource } from '../identity/secrets.ts';
import { IDENTITY_KEYPAIR_NAME, identityName, organizationTag, projectTag } from '../names.ts';
import type { RegionFixture } from './region.ts';

interface EmulatedKeypair {
  readonly name: string;
  readonly userId: string;
  readonly publicKey: string;
}

export const identityRecord = (fx: RegionFixture, id: string): Promise<OpenstackIdentity> =>
  fx.store.get(openstackIdentityType, fx.namespace, id);

/** Everything under the identity's names, listed as the cloud admin (keypairs from the emulator's own state). */
async function inventory(fx: RegionFixture, identity: IdentityInput) {
  const admin = fx.adminIdentity();
  const name = identityName(identity.id);
  const projects = await listProjects(admin, { domainID: fx.credentials.domainID, name });
  const users = await listUsers(admin, { domainID: fx.credentials.domainID, name });
  const credentials = (await Promise.all(users.map((u) => listApplicationCredentials(admin, u.id)))).flat();
  const allGroups = await listServerGroups(fx.admin.client('compute'), { allProjects: true });
  const groups = allGroups.filter((g) => g.name === name);
  // The emulator's Nova does not list another user's keypairs (`?user_id=`), so its state is read instead.
  const keypairs = emulatedKeypairs(fx).filter((k) => users.some((u) => u.id === k.userId));
  return { projects, users, credentials, groups, keypairs };
}

const emulatedKeypairs = (fx: RegionFixture): EmulatedKeypair[] =>
  (fx.emulator.control.dump()['nova'] as { keypairs: EmulatedKeypair[] }).keypairs;

/** Exactly one of each, tagged, recorded, and usable with the record's password, credential and key. */
export async function assertConverged(
  fx: RegionFixture,
  identity: IdentityInput,
  expectedRoles: readonly string[],
): Promise<void> {
  const found = await inventory(fx, identity);
  assert.equal(found.projects.length, 1, 'one project');
  assert.equal(found.users.length, 1, 'one user');
  assert.equal(found.credentials.length, 1, 'one application credential');
  assert.equal(found.groups.length, 1, 'one server group');
  assert.deepEqual(
    found.keypairs.map((k) => k.name),
    [IDENTITY_KEYPAIR_NAME],
    'one keypair',
  );
  const project = found.projects[0] ?? assert.fail('a project');
  assert.ok(project.tags.includes(organizationTag(identity.organizationID)));
  assert.ok(project.tags.includes(projectTag(identity.projectID)));

  const { spec } = await identityRecord(fx, identity.id);
  assert.equal(spec.projectID, project.id);
  assert.equal(spec.userID, found.users[0]?.id);
  assert.equal(spec.applicationCredentialID, found.credentials[0]?.id);
  assert.equal(spec.serverGroupID, found.groups[0]?.id);
  assert.equal(spec.sshKeyName, IDENTITY_KEYPAIR_NAME);

  const userAuth = { type: 'password', user: { id: spec.userID ?? '' }, password: spec.password ?? '' } as const;
  const token = await fx.session(userAuth, { kind: 'project', project: { id: project.id } }).token();
  assert.deepEqual(token.roles.map((r) => r.name).sort(), [...expectedRoles].sort());

  const { clouds } = parse(unbase64(spec.cloudConfig ?? '')) as {
    clouds: { cloud: { auth: { application_credential_id: string; application_credential_secret: string } } };
  };
  assert.equal(spec.cloud, 'cloud');
  const { application_credential_id: id, application_credential_secret: secret } = clouds.cloud.auth;
  assert.equal(id, spec.applicationCredentialID);
  assert.equal(secret, spec.applicationCredentialSecret);
  const appCred = await fx.session({ type: 'application_credential', id, secret }, { kind: 'unscoped' }).token();
  assert.equal(appCred.project?.id, project.id);

  const key = emulatedKeypairs(fx).find((k) => k.userId === spec.userID);
  const recorded = publicKeyOf(unbase64(spec.sshPrivateKey ?? '')) ?? assert.fail('the record holds an OpenSSH key');
  assert.equal(publicKeyMaterial(key?.publicKey ?? ''), publicKeyMaterial(recorded));
}

/** Nothing under the identity's names, and no record. */
export async function assertGone(fx: RegionFixture, identity: IdentityInput): Promise<void> {
  const found = await inventory(fx, identity);
  for (const [kind, items] of Object.entries(found)) assert.equal(items.length, 0, `no ${kind} left`);
  await assert.rejects(identityRecord(fx, identity.id), /not found/);
}

/** Secrets that look like themselves, each remembered in `generated` for a later scan. */
export function recordingSecrets(generated: string[]): IdentitySecretSource {
  const remember = (secret: string): string => {
    generated.push(secret);
    return secret;
  };
  return {
    password: () => remember(`pw-${randomUUID()}`),
    applicationCredentialSecret: () => remember(`acs-${randomUUID()}`),
    sshKeypair: () => {
      const key = generateSshKeypair(42);
      remember(key.privateKey);
      return key;
    },
  };
}
