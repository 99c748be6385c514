/**
 * The production package (`npm run build`): tsc compiles what src/cli/main.ts reaches through its imports, so this
 * closure is what ships. It must hold no test code and need no dev dependency, or `npm ci --omit=dev` would leave a
 * binary that fails (or an image carrying test doubles).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = resolve(ROOT, 'src/cli/main.ts');
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

/** Every source file main.ts reaches (static, type-only and literal dynamic imports), and the packages they name. */
function closure(): { files: string[]; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(ENTRY);
  return { files: [...files].map((f) => relative(ROOT, f)).sort(), packages };
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('the production package', () => {
  const { files, packages } = closure();

  it('compiles from src/cli/main.ts (tsconfig.build.json) into dist/', () => {
    const config = JSON.parse(readFileSync(resolve(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      files: string[];
      compilerOptions: { outDir: string; rewriteRelativeImportExtensions: boolean };
    };
    assert.deepEqual(config.files, ['src/cli/main.ts']);
    assert.equal(config.compilerOptions.outDir, 'dist');
    assert.equal(config.compilerOptions.rewriteRelativeImportExtensions, true);
    assert.ok(files.length > 100, `the closure walk found only ${String(files.length)} files`);
    assert.ok(files.includes('src/cli/serve.ts') && files.includes('src/emulator/emulator.ts'));
  });

  it('holds no test code: no *.test.ts, testing.ts, *-testing.ts or testing/ folder', () => {
    const testCode = files.filter((f) => /\.test\.ts$|(^|[/-])testing(\.ts$|\/)/.test(f));
    assert.deepEqual(testCode, []);
  });

  it('imports only Node built-ins and production dependencies', () => {
    const manifest = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const builtins = new Set(builtinModules);
    const outside = [...packages]
      .filter((p) => !p.startsWith('node:') && !builtins.has(p))
      .map(packageOf)
      .filter((p) => !(p in manifest.dependencies));
    assert.deepEqual([...new Set(outside)], []);
  });
});
