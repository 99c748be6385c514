import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { Command } from 'commander';
import { parse } from 'yaml';
import { kubeCommands } from './kube.ts';

const dir = mkdtempSync(join(tmpdir(), 'openregion-apply-'));
const store = join(dir, 'store.db');
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
});

async function run(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  const program = new Command('openregion').exitOverride();
  for (const c of kubeCommands({ write: (t: string) => (out += t) }, { write: (t: string) => (err += t) }))
    program.addCommand(c);
  await program.parseAsync(['node', 'openregion', ...args, '--store', store]);
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { out, err, code };
}

const configMap = (name: string, value: string, namespace = '') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}${namespace === '' ? '' : `, namespace: ${namespace}`}}\ndata: {k: ${value}}\n`;

function write(path: string, text: string): string {
  const file = join(dir, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const dataOf = async (name: string, namespace = 'default') =>
  (parse((await run('get', 'configmap', name, '-n', namespace, '-o', 'yaml')).out) as { data?: { k: string } } | null)
    ?.data?.k;

describe('openregion apply', () => {
  it('says created, unchanged and configured as kubectl apply does', async () => {
    const file = write('one.yaml', configMap('one', 'a'));
    assert.equal((await run('apply', '-f', file)).out, 'configmap/one created\n');
    assert.equal((await run('apply', '-f', file)).out, 'configmap/one unchanged\n');
    write('one.yaml', configMap('one', 'b'));
    assert.equal((await run('apply', '-f', file)).out, 'configmap/one configured\n');
    assert.equal(await dataOf('one'), 'b');
  });

  it('--dry-run=client and --dry-run=server write nothing, and say so as kubectl does', async () => {
    const fresh = write('dry.yaml', configMap('dry', 'a'));
    assert.equal((await run('apply', '-f', fresh, '--dry-run=client')).out, 'configmap/dry created (dry run)\n');
    assert.equal((await run('apply', '-f', fresh, '--dry-run=server')).out, 'configmap/dry created (server dry run)\n');
    assert.equal(
      (await run('apply', '-f', fresh, '--server-side', '--dry-run=server')).out,
      'configmap/dry serverside-applied (server dry run)\n',
    );
    assert.match((await run('get', 'configmap', 'dry')).err, /NotFound/);
    const changed = write('one-changed.yaml', configMap('one', 'c'));
    assert.equal(
      (await run('apply', '-f', changed, '--dry-run=server')).out,
      'configmap/one configured (server dry run)\n',
    );
    assert.equal((await run('apply', '-f', changed, '--dry-run')).out, 'configmap/one configured (dry run)\n');
    assert.equal(await dataOf('one'), 'b', 'unchanged by the dry runs');
  });

  it('a server dry run still validates: a bad object is refused as the real apply would refuse it', async () => {
    const bad = write('bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Not_A_Name}\n');
    const r = await run('apply', '-f', bad, '--dry-run=server');
    assert.match(r.err, /^Error from server \(Invalid\): /);
    assert.equal(r.code, 3);
  });

  it('reads a directory’s manifests in name order, its subdirectories only with -R, and a List’s items', async () => {
    write('tree/b.yaml', configMap('tree-b', 'x'));
    write('tree/a.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [parse(configMap('tree-a', 'x'))] }));
    write('tree/notes.txt', 'not a manifest');
    write('tree/sub/c.yml', configMap('tree-c', 'x'));
    const tree = join(dir, 'tree');
    assert.equal(
      (await run('apply', '-f', tree, '--dry-run=client')).out,
      'configmap/tree-a created (dry run)\nconfigmap/tree-b created (dry run)\n',
    );
    assert.equal(
      (await run('apply', '-R', '-f', tree, '--dry-run=client')).out,
      'configmap/tree-a created (dry run)\nconfigmap/tree-b created (dry run)\nconfigmap/tree-c created (dry run)\n',
    );
  });

  it('-f more than once applies each in turn', async () => {
    const [x, y] = [write('x.yaml', configMap('x', '1')), write('y.yaml', configMap('y', '1'))];
    assert.equal((await run('apply', '-f', x, '-f', y)).out, 'configmap/x created\nconfigmap/y created\n');
  });

  it('-k builds a kustomization: resources (nested), namespace, prefix and suffix, labels and annotations', async () => {
    write('kz/base/kustomization.yaml', 'resources: [cm.yaml]\nnamePrefix: base-\n');
    write('kz/base/cm.yaml', configMap('settings', 'k'));
    write('kz/ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kz-team}\n');
    write(
      'kz/kustomization.yaml',
      'namespace: kz-team\nnamePrefix: p-\nnameSuffix: -s\ncommonLabels: {team: a}\ncommonAnnotations: {note: x}\nresources: [base, ns.yaml]\n',
    );
    const r = await run('apply', '-k', join(dir, 'kz'));
    assert.equal(r.out, 'namespace/kz-team created\nconfigmap/p-base-settings-s created\n', r.err);
    const got = parse((await run('get', 'configmap', 'p-base-settings-s', '-n', 'kz-team', '-o', 'yaml')).out) as {
      metadata: { labels: object; annotations: object };
    };
    assert.deepEqual(got.metadata.labels, { team: 'a' });
    assert.deepEqual(got.metadata.annotations, { note: 'x' });
  });

  it('-k refuses a kustomization field it does not support by name, rather than ignore it', async () => {
    write('kz-patch/kustomization.yaml', 'resources: []\npatches: [{path: p.yaml}]\n');
    const r = await run('apply', '-k', join(dir, 'kz-patch'));
    assert.match(
      r.err,
      /^error: .*kustomization\.yaml: "patches" is not supported by apply -k .* kubectl kustomize .* \| openregion apply -f -\n$/,
    );
    assert.equal(r.code, 3);
  });

  it('--server-side: another manager’s field is a conflict (exit 3) unless --force-conflicts', async () => {
    const file = write('ssa.yaml', configMap('ssa', 'mine'));
    assert.equal((await run('apply', '--server-side', '-f', file)).out, 'configmap/ssa serverside-applied\n');
    write('ssa.yaml', configMap('ssa', 'theirs'));
    const refused = await run('apply', '--server-side', '--field-manager', 'other', '-f', file);
    assert.match(
      refused.err,
      /^Error from server \(Conflict\): Apply failed with 1 conflict: conflict with "openregion-cli"/,
    );
    assert.equal(refused.code, 3);
    const forced = await run('apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', file);
    assert.equal(forced.out, 'configmap/ssa serverside-applied\n');
    assert.equal(await dataOf('ssa'), 'theirs');
  });

  it('refuses what kubectl refuses, as a usage error (exit 2)', async () => {
    const file = write('u.yaml', configMap('u', '1'));
    const cases: [string[], string][] = [
      [['apply'], 'error: must specify one of -f and -k\n'],
      [['apply', '-f', file, '-k', dir], 'error: only one of -f or -k can be specified\n'],
      [['apply', '-f', file, '--force-conflicts'], 'error: --force-conflicts only works with --server-side\n'],
      [
        ['apply', '-f', file, '--server-side', '--dry-run=client'],
        "error: --dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)\n",
      ],
      [
        ['apply', '-f', file, '--dry-run=maybe'],
        'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".\n',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
      assert.deepEqual([r.err, r.code], [message, 2], args.join(' '));
    }
  });

  it('refuses an object whose namespace is not the one -n names', async () => {
    const file = write('ns-mismatch.yaml', configMap('m', '1', 'elsewhere'));
    const r = await run('apply', '-f', file, '-n', 'default');
    assert.match(r.err, /the namespace from the provided object "elsewhere" does not match the namespace "default"/);
    assert.equal(r.code, 3);
  });
});
