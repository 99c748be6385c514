/**
 * What a kubectl user types on the first day, against a store holding openregion's real CRDs (deploy/crds): the
 * CRDs' short names, categories and priority columns, TYPE/NAME and TYPE.GROUP/NAME wherever a kind and name are
 * taken (so `get -o name | xargs describe` works), several kinds, `all`, display names, `delete`'s kubectl flags and
 * `get events`' columns.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { completions } from './complete.ts';
import { allCrds } from './crds.ts';
import { describeCommand } from './describe.ts';
import { apiResourcesCommand, explainCommand } from './discovery.ts';
import { labels as regionLabels } from '../region/apis/shared.ts';
import { kubeCommands } from './kube.ts';
import { DISPLAY_NAME_LABEL } from './resources.ts';
import { waitCommand } from './wait.ts';

const dir = mkdtempSync(join(tmpdir(), 'openregion-idioms-'));
const store = join(dir, 'store.db');
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
});

async function runWith(stdin: string, ...args: string[]): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const o = { write: (t: string) => (out += t) };
  const e = { write: (t: string) => (err += t) };
  const program = new Command('openregion').exitOverride();
  for (const c of [
    ...kubeCommands(o, e, () => Promise.resolve(stdin)),
    describeCommand(o, e),
    waitCommand(o, e),
    apiResourcesCommand(o, e),
    explainCommand(o, e),
  ]) {
    program.addCommand(c.exitOverride());
  }
  await program.parseAsync(['node', 'openregion', ...args, '--store', store]);
  return { out, err };
}
const run = (...args: string[]) => runWith('', ...args);

const NET_A = 'a1b2c3d4-0000-4000-8000-00000000000a';
const NET_B = 'a1b2c3d4-0000-4000-8000-00000000000b';
const SG = 'a1b2c3d4-0000-4000-8000-00000000000c';
const labels = (name: string) => ({
  'unikorn-cloud.org/name': name,
  'unikorn-cloud.org/organization': 'org-1',
  'unikorn-cloud.org/project': 'proj-1',
});
const network = (name: string, display: string) => ({
  apiVersion: 'region.unikorn-cloud.org/v1alpha1',
  kind: 'Network',
  metadata: { name, labels: labels(display) },
  spec: { prefix: '192.168.0.0/24', dnsNameservers: ['8.8.8.8'] },
});
const objects = [
  network(NET_A, 'web-net'),
  network(NET_B, 'db-net'),
  {
    apiVersion: 'region.unikorn-cloud.org/v1alpha1',
    kind: 'SecurityGroup',
    metadata: { name: SG, labels: labels('web-sg') },
    spec: { rules: [{ direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' }] },
  },
];
const yamlOf = (docs: readonly unknown[]) => docs.map((d) => `---\n${stringify(d)}`).join('');

before(async () => {
  writeFileSync(join(dir, 'crds.yaml'), yamlOf(allCrds()));
  writeFileSync(join(dir, 'objects.yaml'), yamlOf(objects));
  await run('apply', '-f', join(dir, 'crds.yaml'));
  const applied = await run('apply', '-f', join(dir, 'objects.yaml'));
  assert.equal(applied.err, '');
});

const rowNames = (table: string) =>
  table
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('NAME') && line !== '')
    .map((line) => line.split(/\s+/)[0]);

describe('kubectl idioms on the real CRDs', () => {
  it('get -o name prints TYPE.GROUP/NAME, and get, describe and wait take it back (xargs describe)', async () => {
    const names = (await run('get', 'networks', '-o', 'name')).out.trim().split('\n');
    assert.deepEqual(names, [`network.region.unikorn-cloud.org/${NET_A}`, `network.region.unikorn-cloud.org/${NET_B}`]);
    const described = await run('describe', ...names);
    assert.equal(described.err, '');
    assert.equal(described.out.match(/^Name: /gm)?.length, 2);
    assert.match(described.out, new RegExp(`Name:\\s+${NET_A}`));
    assert.match(described.out, new RegExp(`Name:\\s+${NET_B}`));
    const got = await run('get', `network/${NET_A}`, `securitygroup.region.unikorn-cloud.org/${SG}`, '-o', 'name');
    assert.equal(got.out, `network.region.unikorn-cloud.org/${NET_A}\nsecuritygroup.region.unikorn-cloud.org/${SG}\n`);
    const one = parse((await run('get', `net/${NET_A}`, '-o', 'yaml')).out) as { kind: string };
    assert.equal(one.kind, 'Network', 'TYPE/NAME of one object is that object, not a List');
    const waited = await run('wait', `network.region.unikorn-cloud.org/${NET_A}`, '--for', 'jsonpath={.spec.prefix}');
    assert.match(waited.out, /condition met/);
    assert.equal(process.exitCode, undefined);
  });

  it('refuses a TYPE beside TYPE/NAME, as kubectl does', async () => {
    const r = await run('get', 'networks', `network/${NET_A}`);
    assert.match(r.err, /no need to specify a resource type as a separate argument/);
    assert.equal(process.exitCode, 2);
  });

  it('get takes several names, several kinds (comma list), short names, all and the unikorn category', async () => {
    assert.deepEqual(rowNames((await run('get', 'net', NET_B, NET_A)).out), [NET_B, NET_A]);
    const several = (await run('get', 'networks,sg')).out;
    assert.deepEqual(rowNames(several), [
      `network.region.unikorn-cloud.org/${NET_A}`,
      `network.region.unikorn-cloud.org/${NET_B}`,
      `securitygroup.region.unikorn-cloud.org/${SG}`,
    ]);
    assert.equal(several.split('\n\n').length, 2, 'a table per kind, a blank line apart');
    assert.deepEqual(rowNames((await run('get', 'all')).out), rowNames(several));
    assert.deepEqual(rowNames((await run('get', 'unikorn')).out), rowNames(several));
    assert.deepEqual(rowNames((await run('get', 'sg')).out), [SG], 'one kind shown: plain names');
    const list = parse((await run('get', 'net,sg', '-o', 'yaml')).out) as { kind: string; items: unknown[] };
    assert.equal(list.kind, 'List');
    assert.equal(list.items.length, 3);
  });

  it('the CRDs declare the short names, categories and priority columns (real kubectl reads the same)', () => {
    const crd = allCrds().find((c) => c.metadata.name === 'servers.region.unikorn-cloud.org');
    const spec = crd?.['spec'] as {
      names: { shortNames: string[]; categories: string[] };
      versions: { additionalPrinterColumns: { name: string; priority?: number }[] }[];
    };
    assert.deepEqual(spec.names.shortNames, ['srv']);
    assert.deepEqual(spec.names.categories, ['unikorn', 'all']);
    const wideOnly = spec.versions[0]?.additionalPrinterColumns.filter((c) => c.priority === 1).map((c) => c.name);
    assert.deepEqual(wideOnly, ['Organization', 'Project']);
  });

  it('-o wide adds the priority-1 columns', async () => {
    const plain = (await run('get', 'sg')).out;
    const wide = (await run('get', 'sg', '-o', 'wide')).out;
    assert.doesNotMatch(plain, /ORGANIZATION/);
    assert.match(wide, /^NAME\s+DISPLAY NAME\s+ORGANIZATION\s+PROJECT\s+STATUS\s+AGE\n/);
    assert.match(wide, new RegExp(`^${SG}\\s+web-sg\\s+org-1\\s+proj-1\\s+\\d+s\\n`, 'm'));
  });

  it('display names: -l unikorn-cloud.org/name=NAME and --display-name on get and describe, and completed', async () => {
    assert.deepEqual(rowNames((await run('get', 'networks', '-l', 'unikorn-cloud.org/name=web-net')).out), [NET_A]);
    assert.deepEqual(rowNames((await run('get', 'networks', '--display-name', 'db-net')).out), [NET_B]);
    const described = await run('describe', 'networks', '--display-name', 'web-net');
    assert.match(described.out, new RegExp(`^Name:\\s+${NET_A}\\n`));
    assert.equal(described.out.match(/^Name: /gm)?.length, 1);
    const completed = await completions(['get', 'networks', '--display-name', ''], { OPENREGION_STORE: store });
    assert.deepEqual(completed, ['db-net', 'web-net']);
    const byDisplayName = await run('get', 'network', 'web-net');
    assert.match(byDisplayName.err, /NotFound/);
    assert.match(
      byDisplayName.err,
      new RegExp(
        `^hint: "web-net" is the display name of network\\.region\\.unikorn-cloud\\.org/${NET_A}: ask with --display-name web-net`,
        'm',
      ),
    );
    assert.equal(process.exitCode, 1);
    process.exitCode = undefined;
    assert.doesNotMatch((await run('get', 'network', 'nobody')).err, /hint/);
    process.exitCode = undefined;
    const refused = await run('get', 'networks', NET_A, '--display-name', 'web-net');
    assert.match(refused.err, /cannot be combined with names/);
  });

  it('get --no-headers prints the rows alone, for tables and custom columns', async () => {
    const rows = (await run('get', 'networks', '--no-headers')).out.trim().split('\n');
    assert.deepEqual(
      rows.map((line) => line.split(/\s+/)[0]),
      [NET_A, NET_B],
    );
    const custom = await run('get', 'networks', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name');
    assert.deepEqual(custom.out.trim().split('\n'), [NET_A, NET_B]);
  });

  it('wait takes -l, --display-name and --all, as kubectl wait does', async () => {
    const met = (out: string) =>
      out
        .split('\n')
        .filter((line) => line.endsWith('condition met'))
        .sort();
    const forPrefix = ['--for', 'jsonpath={.spec.prefix}'];
    const byLabel = await run('wait', 'networks', '-l', 'unikorn-cloud.org/name=web-net', ...forPrefix);
    assert.deepEqual(met(byLabel.out), [`network.region.unikorn-cloud.org/${NET_A} condition met`]);
    const byDisplayName = await run('wait', 'net', '--display-name', 'db-net', ...forPrefix);
    assert.deepEqual(met(byDisplayName.out), [`network.region.unikorn-cloud.org/${NET_B} condition met`]);
    const all = await run('wait', 'networks', '--all', ...forPrefix);
    assert.equal(met(all.out).length, 2);
    assert.equal(process.exitCode, undefined);
    const none = await run('wait', 'networks', '-l', 'unikorn-cloud.org/name=nobody', ...forPrefix);
    assert.match(none.err, /no matching resources found/);
    assert.equal(process.exitCode, 1);
    process.exitCode = undefined;
    const goneAlready = await run('wait', 'networks', '-l', 'unikorn-cloud.org/name=nobody', '--for', 'delete');
    assert.equal(goneAlready.err, '');
    const both = await run('wait', 'networks', NET_A, '--all', ...forPrefix);
    assert.match(both.err, /names cannot be provided when a selector/);
  });

  it("get events prints kubectl's columns: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE", async () => {
    const at = new Date(Date.now() - 90_000).toISOString();
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${NET_A}.1`, namespace: 'default' },
      involvedObject: { kind: 'Network', name: NET_A, apiVersion: 'region.unikorn-cloud.org/v1alpha1' },
      type: 'Normal',
      reason: 'Provisioned',
      message: 'the network is ready',
      count: 2,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: 'region-controller' },
    };
    await runWith(yamlOf([event]), 'apply', '-f', '-');
    const events = (await run('get', 'events')).out;
    assert.match(events, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    assert.match(
      events,
      new RegExp(`^\\d+s\\s+Normal\\s+Provisioned\\s+network/${NET_A}\\s+the network is ready$`, 'm'),
    );
    const wide = (await run('get', 'ev', '-o', 'wide')).out;
    assert.match(
      wide,
      /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME\n/,
    );
    assert.match(wide, /region-controller\s+the network is ready\s+\d+s\s+2\s+\S+\.1$/m);
    const all = (await run('get', 'events', '-A')).out;
    assert.match(all, /^NAMESPACE\s+LAST SEEN\s+TYPE/);
  });

  it("--display-name's label is the region API's display-name label", () => {
    assert.equal(DISPLAY_NAME_LABEL, regionLabels.name);
  });

  it('describe takes a name prefix, as kubectl describe does', async () => {
    const described = await run('describe', 'network', 'a1b2c3d4-0000-4000-8000-00000000000');
    assert.equal(described.out.match(/^Name: /gm)?.length, 2);
  });

  it('api-resources lists the kinds with their short names; explain reads the CRD schema', async () => {
    const resources = (await run('api-resources')).out;
    assert.match(resources, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\n/);
    assert.match(resources, /^servers\s+srv\s+region\.unikorn-cloud\.org\/v1alpha1\s+true\s+Server$/m);
    assert.match(resources, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    const wide = (await run('api-resources', '--api-group', 'region.unikorn-cloud.org', '-o', 'wide')).out;
    assert.match(wide, /^networks\s+net\s+\S+\s+true\s+Network\s+\S*list\S*\s+unikorn,all$/m);
    assert.doesNotMatch(wide, /^secrets/m);
    const names = (await run('api-resources', '-o', 'name', '--namespaced=false')).out;
    assert.match(names, /^customresourcedefinitions\.apiextensions\.k8s\.io$/m);
    assert.doesNotMatch(names, /^servers/m);

    const root = (await run('explain', 'servers')).out;
    assert.match(root, /^GROUP:\s+region\.unikorn-cloud\.org\nKIND:\s+Server\nVERSION:\s+v1alpha1\n/);
    assert.match(root, /^ {2}spec\t<Object> -required-$/m);
    assert.match(root, /^ {2}metadata\t<ObjectMeta>/m);
    const field = (await run('explain', 'srv.spec.image')).out;
    assert.match(field, /^FIELD: image <Object>$/m);
    assert.match(field, /^ {2}id\t<string>/m);
    const network = (await run('explain', 'networks.spec')).out;
    assert.match(network, /^ {2}prefix\t<string> -required-$/m);
    assert.match(network, /^ {2}dnsNameservers\t<\[\]string>$/m);
    const missing = await run('explain', 'servers.spec.nonesuch');
    assert.match(missing.err, /field "nonesuch" does not exist in servers\.spec/);
  });
});

describe('delete as kubectl', () => {
  const apply = async (...docs: unknown[]) => {
    writeFileSync(join(dir, 'more.yaml'), yamlOf(docs));
    await run('apply', '-f', join(dir, 'more.yaml'));
  };
  const exists = async (kind: string, name: string) => (await run('get', kind, name, '-o', 'name')).out !== '';

  it('deletes several names, TYPE/NAME, by -l and by --display-name', async () => {
    const [one, two, three, four] = ['01', '02', '03', '04'].map((n) => `d1b2c3d4-0000-4000-8000-0000000000${n}`);
    await apply(
      network(one ?? '', 'x1'),
      network(two ?? '', 'x2'),
      network(three ?? '', 'x3'),
      network(four ?? '', 'x4'),
    );
    const several = await run('delete', 'networks', one ?? '', two ?? '');
    assert.equal(
      several.out,
      `network.region.unikorn-cloud.org "${one ?? ''}" deleted\nnetwork.region.unikorn-cloud.org "${two ?? ''}" deleted\n`,
    );
    assert.equal(await exists('net', one ?? ''), false);
    process.exitCode = undefined;
    assert.match((await run('delete', `network/${three ?? ''}`)).out, /deleted/);
    assert.match((await run('delete', 'net', '--display-name', 'x4')).out, new RegExp(`"${four ?? ''}" deleted`));
    assert.match((await run('delete', 'net', '-l', 'unikorn-cloud.org/name=nobody')).err, /No resources found/);
    const bare = await run('delete', 'net');
    assert.match(bare.err, /no name was specified/);
  });

  it('delete -f FILE and -f - delete what the manifests name; --ignore-not-found', async () => {
    const id = 'e1b2c3d4-0000-4000-8000-000000000001';
    await apply(network(id, 'from-file'));
    const deleted = await run('delete', '-f', join(dir, 'more.yaml'));
    assert.equal(deleted.out, `network.region.unikorn-cloud.org "${id}" deleted\n`);
    await apply(network(id, 'from-stdin'));
    const piped = await runWith(yamlOf([network(id, 'from-stdin')]), 'delete', '-f', '-');
    assert.equal(piped.out, `network.region.unikorn-cloud.org "${id}" deleted\n`);
    const again = await runWith(yamlOf([network(id, 'x')]), 'delete', '-f', '-');
    assert.match(again.err, /NotFound/);
    assert.equal(process.exitCode, 1);
    process.exitCode = undefined;
    const ignored = await runWith(yamlOf([network(id, 'x')]), 'delete', '-f', '-', '--ignore-not-found');
    assert.equal(ignored.err, '');
    assert.equal(process.exitCode, undefined);
  });

  it('waits for finalizers by default; --wait=false returns at once; --cascade takes kubectl values', async () => {
    const id = 'f1b2c3d4-0000-4000-8000-000000000001';
    const held = { ...network(id, 'held'), metadata: { ...network(id, 'held').metadata, finalizers: ['test/hold'] } };
    await apply(held);
    const quick = await run('delete', 'net', id, '--wait=false', '--cascade=orphan');
    assert.match(quick.out, /deleted/);
    assert.equal(await exists('net', id), true, 'still there: its finalizer holds it');
    const waited = await run('delete', 'net', id, '--timeout', '1s');
    assert.match(waited.err, /timed out waiting for the deletion/);
    assert.equal(process.exitCode, 1);
    await assert.rejects(run('delete', 'net', id, '--cascade=sideways'), /"background", "orphan", or "foreground"/);
  });
});
