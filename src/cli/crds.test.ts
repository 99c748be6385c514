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
import { withoutCelRules } from '../kube/crd.ts';
import { allCrds, CRDS_HEADER, crdsCommand, PRE_CEL_FOLDER, renderCrds } from './crds.ts';

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
    assert.ok(names.includes('c5c3.io_keystoneusers.yaml'));
  });

  it("holds none of the c5c3 operator's own CRDs: applied beside that operator they would replace its CRDs", () => {
    const c5c3Owned = ['controlplanes', 'keystoneroleassignments', 'keystoneapplicationcredentials'].map(
      (plural) => `c5c3.io_${plural}.yaml`,
    );
    for (const dir of [committed, join(committed, PRE_CEL_FOLDER)]) {
      assert.deepEqual(
        readdirSync(dir).filter((n) => c5c3Owned.includes(n)),
        [],
        dir,
      );
    }
    assert.deepEqual(
      [...renderCrds().keys(), ...renderCrds('pre-1.25').keys()].filter((n) => c5c3Owned.includes(n)),
      [],
    );
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
    assert.deepEqual(readdirSync(dir).sort(), [...renderCrds().keys(), PRE_CEL_FOLDER, 'someone-elses.yaml'].sort());
    assert.deepEqual(readdirSync(join(dir, PRE_CEL_FOLDER)).sort(), [...renderCrds('pre-1.25').keys()].sort());
  });

  it('the CRDs for clusters before 1.25 are the same CRDs without a single CEL rule', async () => {
    const rules = (value: unknown): number =>
      Array.isArray(value)
        ? value.reduce((n: number, v) => n + rules(v), 0)
        : typeof value === 'object' && value !== null
          ? Object.entries(value).reduce((n, [k, v]) => n + (k === 'x-kubernetes-validations' ? 1 : 0) + rules(v), 0)
          : 0;
    const current = allCrds();
    const before = allCrds('pre-1.25');
    assert.ok(rules(current) > 0, 'the CRDs for 1.25 on keep their CEL rules');
    assert.equal(rules(before), 0);
    assert.deepEqual(before, current.map(withoutCelRules));
    assert.deepEqual(
      before.map((c) => c.metadata.name),
      current.map((c) => c.metadata.name),
    );
    const printed = parseAllDocuments(await run('--without-cel')).map((d) => d.toJS() as unknown);
    assert.deepEqual(printed, before);
  });

  it('deploy/crds is up to date with the schemas (regenerate: openregion crds --out deploy/crds)', () => {
    for (const [folder, expected] of [
      [committed, renderCrds()],
      [join(committed, PRE_CEL_FOLDER), renderCrds('pre-1.25')],
    ] as const) {
      const present = readdirSync(folder).filter((f) => f.endsWith('.yaml'));
      assert.deepEqual(present.sort(), [...expected.keys()].sort(), `stale or missing files in ${folder}`);
      for (const [name, text] of expected) assert.equal(readFileSync(join(folder, name), 'utf8'), text, name);
    }
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
