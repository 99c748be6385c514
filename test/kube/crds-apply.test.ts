/**
 * The committed CRDs on kube-apiserver 1.20 as an operator applies them: `kubectl apply -f deploy/crds/pre-1.25/`
 * with kubectl's validation on is accepted, and applying again reports every CRD `unchanged` (no drift); the CRDs
 * for 1.25 on (deploy/crds/, with CEL rules) are refused there by that validation, which is why the folder exists
 * (ADR 0022).
 *
 * So that runs never touch the CRDs other suites on the shared server use, each file is applied under a group of
 * this run's (`spec.group` and the name that spells it rewritten; every other byte as committed). Skipped loudly
 * without the kube-apiserver binary or kubectl, and failing under CI.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { kubectl, kubectlPresent } from './deploy-fixture.ts';
import { withRealApiServer } from './real-apiserver.ts';

const CRDS = fileURLToPath(new URL('../../deploy/crds/', import.meta.url));
const PRE_CEL = join(CRDS, 'pre-1.25');
const run = `crds${String(process.pid)}.openregion.test`;
const inCI = process.env.CI === 'true';

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string } };
}

/** The committed files of `folder`, each moved to this run's group, written into `into`. */
function underRunGroup(folder: string, into: string): string[] {
  const names: string[] = [];
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.yaml'))) {
    const crd = parse(readFileSync(join(folder, file), 'utf8')) as Crd;
    crd.spec.group = `${crd.spec.group.replaceAll('.', '-')}.${run}`;
    crd.metadata.name = `${crd.spec.names.plural}.${crd.spec.group}`;
    writeFileSync(join(into, file), stringify(crd, { lineWidth: 0 }));
    names.push(crd.metadata.name);
  }
  return names.sort();
}

const hasKubectl = await kubectlPresent();
if (!hasKubectl) {
  if (inCI) {
    void it('kubectl is installed (CI applies deploy/crds with kubectl)', () => {
      assert.fail('CI=true and kubectl is not on the PATH');
    });
  } else {
    process.stderr.write('\n*** SKIPPING test/kube/crds-apply.test.ts: kubectl is not on the PATH.\n\n');
    void it('deploy/crds on kube-apiserver 1.20 with kubectl apply', { skip: 'kubectl is not on the PATH' });
  }
} else {
  await withRealApiServer('test/kube/crds-apply.test.ts', (apiserver) => {
    describe('deploy/crds on kube-apiserver 1.20 with kubectl apply', () => {
      const preCel = mkdtempSync(join(tmpdir(), 'openregion-crds-pre-1.25-'));
      const current = mkdtempSync(join(tmpdir(), 'openregion-crds-'));
      let kubeconfig = '';
      let names: string[] = [];

      before(async () => {
        kubeconfig = await apiserver.kubeconfigPath();
        names = underRunGroup(PRE_CEL, preCel);
        underRunGroup(CRDS, current);
      });

      after(async () => {
        await kubectl(kubeconfig, ['delete', '--ignore-not-found', '-f', preCel]).catch((error: unknown) => {
          process.stderr.write(`cleanup: ${String(error)}\n`);
        });
        rmSync(preCel, { recursive: true, force: true });
        rmSync(current, { recursive: true, force: true });
      });

      it('pre-1.25/ applies with validation on, and a second apply reports every CRD unchanged', async () => {
        const applied = (out: string) =>
          out
            .trim()
            .split('\n')
            .map((line) => line.replace(/^customresourcedefinition\.apiextensions\.k8s\.io\//, ''))
            .sort();
        const first = await kubectl(kubeconfig, ['apply', '-f', preCel]);
        assert.deepEqual(
          applied(first),
          names.map((n) => `${n} created`),
        );
        const second = await kubectl(kubeconfig, ['apply', '-f', preCel]);
        assert.deepEqual(
          applied(second),
          names.map((n) => `${n} unchanged`),
          `no drift on a re-apply:\n${second}`,
        );
      });

      it('the CRDs for 1.25 on are refused by validation here: their CEL rules are unknown to 1.20', async () => {
        await assert.rejects(
          kubectl(kubeconfig, ['apply', '--dry-run=client', '-f', current]),
          /unknown field "x-kubernetes-validations"/,
        );
      });
    });
  });
}
