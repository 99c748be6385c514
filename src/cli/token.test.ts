import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createAuthenticator } from '../region/http/auth.ts';
import { Problem } from '../region/http/problem.ts';
import { systemClock } from '../util/clock.ts';
import { lifetimeSeconds, tokenCommand } from './token.ts';

async function mint(args: string[]): Promise<string> {
  let written = '';
  await tokenCommand({ write: (text: string) => (written += text) }).parseAsync(args, { from: 'user' });
  return written.trim();
}

describe('openregion token', () => {
  it('mints a token serve --public-key-file accepts, with the scope claims the API reads, keeping its key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openregion-token-'));
    try {
      const key = join(dir, 'key.json');
      const pem = join(dir, 'public.pem');
      const token = await mint(
        ['--key', key, '--public-key', pem, '--organization-id', 'org-1', '--project-id', 'p-1,p-2'].concat([
          '--subject',
          'alice',
          '--issuer',
          'https://dev',
          '--audience',
          'region',
          '--lifetime',
          '1h',
        ]),
      );
      assert.equal(statSync(key).mode & 0o777, 0o600, 'the private key is private');
      const authenticate = createAuthenticator({
        key: { publicKeyPem: readFileSync(pem, 'utf8'), algorithm: 'ES256' },
        clock: systemClock,
        issuer: 'https://dev',
        audience: 'region',
      });
      const { tokenID, ...scope } = await authenticate(`Bearer ${token}`);
      assert.deepEqual(scope, {
        subject: 'alice',
        organizationIDs: ['org-1'],
        projectIDs: ['p-1', 'p-2'],
      });
      assert.match(tokenID ?? '', /^(jti|claims):./, 'the rate limit tells tokens apart');
      const operator = await mint(['--key', key, '--organization-id', 'org-1', '--operator']);
      const lenient = createAuthenticator({
        key: { publicKeyPem: readFileSync(pem, 'utf8'), algorithm: 'ES256' },
        clock: systemClock,
      });
      assert.equal((await lenient(`Bearer ${operator}`)).operator, true, '--operator adds the operator claim');
      const again = await mint(['--key', key, '--organization-id', 'org-2']);
      assert.equal((await lenient(`Bearer ${again}`)).operator, undefined, 'and only --operator does');
      const claims = decodeJwt(again);
      assert.deepEqual([claims.iss, claims.aud], ['openregion-dev', 'openregion'], 'iss and aud by default');
      assert.ok(typeof claims.exp === 'number' && claims.exp > Date.now() / 1000, 'and an expiry');
      assert.deepEqual(
        (
          await createAuthenticator({
            key: { publicKeyPem: readFileSync(pem, 'utf8'), algorithm: 'ES256' },
            clock: systemClock,
          })(`Bearer ${again}`)
        ).organizationIDs,
        ['org-2'],
        'the second token is signed with the same key',
      );
      const strict = createAuthenticator({
        key: { publicKeyPem: readFileSync(pem, 'utf8'), algorithm: 'ES256' },
        clock: systemClock,
        audience: 'region',
      });
      await assert.rejects(strict(`Bearer ${again}`), (e) => e instanceof Problem && e.status === 401);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a token without an organization, and a lifetime it cannot read', async () => {
    await assert.rejects(mint(['--key', join(tmpdir(), 'never-written.json')]), /--organization-id is required/);
    assert.equal(lifetimeSeconds('30m'), 1800);
    assert.equal(lifetimeSeconds('7d'), 604_800);
    for (const bad of ['0s', '1.5h', 'soon', '10']) assert.throws(() => lifetimeSeconds(bad), /expected a lifetime/);
  });
});
