import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { Command } from 'commander';
import { parse } from 'yaml';
import { kubeCommands } from './kube.ts';

const dir = mkdtempSync(join(tmpdir(), 'openregion-cli-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
});

/** Runs a verb as the CLI would, with `stdin` as standard input. */
async function runWith(stdin: string, ...args: string[]): Promise<{ out: string; err: string }> {
  return runOn(join(dir, 'store.db'), stdin, ...args);
}

async function runOn(store: string, stdin: string, ...args: string[]): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const program = new Command('openregion').exitOverride();
  const commands = kubeCommands({ write: (t: string) => (out += t) }, { write: (t: string) => (err += t) }, () =>
    Promise.resolve(stdin),
  );
  for (const c of commands) program.addCommand(c);
  await program.parseAsync(['node', 'openregion', ...args, '--store', store]);
  return { out, err };
}

const run = (...args: string[]) => runWith('', ...args);

const manifest = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.cli.openregion.dev}
spec:
  group: cli.openregion.dev
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, shortNames: [gz]}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: integer, default: 3}}}
---
apiVersion: cli.openregion.dev/v1
kind: Gizmo
metadata: {name: one}
spec: {}
`;

describe('openregion apply/get/delete', () => {
  it('applies a multi-document file, CRD first, then gets and deletes by short name', async () => {
    const file = join(dir, 'm.yaml');
    writeFileSync(file, manifest);
    const applied = await run('apply', '-f', file);
    assert.equal(
      applied.out,
      'customresourcedefinition.apiextensions.k8s.io/gizmos.cli.openregion.dev created\ngizmo.cli.openregion.dev/one created\n',
    );
    const got = parse((await run('get', 'gz', 'one', '-o', 'yaml')).out) as {
      spec: { size: number };
      metadata: { managedFields?: unknown };
    };
    assert.equal(got.spec.size, 3);
    assert.equal(got.metadata.managedFields, undefined, 'managedFields hidden, as kubectl hides them');
    const full = parse((await run('get', 'gz', 'one', '-o', 'yaml', '--show-managed-fields')).out) as {
      metadata: { managedFields: { manager: string }[] };
    };
    assert.equal(full.metadata.managedFields[0]?.manager, 'openregion-cli');
    // kubectl's rule: a list without -n is of the context's namespace (`default` for the store); -A spans them all.
    assert.match((await run('get', 'gizmos')).out, /^NAME\s+AGE\none\s+\d+s\n$/);
    assert.match((await run('get', 'gizmos', '-A')).out, /^NAMESPACE\s+NAME\s+AGE\ndefault\s+one\s+\d+s\n$/);
    assert.equal((await run('get', 'gizmos', '-n', 'elsewhere')).err, 'No resources found in elsewhere namespace.\n');
    assert.equal((await run('delete', 'Gizmo', 'one')).out, 'gizmo.cli.openregion.dev "one" deleted\n');
    const missing = await run('get', 'gizmo', 'one');
    assert.match(missing.err, /NotFound/);
    assert.equal(process.exitCode, 1);
  });

  it('apply -f - reads the manifest from standard input, as kubectl does', async () => {
    const applied = await runWith(manifest.replace('name: one', 'name: piped'), 'apply', '-f', '-');
    assert.match(applied.out, /gizmo\.cli\.openregion\.dev\/piped created\n$/);
    assert.equal(process.exitCode, undefined);
    assert.match((await run('get', 'gizmo', 'piped')).out, /piped/);
  });

  it('bad input is one line naming the problem, exit code by class (usage 2, rejected 3), never a stack trace', async () => {
    const cases: [string, string[], RegExp, number][] = [
      ['', ['apply', '-f', join(dir, 'absent.yaml')], /^error: the path ".*absent\.yaml" does not exist\n$/, 2],
      ['key: [unclosed', ['apply', '-f', '-'], /^error: standard input: .*\n$/, 3],
      [
        'just a string',
        ['apply', '-f', '-'],
        /^error: standard input: not a Kubernetes object \(needs apiVersion, kind and metadata\.name\)\n$/,
        3,
      ],
      [
        'apiVersion: v1\nkind: Secret\nmetadata: {name: ok}\n---\nkind: Secret\n',
        ['apply', '-f', '-'],
        /^error: standard input, document 2: not a Kubernetes object/,
        3,
      ],
      [
        'apiVersion: nowhere/v1\nkind: Thing\nmetadata: {name: x}\n',
        ['apply', '-f', '-'],
        /^error: no matches for kind "Thing" in version "nowhere\/v1"\n$/,
        3,
      ],
    ];
    for (const [stdin, args, expected, code] of cases) {
      process.exitCode = undefined;
      const r = await runWith(stdin, ...args);
      assert.match(r.err, expected, JSON.stringify(stdin));
      assert.equal(r.err.split('\n').length, 2, 'one line');
      assert.equal(process.exitCode, code);
    }
  });

  it('names an unknown kind', async () => {
    const r = await run('get', 'nonesuch');
    assert.match(r.err, /doesn't have a resource type "nonesuch"/);
  });

  it('a read (get, wait, delete) never creates a store: it says there is none and how to start one', async () => {
    const absent = join(dir, 'nothing-here', 'store.db');
    for (const verb of [
      ['get', 'servers'],
      ['delete', 'server', 'x'],
    ]) {
      const r = await runOn(absent, '', ...verb);
      assert.match(r.err, /^error: no store at .*nothing-here\/store\.db: start one with `npm start`/);
      assert.equal(r.err.split('\n').length, 2, 'one line');
      assert.equal(process.exitCode, 4, 'the unreachable class');
    }
    assert.equal(existsSync(join(dir, 'nothing-here')), false);
  });
});
