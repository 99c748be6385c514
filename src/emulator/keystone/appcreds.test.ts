import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BadRequestError, UnauthorizedError } from '../../openstack/errors.ts';
import { createApplicationCredential, type ApplicationCredentialCreate } from '../../openstack/identity.ts';
import type { Session } from '../../openstack/session.ts';
import { cloudFixture, type CloudFixture } from '../testing/cloud.ts';

describe('emulated Keystone: a client-supplied application credential secret', () => {
  let cloud: CloudFixture;
  let member: Session<'project'>;
  let userID: string;

  before(async () => {
    cloud = await cloudFixture();
    member = await cloud.projectSession('appcred-secret', ['member']);
    userID = (await member.token()).user.id;
  });
  after(() => cloud.close());

  const withSecret = (name: string, secret: unknown): ApplicationCredentialCreate & { readonly secret: unknown } => ({
    name,
    secret,
  });

  it('is the secret the credential authenticates with, and the one the create answer shows', async () => {
    const made = await createApplicationCredential(member.client('identity'), userID, withSecret('mine', 's3cr3t'));
    assert.equal(made.secret, 's3cr3t');
    const auth = (secret: string) =>
      cloud.session({ type: 'application_credential', id: made.id, secret }, { kind: 'unscoped' }).token();
    assert.equal((await auth('s3cr3t')).user.id, userID);
    await assert.rejects(auth('other'), UnauthorizedError);
  });

  it('an empty or non-string secret is refused', async () => {
    for (const secret of ['', 42]) {
      await assert.rejects(
        createApplicationCredential(member.client('identity'), userID, withSecret(`bad-${String(secret)}`, secret)),
        BadRequestError,
      );
    }
  });
});
