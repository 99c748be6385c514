/**
 * The import rules of docs/architecture.md, checked on every import: arrows point down only, the two products never
 * import each other, product code never imports the emulator (it reaches it over HTTP, like a real cloud), and inside
 * each product the folders are layers too. Tests may reach across (a test of the runtime uses the embedded store);
 * test-only helpers (under `testing/`) may too.
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

/**
 * What each folder of a product may import from its own product, besides itself; `openstack` is the OpenStack client
 * (src/openstack/). A folder missing here fails the test, so a new one gets its rule when it is made. The two
 * single-module entries are the only edges into region/openstack/ from outside it.
 */
const PRODUCT_MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  'region/apis': [],
  'region/provider': ['region/apis', 'openstack'],
  'region/controllers': ['region/apis', 'region/provider'],
  'region/monitor': ['region/apis', 'region/provider', 'region/controllers'],
  'region/http': ['region/apis', 'region/provider'],
  'region/openstack': ['region/apis', 'region/provider', 'region/vlan', 'openstack'],
  'region/vlan': ['region/apis', 'region/openstack/names.ts'],
  'region/registration': ['region/apis', 'region/openstack/region-config.ts', 'openstack'],
  'keystone/apis': [],
  'keystone/order': ['keystone/apis'],
  'keystone/user': ['keystone/apis', 'keystone/order'],
  'keystone/actuators': ['keystone/apis', 'keystone/order', 'openstack'],
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

/** The relative static and dynamic imports and re-exports of a module, resolved to paths under src/. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    relative(SRC, resolve(dirname(file), m[1] ?? '')),
  );
}

/** The relative imports a module loads before it runs: static and not type-only (a dynamic import waits for use). */
function loadedImportsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^(?:import|export)(?!\s+type\s)[^;']*?(?:from\s+)?'(\.{1,2}\/[^']+)'/gm)].map((m) =>
    relative(SRC, resolve(dirname(file), m[1] ?? '')),
  );
}

/** The modules under src/ that loading `entry` loads. */
function loadedFrom(entry: string): Set<string> {
  const loaded = new Set<string>();
  const pending = [entry];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (loaded.has(next)) continue;
    loaded.add(next);
    pending.push(...loadedImportsOf(join(SRC, next)));
  }
  return loaded;
}

/** The product folder (`region/controllers`) of a path under src/, if it lies in one. */
function productFolderOf(path: string): string | undefined {
  const [product, folder, next] = path.split(sep);
  if ((product !== 'region' && product !== 'keystone') || folder === undefined || next === undefined) return undefined;
  return `${product}/${folder}`;
}

describe('architecture', () => {
  it('every import points down the layers of docs/architecture.md', () => {
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

  it('inside each product, a folder imports only the folders its rule names', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = productFolderOf(relative(SRC, file));
      if (from === undefined) continue;
      const allowed = PRODUCT_MAY_IMPORT[from] ?? [];
      for (const to of importsOf(file)) {
        const target = productFolderOf(to) ?? (to.split(sep)[0] === 'openstack' ? 'openstack' : undefined);
        if (target === undefined || target === from) continue;
        if (!allowed.includes(target) && !allowed.includes(to)) violations.push(`${relative(SRC, file)} imports ${to}`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it('has an import rule for every folder of the two products', () => {
    const folders = ['region', 'keystone'].flatMap((product) =>
      readdirSync(join(SRC, product), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => `${product}/${e.name}`),
    );
    assert.deepEqual(
      folders.filter((f) => !(f in PRODUCT_MAY_IMPORT)),
      [],
    );
  });

  it('`up` never loads the real Kubernetes client: the embedded path stays light (about 40 MiB of heap)', () => {
    const loaded = loadedFrom(join('cli', 'up.ts'));
    assert.ok(loaded.has(join('kube', 'embedded', 'store.ts')), 'the graph walk follows up.ts');
    assert.deepEqual(
      [...loaded].filter((path) => path.startsWith(join('kube', 'kubernetes') + sep)),
      [],
    );
  });

  it('has no import circles: static, type-only and dynamic imports alike (a circle means a module in the wrong room)', () => {
    const files = sourceFiles(SRC).map((file) => relative(SRC, file));
    const edges = new Map(files.map((file) => [file, importsOf(join(SRC, file))]));
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: readonly string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) if (edges.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    assert.deepEqual(circles, []);
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
