import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RegionCredentials } from './credentials.ts';
import {
  credentialsFromEnv,
  EnvFileError,
  parseEnvText,
  readEnvFile,
  renderEnvFile,
  writeEnvFile,
} from './env-file.ts';
import { testCredentials } from './testing/credentials.ts';

/** A password with every character the env file must quote. */
const credentials: RegionCredentials = { ...testCredentials, password: `it's $HOME "quoted" \`x\` \\ end` };

test('a rendered env file parses back to the same credentials, password included', () => {
  const text = renderEnvFile(credentials, 'test');
  assert.match(text, /^OPENSTACK_PASSWORD='/m);
  assert.deepEqual(credentialsFromEnv(parseEnvText(text)), credentials);
});

test('the keys are the documented ones, in order', () => {
  const keys = renderEnvFile(credentials, 'test')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => l.split('=')[0]);
  assert.deepEqual(keys, [
    'OPENSTACK_AUTH_URL',
    'OPENSTACK_REGION_NAME',
    'OPENSTACK_DOMAIN_ID',
    'OPENSTACK_DOMAIN_NAME',
    'OPENSTACK_PROJECT_ID',
    'OPENSTACK_PROJECT_NAME',
    'OPENSTACK_USER_ID',
    'OPENSTACK_USER_NAME',
    'OPENSTACK_PASSWORD',
  ]);
});

test('parses export prefixes, double quotes and comments; names the missing key', () => {
  const env = parseEnvText('# c\nexport A="x \\"y\\""\nB=plain\n\n');
  assert.deepEqual(env, { A: 'x "y"', B: 'plain' });
  assert.throws(() => parseEnvText('not a line'), EnvFileError);
  assert.throws(() => credentialsFromEnv({ OPENSTACK_AUTH_URL: 'x' }), /OPENSTACK_DOMAIN_ID is missing/);
});

test('writes the file 0600 and reads it back; a missing file reads as undefined', () => {
  const dir = mkdtempSync(join(tmpdir(), 'env-file-'));
  const path = join(dir, 'region.env');
  writeFileSync(path, 'old', { mode: 0o644 });
  writeEnvFile(path, renderEnvFile(credentials, 'test'));
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readEnvFile(path), credentials);
  assert.match(readFileSync(path, 'utf8'), /secret store/);
  assert.equal(readEnvFile(join(dir, 'absent.env')), undefined);
});
