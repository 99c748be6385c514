import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { FakeCloud } from '../openstack/testing/fake-cloud.ts';
import { packageVersion } from '../util/version.ts';
import { buildProgram, COMMAND_MODULES } from './program.ts';

const run = promisify(execFile);
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', ...env },
  });

describe('openregion CLI', () => {
  let cloud: FakeCloud;
  before(async () => {
    cloud = await FakeCloud.start();
  });
  after(() => cloud.close());

  it('prints the version from package.json, loading no command module', async () => {
    const { stdout } = await cli(['--version']);
    assert.equal(stdout, `${packageVersion()}\n`);
    assert.match(packageVersion(), /^\d+\.\d+\.\d+/);
    assert.deepEqual((await buildProgram(['--version'])).commands, []);
  });

  it('loads only the module of the command it runs, and each module defines exactly the names it is listed under', async () => {
    assert.deepEqual(
      (await buildProgram(['crds'])).commands.map((c) => c.name()),
      ['crds'],
    );
    for (const module of COMMAND_MODULES) {
      assert.deepEqual((await module.load()).map((c) => c.name()).sort(), [...module.names].sort());
    }
    const all = (await buildProgram(['--help'])).commands.map((c) => c.name());
    assert.deepEqual(all.sort(), COMMAND_MODULES.flatMap((m) => m.names).sort());
  });

  it('prints its help when run without a command', async () => {
    const { stdout } = await cli([]);
    assert.match(stdout, /Usage: openregion/);
    assert.match(stdout, /cloud/);
  });

  it('checks a cloud from OS_* variables, showing the catalog but never the token or password', async () => {
    const env = {
      OS_AUTH_URL: cloud.authUrl,
      OS_USERNAME: 'admin',
      OS_PASSWORD: 'hunter2-secret',
      OS_USER_DOMAIN_NAME: 'Default',
      OS_PROJECT_NAME: 'demo',
      OS_PROJECT_DOMAIN_NAME: 'Default',
    };
    const { stdout } = await cli(['cloud', 'check'], env);
    // The OpenStack CLI's table: a Field/Value box, the catalog a line per endpoint.
    assert.match(stdout, /^\+-+\+-+\+\n\| Field +\| Value +\|\n\+-+\+-+\+\n/);
    assert.match(stdout, /^\| user +\| admin \(u-1\) in domain Default +\|$/m);
    assert.match(stdout, /^\| scope +\| project demo \(p-1\) in domain Default +\|$/m);
    assert.match(stdout, /^\| +\| compute +public +RegionOne +http/m);
    const token = cloud.issuedTokens.at(-1) ?? 'no token issued';
    assert.ok(!stdout.includes(token) && !stdout.includes('hunter2'));
    // -f json|yaml|value and -c, as the OpenStack CLI's.
    const json = JSON.parse((await cli(['cloud', 'check', '-f', 'json'], env)).stdout) as {
      scope: string;
      catalog: { service: string; interface: string }[];
    };
    assert.equal(json.scope, 'project demo (p-1) in domain Default');
    assert.ok(json.catalog.some((e) => e.service === 'compute' && e.interface === 'public'));
    assert.equal(
      (await cli(['cloud', 'check', '-f', 'value', '-c', 'user', '-c', 'roles'], env)).stdout,
      'admin (u-1) in domain Default\nmember\n',
    );
    assert.match(
      (await cli(['cloud', 'check', '-f', 'yaml', '-c', 'scope'], env)).stdout,
      /^scope: project demo \(p-1\) in domain Default\n$/,
    );
  });

  it('names the missing setting and exits non-zero on bad configuration: one line, no stack', async () => {
    await assert.rejects(cli(['cloud', 'check'], { OS_USERNAME: 'admin' }), (e: unknown) => {
      const { stderr, code } = e as { stderr: string; code: number };
      assert.equal(code, 3, 'the rejected-input class');
      assert.match(stderr, /^openregion: clouds\.envvars\.auth\.auth_url: is required \(OS_AUTH_URL\)\n$/);
      return true;
    });
  });

  it('--debug (anywhere on the line) shows the failure with its stack trace', async () => {
    await assert.rejects(cli(['cloud', 'check', '--debug'], { OS_USERNAME: 'admin' }), (e: unknown) => {
      const { stderr, code } = e as { stderr: string; code: number };
      assert.equal(code, 3);
      assert.match(
        stderr,
        /^openregion: ConfigError: clouds\.envvars\.auth\.auth_url: is required \(OS_AUTH_URL\)\n {4}at /,
      );
      return true;
    });
  });

  it('exits with the code of the failure’s class: usage 2, not found 1, unreachable 4; help and --version 0', async () => {
    const exit = (args: string[]) =>
      cli(args).then(
        ({ stderr }) => ({ code: 0, stderr }),
        (e: unknown) => {
          const { code, stderr } = e as { code: number; stderr: string };
          return { code, stderr };
        },
      );
    assert.deepEqual(await exit(['get']), { code: 2, stderr: "error: missing required argument 'kind'\n" });
    assert.deepEqual(await exit(['wait', 'server', 'x', '--for', 'condition=Ready', '--timeout', 'soon']), {
      code: 2,
      stderr: "error: option '--timeout <duration>' argument 'soon' is invalid. a duration such as 30s, 5m or 1h\n",
    });
    const store = await exit(['get', 'servers', '--store', '/nonexistent/store.db']);
    assert.equal(store.code, 4);
    assert.match(store.stderr, /^error: no store at \/nonexistent\/store\.db: start one with `npm start`/);
    assert.equal((await exit(['get', '--help'])).code, 0);
    assert.equal((await exit(['--version'])).code, 0);
  });

  it('cloud check --os-cloud NAME finds the clouds.yaml OS_CLIENT_CONFIG_FILE names, and lists what it searched', async () => {
    await assert.rejects(
      cli(['cloud', 'check', '--os-cloud', 'emulator'], { OS_CLIENT_CONFIG_FILE: '/nonexistent/clouds.yaml' }),
      (e: unknown) => {
        assert.match(
          (e as { stderr: string }).stderr,
          /OS_CLIENT_CONFIG_FILE: \/nonexistent\/clouds\.yaml does not exist/,
        );
        return true;
      },
    );
    await assert.rejects(cli(['cloud', 'check', '--os-cloud', 'emulator']), (e: unknown) => {
      assert.match(
        (e as { stderr: string }).stderr,
        /no cloud named "emulator" in any clouds\.yaml; searched .*clouds\.yaml, \/nonexistent\/\.config\/openstack\/clouds\.yaml, \/etc\/openstack\/clouds\.yaml/,
      );
      return true;
    });
  });
});
