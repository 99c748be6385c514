import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { renderEnvFile } from '../region/registration/env-file.ts';
import { register, type RegisterOptions } from './region-register.ts';

const dir = mkdtempSync(join(tmpdir(), 'region-register-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

const providerEnv = join(dir, 'region.env');
writeFileSync(
  providerEnv,
  renderEnvFile(
    {
      authUrl: 'http://keystone.example:5000/v3',
      regionName: 'RegionOne',
      domainID: 'd1',
      domainName: 'openregion',
      projectID: 'p1',
      projectName: 'openregion-manager',
      userID: 'u1',
      userName: 'openregion-manager',
      password: 'not-for-output',
    },
    'test credentials',
  ),
);

/** `region register` into an embedded store file; stdout and stderr as text. */
async function run(over: Partial<RegisterOptions>): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  await register(
    {
      providerEnv,
      name: 'east',
      namespace: 'unikorn-region',
      output: 'yaml',
      store: join(dir, 'store.db'),
      discover: false,
      createSecret: true,
      column: [],
      ...over,
    },
    { write: (text: string) => (out += text) },
    { write: (text: string) => (err += text) },
  );
  return { out, err };
}

describe('region register -f', () => {
  it('prints the registration as one record, the applied objects on stderr, and says updated the second time', async () => {
    const first = await run({ format: 'json' });
    const record = JSON.parse(first.out) as Record<string, unknown>;
    assert.match(String(record.id), /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...record, id: undefined },
      {
        id: undefined,
        name: 'east',
        namespace: 'unikorn-region',
        provider: 'openstack',
        endpoint: 'http://keystone.example:5000/v3',
        secret: `unikorn-region/${String(record.id)}-openstack`,
        organizations: [],
        result: 'created',
      },
    );
    assert.match(first.err, /namespace\/unikorn-region created/);
    assert.doesNotMatch(first.out + first.err, /not-for-output/);

    const second = await run({ format: 'value', column: ['id', 'result'] });
    assert.equal(second.out, `${String(record.id)}\nupdated\n`);
  });

  it('keeps its kubectl-like lines without -f, and refuses -f with --dry-run', async () => {
    const plain = await run({});
    assert.match(plain.out, /^region [0-9a-f-]{36} \(east\) updated: provider openstack/m);
    await assert.rejects(run({ format: 'table', dryRun: true }), /-f formats a registration; a --dry-run prints/);
  });
});
