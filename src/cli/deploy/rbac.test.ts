import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { parse, parseAllDocuments } from 'yaml';
import { rbacCommand, renderRbac } from './rbac.ts';

const DEPLOY = fileURLToPath(new URL('../../../deploy/', import.meta.url));

/** Every manifest under deploy/ but the CRDs (generated elsewhere, and full of `*` in descriptions). */
function manifests(dir = DEPLOY): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'crds' ? [] : manifests(path);
    return entry.name.endsWith('.yaml') ? [relative(DEPLOY, path)] : [];
  });
}

interface Kustomization {
  namespace?: string;
  resources?: string[];
  configMapGenerator?: { name: string; literals?: string[] }[];
  patches?: { patch?: string }[];
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

describe('openregion rbac', () => {
  it('deploy/ holds the RBAC the registrations generate (regenerate: openregion rbac --out deploy)', () => {
    for (const [path, text] of renderRbac()) assert.equal(readFileSync(join(DEPLOY, path), 'utf8'), text, path);
  });

  it('prints every generated file as one stream without --out', async () => {
    let out = '';
    const program = new Command('openregion').exitOverride();
    program.addCommand(rbacCommand({ write: (t: string) => (out += t) }));
    await program.parseAsync(['node', 'openregion', 'rbac']);
    const kinds = parseAllDocuments(out).map((d) => (d.toJS() as { kind: string }).kind);
    assert.ok(kinds.includes('ClusterRole') && kinds.includes('RoleBinding') && kinds.includes('ServiceAccount'));
  });

  it('no Role or ClusterRole in deploy/ holds a wildcard', () => {
    const rules: [string, Rule][] = [];
    for (const file of manifests()) {
      for (const doc of parseAllDocuments(readFileSync(join(DEPLOY, file), 'utf8'))) {
        const object = doc.toJS() as { kind?: string; rules?: Rule[] } | null;
        if (object?.kind === 'Role' || object?.kind === 'ClusterRole')
          for (const rule of object.rules ?? []) rules.push([file, rule]);
      }
    }
    assert.ok(rules.length > 10, 'the generated roles were found');
    const wild = rules.filter(([, r]) =>
      [...(r.apiGroups ?? []), ...(r.resources ?? []), ...(r.verbs ?? []), ...(r.resourceNames ?? [])].some((v) =>
        v.includes('*'),
      ),
    );
    assert.deepEqual(wild, []);
  });

  it('the region service reads Secrets only in its own namespace; the Keystone operator, where orders live', () => {
    const secretsIn = (path: string) =>
      parseAllDocuments(renderRbac().get(path) ?? '')
        .map((d) => d.toJS() as { kind: string; rules?: Rule[] })
        .filter((o) => (o.rules ?? []).some((r) => r.resources?.includes('secrets') === true))
        .map((o) => o.kind);
    assert.deepEqual(secretsIn('overlays/region-service/rbac.yaml'), ['Role']);
    assert.deepEqual(secretsIn('overlays/keystone-operator/operator/rbac.yaml'), []);
    assert.deepEqual(secretsIn('overlays/keystone-operator/namespace-grant/rbac.yaml'), ['Role']);
    assert.deepEqual(secretsIn('overlays/keystone-operator/registrations/rbac.yaml'), ['Role']);
    assert.deepEqual(secretsIn('overlays/keystone-operator-cluster-wide/rbac.yaml'), ['ClusterRole']);
  });

  it('the shipped Keystone operator overlay grants exactly the namespaces it watches, and no Secret cluster-wide', () => {
    const overlay = join(DEPLOY, 'overlays/keystone-operator');
    const yaml = (path: string) =>
      parse(readFileSync(join(overlay, path, 'kustomization.yaml'), 'utf8')) as Kustomization;
    const top = yaml('.');
    assert.equal(top.namespace, undefined, 'a namespace here would move every grant into it');
    const granted = (top.resources ?? [])
      .filter((r) => r.startsWith('namespaces/'))
      .map((r) => {
        const grant = yaml(r);
        assert.deepEqual(grant.resources, ['../../namespace-grant'], r);
        return grant.namespace;
      });
    assert.ok(granted.length > 0, 'at least one watched namespace is granted');
    const operator = yaml('operator');
    const literal = operator.configMapGenerator
      ?.find((g) => g.name === 'openregion-keystone-watch')
      ?.literals?.find((l) => l.startsWith('namespaces='));
    assert.deepEqual(literal?.slice('namespaces='.length).split(','), granted, 'watched = granted');
    const patch = (operator.patches ?? []).map((p) => p.patch ?? '').join('\n');
    assert.match(patch, /- --watch-namespaces=\$\(WATCH_NAMESPACES\)/);
    assert.match(patch, /name: openregion-keystone-watch\s+key: namespaces/);
    assert.equal(yaml('registrations').namespace, /--clusters-namespace=(\S+)/.exec(patch)?.[1]);
    for (const path of ['operator', 'namespace-grant', 'registrations']) {
      const kinds = parseAllDocuments(readFileSync(join(overlay, path, 'rbac.yaml'), 'utf8')).map(
        (d) => d.toJS() as { kind: string; rules?: Rule[] },
      );
      const clusterWide = kinds.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules ?? []);
      assert.deepEqual(
        clusterWide.flatMap((r) => r.resources ?? []),
        path === 'operator' ? ['clustersecretstores'] : [],
        `${path}: only the cluster-scoped store is read cluster-wide`,
      );
    }
    const clusterWide = parse(
      readFileSync(join(DEPLOY, 'overlays/keystone-operator-cluster-wide/kustomization.yaml'), 'utf8'),
    ) as Kustomization;
    assert.doesNotMatch((clusterWide.patches ?? []).map((p) => p.patch ?? '').join('\n'), /--watch-namespaces/);
  });
});
