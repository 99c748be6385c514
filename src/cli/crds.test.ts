import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { keystoneCrds } from '../keystone/apis/index.ts';
import {
  estimateSchemaCosts,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from '../kube/schema/cel-cost.ts';
import type { CrdSpec } from '../kube/schema/types.ts';
import { regionKinds } from '../region/apis/index.ts';
import { allCrds, CRDS_HEADER, crdsCommand, renderCrds } from './crds.ts';

const committed = fileURLToPath(new URL('../../deploy/crds/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'openregion-crds-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<string> {
  let out = '';
  const program = new Command('openregion').exitOverride();
  program.addCommand(crdsCommand({ write: (t: string) => (out += t) }));
  await program.parseAsync(['node', 'openregion', 'crds', ...args]);
  return out;
}

describe('openregion crds', () => {
  it('prints every CRD as one YAML stream', async () => {
    const docs = parseAllDocuments(await run()).map((d) => d.toJS() as { metadata: { name: string } });
    assert.deepEqual(
      docs.map((d) => d.metadata.name),
      [...regionKinds.map((k) => `${k.type.plural}.${k.type.group}`), ...keystoneCrds().map((c) => c.metadata.name)],
    );
  });

  it("names files <group>_<plural>.yaml, the Keystone operator's included", () => {
    const names = [...renderCrds().keys()];
    assert.equal(names.length, regionKinds.length + keystoneCrds().length);
    for (const name of ['c5c3.io_keystoneusers.yaml', 'c5c3.io_controlplanes.yaml'])
      assert.ok(names.includes(name), name);
  });

  it("holds openregion's own kinds only: never a K-ORC or ESO CRD, which a cluster running them already has", () => {
    const foreign = /^(openstack\.k-orc\.cloud|external-secrets\.io)_/;
    assert.deepEqual(
      [...renderCrds().keys()].filter((n) => foreign.test(n)),
      [],
    );
    assert.deepEqual(
      readdirSync(committed).filter((n) => foreign.test(n)),
      [],
    );
  });

  it('writes one file per kind with --out, and removes only the files it wrote for kinds it no longer generates', async () => {
    writeFileSync(join(dir, 'external-secrets.io_pushsecrets.yaml'), `${CRDS_HEADER}kind: CustomResourceDefinition\n`);
    writeFileSync(join(dir, 'someone-elses.yaml'), 'kind: ConfigMap\n');
    await run('--out', dir);
    assert.deepEqual(readdirSync(dir).sort(), [...renderCrds().keys(), 'someone-elses.yaml'].sort());
  });

  it('deploy/crds is up to date with the schemas (regenerate: openregion crds --out deploy/crds)', () => {
    const expected = renderCrds();
    const present = readdirSync(committed).filter((f) => f.endsWith('.yaml'));
    assert.deepEqual(present.sort(), [...expected.keys()].sort(), 'stale or missing files in deploy/crds');
    for (const [name, text] of expected) assert.equal(readFileSync(join(committed, name), 'utf8'), text, name);
  });

  describe('CEL cost on Kubernetes 1.25+ (only 1.20 runs here, which ignores CEL)', () => {
    for (const crd of allCrds()) {
      const spec = crd.spec as CrdSpec;
      for (const version of spec.versions) {
        const schema = version.schema?.openAPIV3Schema;
        if (schema === undefined) continue;
        it(`${crd.metadata.name} ${version.name}: every rule within budget, no unbounded list or string walked`, () => {
          const costs = estimateSchemaCosts(schema);
          const over = costs.filter((c) => c.total > STATIC_ESTIMATED_COST_LIMIT);
          assert.deepEqual(
            over.map((c) => `${c.path}: ${c.rule} costs ${String(c.cost)} x ${String(c.cardinality)}`),
            [],
            `over the per-rule limit of ${String(STATIC_ESTIMATED_COST_LIMIT)}`,
          );
          const total = costs.reduce((sum, c) => sum + c.total, 0);
          assert.ok(total <= STATIC_ESTIMATED_CRD_COST_LIMIT, `total ${String(total)} over the per-CRD limit`);
          const unbounded = costs.flatMap((c) => c.unbounded.map((node) => `${c.path}: ${c.rule} walks ${node}`));
          assert.deepEqual(unbounded, [], 'give these maxItems, maxProperties or maxLength');
        });
      }
    }
  });
});
