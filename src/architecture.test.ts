/**
 * The layering of ARCHITECTURE.md, checked on every import: arrows point down only, the two products never import
 * each other, and product code never imports the emulator (it reaches it over HTTP, like a real cloud). Tests may
 * reach across (a test of the runtime uses the embedded store); test-only helpers (under `testing/`) may too.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = dirname(fileURLToPath(import.meta.url));

/** What each top-level folder of src/ may import besides itself. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  util: [],
  openstack: ['util'],
  kube: ['util'],
  runtime: ['util', 'kube'],
  region: ['util', 'openstack', 'kube', 'runtime'],
  keystone: ['util', 'openstack', 'kube', 'runtime'],
  emulator: ['util'],
  cli: ['util', 'openstack', 'kube', 'runtime', 'region', 'keystone', 'emulator'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function layerOf(path: string): string | undefined {
  const [top] = relative(SRC, path).split(sep);
  return top !== undefined && top in MAY_IMPORT ? top : undefined;
}

describe('architecture', () => {
  it('every import points down the layers of ARCHITECTURE.md', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(file);
      if (from === undefined) continue;
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(
        /^\s*(?:import|export)[^'"]*from\s+'(\.[^']+)'/gm,
      )) {
        if (specifier === undefined) continue;
        const to = layerOf(resolve(dirname(file), specifier));
        if (to !== undefined && to !== from && !(MAY_IMPORT[from] ?? []).includes(to)) {
          violations.push(`${relative(SRC, file)} imports ${to}/ (${specifier})`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });

  it('knows every top-level folder of src/', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(
      folders.filter((f) => !(f in MAY_IMPORT)),
      [],
    );
  });
});
