import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../util/clock.ts';
import { configSearchPath, loadCloudConfig, type CloudConfig, type ConfigSources } from './config.ts';
import { connect } from './connect.ts';
import { ConfigError } from './errors.ts';
import { Transport } from './transport.ts';

const CWD = '/fake/work';
const HOME = '/fake/home';
const CWD_CLOUDS = `${CWD}/clouds.yaml`;
const HOME_CLOUDS = `${HOME}/.config/openstack/clouds.yaml`;
const ETC_CLOUDS = '/etc/openstack/clouds.yaml';
const CWD_SECURE = `${CWD}/secure.yaml`;

type Env = Record<string, string | undefined>;

/** Sources over an in-memory file map: no real file is ever read. */
function sources(files: Readonly<Record<string, string>> = {}, env: Env = {}): ConfigSources {
  return {
    env,
    cwd: CWD,
    home: HOME,
    readFile: (path) => (Object.hasOwn(files, path) ? files[path] : undefined),
  };
}

/** A clouds.yaml in the working directory holding one cloud named `mycloud` with the given body. */
function load(body: string, name = 'mycloud'): CloudConfig {
  return loadCloudConfig(sources({ [CWD_CLOUDS]: `clouds:\n  ${name}:\n${indent(body, 4)}` }), name);
}

function indent(text: string, by: number): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : ' '.repeat(by) + line))
    .join('\n');
}

/** Asserts `fn` throws a ConfigError for exactly `field`, whose message matches `rule`. */
function throwsConfig(fn: () => unknown, field: string, rule: RegExp): ConfigError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError, got ${String(caught)}`);
  assert.equal(caught.field, field);
  assert.match(caught.message, rule);
  assert.equal(caught.code, 'OS_CONFIG');
  return caught;
}

const AUTH_URL = 'https://keystone.example:5000/v3';

describe('loadCloudConfig: auth methods and scopes from clouds.yaml', () => {
  it('reads password auth by user name and user domain name, scoped to a project by id', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  username: alice
  password: s3cret
  user_domain_name: Default
  project_id: p-123
region_name: RegionOne
`);
    assert.deepEqual(config, {
      name: 'mycloud',
      authUrl: AUTH_URL,
      auth: { type: 'password', user: { name: 'alice', domain: { name: 'Default' } }, password: 's3cret' },
      scope: { kind: 'project', project: { id: 'p-123' } },
      region: 'RegionOne',
      interface: 'public',
      endpointOverrides: {},
      tls: { caFile: undefined, insecure: false },
      microversions: { compute: undefined },
    });
  });

  it('reads password auth by user id, which needs no domain', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  project_id: p-1
`);
    assert.deepEqual(config.auth, { type: 'password', user: { id: 'u-1' }, password: 'pw' });
  });

  it('takes a user domain by id over its name', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  username: alice
  password: pw
  user_domain_id: d-9
  user_domain_name: ignored
`);
    assert.deepEqual(config.auth, { type: 'password', user: { name: 'alice', domain: { id: 'd-9' } }, password: 'pw' });
  });

  it('scopes to a project by name and its domain name', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  project_name: ops
  project_domain_name: Corp
`);
    assert.deepEqual(config.scope, { kind: 'project', project: { name: 'ops', domain: { name: 'Corp' } } });
  });

  it('scopes to a project by name and its domain id', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  project_name: ops
  project_domain_id: d-7
`);
    assert.deepEqual(config.scope, { kind: 'project', project: { name: 'ops', domain: { id: 'd-7' } } });
  });

  it('scopes to a domain by name or by id', () => {
    const byName = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  domain_name: Corp
`);
    assert.deepEqual(byName.scope, { kind: 'domain', domain: { name: 'Corp' } });
    const byID = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  domain_id: d-1
`);
    assert.deepEqual(byID.scope, { kind: 'domain', domain: { id: 'd-1' } });
  });

  it('scopes to the system', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  system_scope: all
`);
    assert.deepEqual(config.scope, { kind: 'system' });
  });

  it('is unscoped when no project, domain or system is named', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
`);
    assert.deepEqual(config.scope, { kind: 'unscoped' });
  });

  it('reads an application credential by id; its scope is unscoped, the credential carries it', () => {
    const config = load(`auth_type: v3applicationcredential
auth:
  auth_url: ${AUTH_URL}
  application_credential_id: ac-1
  application_credential_secret: shh
  project_id: p-ignored
`);
    assert.deepEqual(config.auth, { type: 'application_credential', id: 'ac-1', secret: 'shh' });
    assert.deepEqual(config.scope, { kind: 'unscoped' });
  });

  it('reads an application credential by name and user, inferring the auth type from the secret', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  application_credential_name: deployer
  application_credential_secret: shh
  username: alice
  user_domain_name: Default
`);
    assert.deepEqual(config.auth, {
      type: 'application_credential',
      name: 'deployer',
      user: { name: 'alice', domain: { name: 'Default' } },
      secret: 'shh',
    });
    assert.deepEqual(config.scope, { kind: 'unscoped' });
  });

  it('reads token auth, explicit or inferred from a token without a password', () => {
    const explicit = load(`auth_type: v3token
auth:
  auth_url: ${AUTH_URL}
  token: gAAAA
  project_id: p-1
`);
    assert.deepEqual(explicit.auth, { type: 'token', token: 'gAAAA' });
    assert.deepEqual(explicit.scope, { kind: 'project', project: { id: 'p-1' } });
    const inferred = load(`auth:
  auth_url: ${AUTH_URL}
  token: gAAAA
`);
    assert.deepEqual(inferred.auth, { type: 'token', token: 'gAAAA' });
  });

  it('fills missing user and project domains from default_domain, as an id', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  username: alice
  password: pw
  project_name: ops
  default_domain: default
`);
    assert.deepEqual(config.auth, {
      type: 'password',
      user: { name: 'alice', domain: { id: 'default' } },
      password: 'pw',
    });
    assert.deepEqual(config.scope, { kind: 'project', project: { name: 'ops', domain: { id: 'default' } } });
  });

  it('lets an explicit user or project domain beat default_domain', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  username: alice
  password: pw
  user_domain_name: Users
  project_name: ops
  project_domain_id: d-ops
  default_domain: default
`);
    assert.deepEqual(config.auth, {
      type: 'password',
      user: { name: 'alice', domain: { name: 'Users' } },
      password: 'pw',
    });
    assert.deepEqual(config.scope, { kind: 'project', project: { name: 'ops', domain: { id: 'd-ops' } } });
  });

  it('reads the legacy tenant_name and tenant_id', () => {
    const byName = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  tenant_name: legacy
  project_domain_name: Default
`);
    assert.deepEqual(byName.scope, { kind: 'project', project: { name: 'legacy', domain: { name: 'Default' } } });
    const byID = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
  tenant_id: t-1
`);
    assert.deepEqual(byID.scope, { kind: 'project', project: { id: 't-1' } });
  });

  it('reads interface, TLS settings, compute microversion and endpoint overrides', () => {
    const config = load(`auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
interface: internal
cacert: /fake/ca.pem
compute_api_version: '2.90'
compute_endpoint_override: https://nova.example/v2.1
volumev3_endpoint_override: https://cinder.example/v3/%(project_id)s
some_unknown_key: ignored
`);
    assert.equal(config.interface, 'internal');
    assert.deepEqual(config.tls, { caFile: '/fake/ca.pem', insecure: false });
    assert.deepEqual(config.microversions, { compute: '2.90' });
    assert.deepEqual(config.endpointOverrides, {
      compute: 'https://nova.example/v2.1',
      'block-storage': 'https://cinder.example/v3/%(project_id)s',
    });
  });

  it('turns verify: false and insecure: true into tls.insecure', () => {
    const base = `auth:
  auth_url: ${AUTH_URL}
  user_id: u-1
  password: pw
`;
    assert.equal(load(`${base}verify: false\n`).tls.insecure, true);
    assert.equal(load(`${base}insecure: true\n`).tls.insecure, true);
    assert.equal(load(`${base}verify: true\n`).tls.insecure, false);
    assert.equal(load(`${base}insecure: false\n`).tls.insecure, false);
  });
});

describe('loadCloudConfig: finding clouds.yaml', () => {
  const cloud = (region: string) => `clouds:
  mycloud:
    region_name: ${region}
    auth:
      auth_url: ${AUTH_URL}
      user_id: u-1
      password: pw
`;

  it('searches the working directory, then ~/.config/openstack, then /etc/openstack', () => {
    assert.deepEqual(configSearchPath({ cwd: CWD, home: HOME }, 'clouds.yaml'), [CWD_CLOUDS, HOME_CLOUDS, ETC_CLOUDS]);
    const all = { [CWD_CLOUDS]: cloud('cwd'), [HOME_CLOUDS]: cloud('home'), [ETC_CLOUDS]: cloud('etc') };
    assert.equal(loadCloudConfig(sources(all), 'mycloud').region, 'cwd');
    const noCwd = { [HOME_CLOUDS]: cloud('home'), [ETC_CLOUDS]: cloud('etc') };
    assert.equal(loadCloudConfig(sources(noCwd), 'mycloud').region, 'home');
    assert.equal(loadCloudConfig(sources({ [ETC_CLOUDS]: cloud('etc') }), 'mycloud').region, 'etc');
  });

  it('uses only the first clouds.yaml found: clouds in later files are not merged in', () => {
    const files = {
      [CWD_CLOUDS]: cloud('cwd'),
      [ETC_CLOUDS]: `clouds:\n  other:\n    auth: {auth_url: ${AUTH_URL}, user_id: u, password: p}\n`,
    };
    throwsConfig(() => loadCloudConfig(sources(files), 'other'), 'OS_CLOUD', /no cloud named "other"/);
  });

  it('reads OS_CLIENT_CONFIG_FILE instead of the search path', () => {
    const files = { [CWD_CLOUDS]: cloud('cwd'), '/fake/elsewhere.yaml': cloud('explicit') };
    const env = { OS_CLIENT_CONFIG_FILE: '/fake/elsewhere.yaml' };
    assert.equal(loadCloudConfig(sources(files, env), 'mycloud').region, 'explicit');
  });

  it('fails clearly when OS_CLIENT_CONFIG_FILE names a missing file, even if the search path has one', () => {
    const env = { OS_CLIENT_CONFIG_FILE: '/fake/missing.yaml' };
    throwsConfig(
      () => loadCloudConfig(sources({ [CWD_CLOUDS]: cloud('cwd') }, env), 'mycloud'),
      'OS_CLIENT_CONFIG_FILE',
      /\/fake\/missing\.yaml does not exist/,
    );
  });

  it('deep-merges secure.yaml over clouds.yaml, so the password may live only in secure.yaml', () => {
    const files = {
      [CWD_CLOUDS]: `clouds:
  mycloud:
    region_name: RegionOne
    auth:
      auth_url: ${AUTH_URL}
      username: alice
      user_domain_name: Default
      project_id: p-1
`,
      [CWD_SECURE]: `clouds:
  mycloud:
    auth:
      password: from-secure
`,
    };
    const config = loadCloudConfig(sources(files), 'mycloud');
    assert.deepEqual(config.auth, {
      type: 'password',
      user: { name: 'alice', domain: { name: 'Default' } },
      password: 'from-secure',
    });
    assert.equal(config.region, 'RegionOne');
    assert.deepEqual(config.scope, { kind: 'project', project: { id: 'p-1' } });
  });

  it('lets secure.yaml values win over clouds.yaml values', () => {
    const files = {
      [CWD_CLOUDS]: cloud('cwd'),
      [`${HOME}/.config/openstack/secure.yaml`]: `clouds:\n  mycloud:\n    auth:\n      password: secure-pw\n`,
    };
    const config = loadCloudConfig(sources(files), 'mycloud');
    assert.deepEqual(config.auth, { type: 'password', user: { id: 'u-1' }, password: 'secure-pw' });
  });

  it('selects the cloud named by OS_CLOUD', () => {
    const files = {
      [CWD_CLOUDS]: `${cloud('one')}  second:\n    region_name: two\n    auth: {auth_url: x, user_id: u, password: p}\n`,
    };
    assert.equal(loadCloudConfig(sources(files, { OS_CLOUD: 'second' })).name, 'second');
    assert.equal(loadCloudConfig(sources(files, { OS_CLOUD: 'second' })).region, 'two');
    assert.equal(loadCloudConfig(sources(files, { OS_CLOUD: 'mycloud' })).region, 'one');
  });

  it('lets an explicit cloud name beat OS_CLOUD', () => {
    const files = {
      [CWD_CLOUDS]: `${cloud('one')}  second:\n    region_name: two\n    auth: {auth_url: x, user_id: u, password: p}\n`,
    };
    const config = loadCloudConfig(sources(files, { OS_CLOUD: 'second' }), 'mycloud');
    assert.equal(config.name, 'mycloud');
    assert.equal(config.region, 'one');
  });

  it('ignores OS_* credential variables once a cloud is named', () => {
    const env = { OS_CLOUD: 'mycloud', OS_REGION_NAME: 'from-env', OS_PASSWORD: 'env-pw' };
    const config = loadCloudConfig(sources({ [CWD_CLOUDS]: cloud('from-file') }, env));
    assert.equal(config.region, 'from-file');
    assert.deepEqual(config.auth, { type: 'password', user: { id: 'u-1' }, password: 'pw' });
  });

  it('names the known clouds when the requested one is unknown', () => {
    const files = { [CWD_CLOUDS]: `${cloud('one')}  second:\n    auth: {auth_url: x}\n` };
    const error = throwsConfig(
      () => loadCloudConfig(sources(files, { OS_CLOUD: 'nope' })),
      'OS_CLOUD',
      /no cloud named "nope" in \/fake\/work\/clouds\.yaml/,
    );
    assert.match(error.message, /known: mycloud, second/);
  });

  it('says so when no clouds.yaml exists at all, and lists every path it searched', () => {
    const error = throwsConfig(
      () => loadCloudConfig(sources({}, { OS_CLOUD: 'nope' })),
      'OS_CLOUD',
      /no cloud named "nope" in any clouds\.yaml; searched /,
    );
    assert.ok(error.message.includes(`searched ${[CWD_CLOUDS, HOME_CLOUDS, ETC_CLOUDS].join(', ')}`), error.message);
  });

  it('with OS_CLIENT_CONFIG_FILE, reads that file and says it searched only that one', () => {
    const path = '/fake/dev/clouds.yaml';
    assert.equal(
      loadCloudConfig(sources({ [path]: cloud('dev') }, { OS_CLIENT_CONFIG_FILE: path }), 'mycloud').region,
      'dev',
    );
    const error = throwsConfig(
      () => loadCloudConfig(sources({ [path]: cloud('dev') }, { OS_CLIENT_CONFIG_FILE: path }), 'emulator'),
      'OS_CLOUD',
      /no cloud named "emulator" in \/fake\/dev\/clouds\.yaml \(known: mycloud\); searched \/fake\/dev\/clouds\.yaml \(/,
    );
    assert.ok(!error.message.includes(CWD_CLOUDS));
  });
});

describe('loadCloudConfig: OS_* environment variables', () => {
  const passwordEnv: Env = {
    OS_AUTH_URL: AUTH_URL,
    OS_USERNAME: 'alice',
    OS_PASSWORD: 'pw',
    OS_USER_DOMAIN_NAME: 'Default',
    OS_PROJECT_NAME: 'ops',
    OS_PROJECT_DOMAIN_ID: 'default',
    OS_REGION_NAME: 'RegionOne',
  };

  it('builds the envvars cloud when no cloud is named, without reading any file', () => {
    const files = { [CWD_CLOUDS]: 'clouds: {mycloud: {region_name: file}}\n' };
    const config = loadCloudConfig(sources(files, { ...passwordEnv, HOME: '/x', PATH: '/bin' }));
    assert.deepEqual(config, {
      name: 'envvars',
      authUrl: AUTH_URL,
      auth: { type: 'password', user: { name: 'alice', domain: { name: 'Default' } }, password: 'pw' },
      scope: { kind: 'project', project: { name: 'ops', domain: { id: 'default' } } },
      region: 'RegionOne',
      interface: 'public',
      endpointOverrides: {},
      tls: { caFile: undefined, insecure: false },
      microversions: { compute: undefined },
    });
  });

  it('reads OS_INTERFACE, and the legacy OS_ENDPOINT_TYPE=internalURL', () => {
    assert.equal(loadCloudConfig(sources({}, { ...passwordEnv, OS_INTERFACE: 'admin' })).interface, 'admin');
    assert.equal(
      loadCloudConfig(sources({}, { ...passwordEnv, OS_ENDPOINT_TYPE: 'internalURL' })).interface,
      'internal',
    );
    const both = { ...passwordEnv, OS_INTERFACE: 'admin', OS_ENDPOINT_TYPE: 'internalURL' };
    assert.equal(loadCloudConfig(sources({}, both)).interface, 'admin');
  });

  it('reads OS_CACERT and OS_INSECURE=true into tls', () => {
    const config = loadCloudConfig(sources({}, { ...passwordEnv, OS_CACERT: '/fake/ca.pem', OS_INSECURE: 'true' }));
    assert.deepEqual(config.tls, { caFile: '/fake/ca.pem', insecure: true });
    assert.equal(loadCloudConfig(sources({}, { ...passwordEnv, OS_INSECURE: 'false' })).tls.insecure, false);
  });

  it('reads an application credential from OS_APPLICATION_CREDENTIAL_ID and _SECRET', () => {
    const env = {
      OS_AUTH_URL: AUTH_URL,
      OS_APPLICATION_CREDENTIAL_ID: 'ac-1',
      OS_APPLICATION_CREDENTIAL_SECRET: 'shh',
    };
    const config = loadCloudConfig(sources({}, env));
    assert.deepEqual(config.auth, { type: 'application_credential', id: 'ac-1', secret: 'shh' });
    assert.deepEqual(config.scope, { kind: 'unscoped' });
  });

  it('reads OS_COMPUTE_API_VERSION and the endpoint overrides', () => {
    const env = {
      ...passwordEnv,
      OS_COMPUTE_API_VERSION: '2.92',
      OS_COMPUTE_ENDPOINT_OVERRIDE: 'https://nova.example/v2.1',
      OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE: 'https://cinder.example/v3',
    };
    const config = loadCloudConfig(sources({}, env));
    assert.deepEqual(config.microversions, { compute: '2.92' });
    assert.deepEqual(config.endpointOverrides, {
      compute: 'https://nova.example/v2.1',
      'block-storage': 'https://cinder.example/v3',
    });
  });

  it('ignores empty variables', () => {
    const env = {
      ...passwordEnv,
      OS_CLOUD: '',
      OS_REGION_NAME: '',
      OS_INTERFACE: '',
      OS_CACERT: '',
      OS_INSECURE: '',
      OS_TOKEN: '',
      OS_PROJECT_ID: '',
      OS_COMPUTE_API_VERSION: '',
      OS_COMPUTE_ENDPOINT_OVERRIDE: '',
    };
    const config = loadCloudConfig(sources({}, env));
    assert.equal(config.name, 'envvars');
    assert.equal(config.region, undefined);
    assert.equal(config.interface, 'public');
    assert.deepEqual(config.tls, { caFile: undefined, insecure: false });
    assert.equal(config.auth.type, 'password');
    assert.deepEqual(config.scope, { kind: 'project', project: { name: 'ops', domain: { id: 'default' } } });
    assert.deepEqual(config.microversions, { compute: undefined });
    assert.deepEqual(config.endpointOverrides, {});
  });

  it('reports a missing OS_AUTH_URL', () => {
    const env = { ...passwordEnv, OS_AUTH_URL: undefined };
    throwsConfig(
      () => loadCloudConfig(sources({}, env)),
      'clouds.envvars.auth.auth_url',
      /is required \(OS_AUTH_URL\)/,
    );
  });

  it('treats every empty OS_* variable exactly as if it were unset', () => {
    const full: Env = {
      ...passwordEnv,
      OS_CLOUD: 'mycloud',
      OS_INTERFACE: 'internal',
      OS_ENDPOINT_TYPE: 'adminURL',
      OS_CACERT: '/fake/ca.pem',
      OS_INSECURE: 'true',
      OS_APPLICATION_CREDENTIAL_ID: 'ac-1',
      OS_APPLICATION_CREDENTIAL_SECRET: 'shh',
      OS_COMPUTE_API_VERSION: '2.91',
      OS_COMPUTE_ENDPOINT_OVERRIDE: 'https://nova.example',
      OS_BLOCK_STORAGE_ENDPOINT_OVERRIDE: 'https://cinder.example',
      OS_VOLUMEV3_ENDPOINT_OVERRIDE: 'https://cinder-v3.example',
      OS_TOKEN: 'tok',
      OS_AUTH_TYPE: 'password',
      OS_DEFAULT_DOMAIN: 'default',
      OS_PROJECT_ID: 'p-1',
      OS_USER_ID: 'u-1',
      OS_DOMAIN_NAME: 'Corp',
      OS_SYSTEM_SCOPE: 'all',
      OS_CLIENT_CONFIG_FILE: '/fake/explicit.yaml',
      OS_CLIENT_SECURE_FILE: '/fake/secure.yaml',
    };
    const files = {
      [CWD_CLOUDS]: `clouds:\n  mycloud:\n    auth: {auth_url: ${AUTH_URL}, user_id: u, password: p}\n`,
      '/fake/explicit.yaml': `clouds:\n  mycloud:\n    region_name: explicit\n    auth: {auth_url: ${AUTH_URL}, user_id: u, password: p}\n`,
      '/fake/secure.yaml': 'clouds:\n  mycloud:\n    auth: {password: secure}\n',
    };
    const names = [...Object.keys(full), 'OS_VERIFY', 'OS_USERNAME', 'OS_TENANT_NAME', 'OS_IDENTITY_API_VERSION'];
    const outcome = (env: Env): unknown => {
      try {
        return { config: loadCloudConfig(sources(files, env)) };
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        return { field: error.field, message: error.message };
      }
    };
    fc.assert(
      fc.property(
        fc.subarray(Object.entries(full)),
        fc.uniqueArray(fc.oneof(fc.constantFrom(...names), fc.stringMatching(/^OS_[A-Z][A-Z_]{0,15}$/)), {
          minLength: 1,
          maxLength: 8,
        }),
        (entries, blanked) => {
          const unset: Env = Object.fromEntries(entries.filter(([name]) => !blanked.includes(name)));
          const empty: Env = { ...unset, ...Object.fromEntries(blanked.map((name) => [name, ''])) };
          assert.deepEqual(outcome(empty), outcome(unset));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('loadCloudConfig: errors name the setting and the rule', () => {
  it('requires auth_url', () => {
    throwsConfig(
      () => load('auth:\n  user_id: u-1\n  password: pw\n'),
      'clouds.mycloud.auth.auth_url',
      /^clouds\.mycloud\.auth\.auth_url: is required/,
    );
    throwsConfig(() => load('region_name: RegionOne\n'), 'clouds.mycloud.auth.auth_url', /is required/);
  });

  it('requires a password for password auth', () => {
    throwsConfig(
      () => load(`auth:\n  auth_url: ${AUTH_URL}\n  user_id: u-1\n`),
      'clouds.mycloud.auth.password',
      /is required for password authentication/,
    );
  });

  it('requires a user id or name for password auth', () => {
    throwsConfig(
      () => load(`auth:\n  auth_url: ${AUTH_URL}\n  password: pw\n`),
      'clouds.mycloud.auth.username',
      /a user id or a user name is required/,
    );
  });

  it('requires a domain for a user named by name', () => {
    throwsConfig(
      () => load(`auth:\n  auth_url: ${AUTH_URL}\n  username: alice\n  password: pw\n`),
      'clouds.mycloud.auth.user_domain_name',
      /a user named by name needs its domain/,
    );
  });

  it('requires a domain for a project named by name', () => {
    throwsConfig(
      () => load(`auth:\n  auth_url: ${AUTH_URL}\n  user_id: u-1\n  password: pw\n  project_name: ops\n`),
      'clouds.mycloud.auth.project_domain_name',
      /a project named by name needs its domain/,
    );
  });

  it('requires an application credential id, or a name', () => {
    throwsConfig(
      () => load(`auth:\n  auth_url: ${AUTH_URL}\n  application_credential_secret: shh\n`),
      'clouds.mycloud.auth.application_credential_id',
      /needs its id, or its name and user/,
    );
    throwsConfig(
      () =>
        load(`auth_type: v3applicationcredential\nauth:\n  auth_url: ${AUTH_URL}\n  application_credential_id: ac\n`),
      'clouds.mycloud.auth.application_credential_secret',
      /is required for application credentials/,
    );
  });

  it('requires the user of an application credential named by name', () => {
    throwsConfig(
      () =>
        load(`auth:\n  auth_url: ${AUTH_URL}\n  application_credential_name: n\n  application_credential_secret: s\n`),
      'clouds.mycloud.auth.username',
      /a user id or a user name is required/,
    );
  });

  it('requires a token for token auth', () => {
    throwsConfig(
      () => load(`auth_type: token\nauth:\n  auth_url: ${AUTH_URL}\n`),
      'clouds.mycloud.auth.token',
      /is required for token authentication/,
    );
  });

  it('refuses an unsupported auth_type, listing the supported ones', () => {
    throwsConfig(
      () => load(`auth_type: v3oidcpassword\nauth:\n  auth_url: ${AUTH_URL}\n`),
      'clouds.mycloud.auth_type',
      /v3oidcpassword is not supported \(password, v3applicationcredential, token\)/,
    );
  });

  it('refuses a value of the wrong type', () => {
    const base = `auth:\n  auth_url: ${AUTH_URL}\n  user_id: u-1\n  password: pw\n`;
    throwsConfig(() => load(`${base}region_name: 5\n`), 'clouds.mycloud.region_name', /must be string/);
    throwsConfig(() => load(`${base}verify: 'no'\n`), 'clouds.mycloud.verify', /must be boolean/);
    throwsConfig(() => load(`${base}interface: internalURL\n`), 'clouds.mycloud.interface', /must/);
    throwsConfig(
      () => load(`auth:\n  auth_url: ${AUTH_URL}\n  user_id: u-1\n  password: 1234\n`),
      'clouds.mycloud.auth.password',
      /must be string/,
    );
    throwsConfig(() => load('auth: [1, 2]\n'), 'clouds.mycloud.auth', /must be object/);
  });

  it('refuses a cloud that is not a mapping', () => {
    throwsConfig(
      () => loadCloudConfig(sources({ [CWD_CLOUDS]: 'clouds:\n  mycloud: just-a-string\n' }), 'mycloud'),
      'clouds.mycloud',
      /must be a mapping/,
    );
  });

  it('refuses invalid YAML, naming the file', () => {
    throwsConfig(
      () => loadCloudConfig(sources({ [CWD_CLOUDS]: 'clouds:\n  mycloud: [unclosed\n' }), 'mycloud'),
      CWD_CLOUDS,
      /is not valid YAML/,
    );
    throwsConfig(
      () =>
        loadCloudConfig(
          sources({ [CWD_CLOUDS]: 'clouds:\n  mycloud: {}\n', [CWD_SECURE]: 'clouds: {: :\n' }),
          'mycloud',
        ),
      CWD_SECURE,
      /is not valid YAML/,
    );
  });

  it('refuses a clouds key that is not a mapping, or missing', () => {
    for (const text of ['clouds: [a, b]\n', 'clouds: hello\n', 'other: {}\n', '']) {
      throwsConfig(
        () => loadCloudConfig(sources({ [CWD_CLOUDS]: text }), 'mycloud'),
        `${CWD_CLOUDS}: clouds`,
        /must be a mapping of cloud names to settings/,
      );
    }
  });

  it('refuses an unquoted compute_api_version, which YAML reads as a number, telling to quote it', () => {
    const base = `auth:\n  auth_url: ${AUTH_URL}\n  user_id: u-1\n  password: pw\n`;
    throwsConfig(
      () => load(`${base}compute_api_version: 2.90\n`),
      'clouds.mycloud.compute_api_version',
      /must be a quoted string \("2\.90"\): YAML read it as the number 2\.9$/,
    );
    throwsConfig(
      () => load(`${base}compute_api_version: 2.5\n`),
      'clouds.mycloud.compute_api_version',
      /YAML read it as the number 2\.5$/,
    );
    assert.deepEqual(load(`${base}compute_api_version: "2.90"\n`).microversions, { compute: '2.90' });
  });
});

describe('connect', () => {
  const transport = new Transport({ clock: new ManualClock(), random: () => 0 });
  after(() => transport.close());
  const clock = new ManualClock();
  const password = `auth:\n  auth_url: ${AUTH_URL}\n  user_id: u-1\n  password: pw\n`;

  it('gives a project-scoped config a Session whose scope is project', () => {
    const session = connect(load(`${password}  project_id: p-1\n`), 'project', transport, clock);
    assert.equal(session.scope, 'project');
  });

  it('counts an application credential as project scope', () => {
    const config = load(
      `auth:\n  auth_url: ${AUTH_URL}\n  application_credential_id: ac-1\n  application_credential_secret: shh\n`,
    );
    assert.equal(connect(config, 'project', transport, clock).scope, 'project');
    throwsConfig(
      () => connect(config, 'unscoped', transport, clock),
      'clouds.mycloud.auth',
      /must give a unscoped scope, not project/,
    );
  });

  it('gives domain and system configs sessions of their own scope', () => {
    assert.equal(connect(load(`${password}  domain_id: d-1\n`), 'domain', transport, clock).scope, 'domain');
    assert.equal(connect(load(`${password}  system_scope: all\n`), 'system', transport, clock).scope, 'system');
  });

  it('refuses a project config where a domain scope is needed', () => {
    throwsConfig(
      () => connect(load(`${password}  project_id: p-1\n`), 'domain', transport, clock),
      'clouds.mycloud.auth',
      /must give a domain scope, not project/,
    );
  });

  it('refuses a compute microversion above 2.92 when the Session is built', () => {
    const config = load(`${password}  project_id: p-1\ncompute_api_version: '2.93'\n`);
    const error = throwsConfig(() => connect(config, 'project', transport, clock), 'compute_api_version', /2\.93/);
    assert.match(error.message, /reimage_boot_volume/);
    assert.equal(
      connect(load(`${password}  project_id: p-1\ncompute_api_version: '2.92'\n`), 'project', transport, clock).scope,
      'project',
    );
  });
});

describe('loadCloudConfig: domain_name as the OpenStack SDK reads it', () => {
  it('fills the user and project domains from domain_name when a project is named, and asks no domain scope', () => {
    const config = loadCloudConfig(
      {
        env: {},
        cwd: '/fake/work',
        home: '/fake/home',
        readFile: (path) =>
          path === '/fake/work/clouds.yaml'
            ? `clouds:\n  c:\n    auth:\n      auth_url: ${AUTH_URL}\n      username: u\n      password: p\n      project_name: demo\n      domain_name: managed\n`
            : undefined,
      },
      'c',
    );
    assert.deepEqual(config.auth, {
      type: 'password',
      user: { name: 'u', domain: { name: 'managed' } },
      password: 'p',
    });
    assert.deepEqual(config.scope, { kind: 'project', project: { name: 'demo', domain: { name: 'managed' } } });
  });
});
