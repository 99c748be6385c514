import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

async function run(...args: string[]): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const program = new Command('openregion').exitOverride();
  for (const c of kubeCommands({ write: (t: string) => (out += t) }, { write: (t: string) => (err += t) }))
    program.addCommand(c);
  await program.parseAsync(['node', 'openregion', ...args, '--store', join(dir, 'store.db')]);
  return { out, err };
}

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
      'customresourcedefinitions.apiextensions.k8s.io/gizmos.cli.openregion.dev serverside-applied\ngizmos.cli.openregion.dev/one serverside-applied\n',
    );
    const got = parse((await run('get', 'gz', 'one', '-o', 'yaml')).out) as {
      spec: { size: number };
      metadata: { managedFields: { manager: string }[] };
    };
    assert.equal(got.spec.size, 3);
    assert.equal(got.metadata.managedFields[0]?.manager, 'openregion-cli');
    const listed = await run('get', 'gizmos');
    assert.match(listed.out, /^NAMESPACE\s+NAME\s+AGE\ndefault\s+one\s+\d+s\n$/);
    assert.equal((await run('delete', 'Gizmo', 'one')).out, 'gizmos.cli.openregion.dev "one" deleted\n');
    const missing = await run('get', 'gizmo', 'one');
    assert.match(missing.err, /NotFound/);
    assert.equal(process.exitCode, 1);
  });

  it('names an unknown kind', async () => {
    const r = await run('get', 'nonesuch');
    assert.match(r.err, /doesn't have a resource type "nonesuch"/);
  });
});
