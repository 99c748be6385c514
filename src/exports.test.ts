/**
 * Every export under src/ has an importer somewhere in the repository, tests included: an export nothing imports is
 * either dead or a module-local wearing `export`. Read from the syntax of each file (named, namespace, dynamic and
 * re-exported imports), so it runs in a moment without the type checker.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHECKED = 'src';
const READERS = ['src', 'test', 'bench', 'console', 'scripts'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Module {
  /** Names this module declares with `export`. */
  readonly declared: Set<string>;
  /** `export * from` targets: their exports are this module's too. */
  readonly stars: string[];
  /** `export { a as b } from` re-exports: exported name → [target, its name]. */
  readonly forwards: Map<string, [string, string]>;
  /** What this module takes from others: target → the names it uses ('*' for all). */
  readonly uses: Map<string, Set<string>>;
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a declaration binds: `a`, or each one a pattern (`{ get: getNetwork }`, `[a, b]`) takes apart. */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : boundNames(element.name)));
}

function parse(file: string): Module {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const module: Module = { declared: new Set(), stars: [], forwards: new Map(), uses: new Map() };
  const target = (specifier: ts.Expression): string | undefined =>
    ts.isStringLiteral(specifier) && specifier.text.startsWith('.')
      ? resolve(dirname(file), specifier.text)
      : undefined;
  const use = (path: string, name: string) => {
    const names = module.uses.get(path) ?? new Set<string>();
    names.add(name);
    module.uses.set(path, names);
  };
  /** Namespace imports (`import * as n`): the names read through them (`n.name`) are used. */
  const namespaces = new Map<string, string>();
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const path = target(statement.moduleSpecifier);
      const bindings = statement.importClause?.namedBindings;
      if (path === undefined || bindings === undefined) continue;
      if (ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, path);
      else for (const element of bindings.elements) use(path, (element.propertyName ?? element.name).text);
    } else if (ts.isExportDeclaration(statement)) {
      const path = statement.moduleSpecifier === undefined ? undefined : target(statement.moduleSpecifier);
      const clause = statement.exportClause;
      if (path === undefined) {
        if (clause !== undefined && ts.isNamedExports(clause)) {
          for (const element of clause.elements) module.declared.add(element.name.text);
        }
      } else if (clause === undefined) module.stars.push(path);
      else if (ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          module.forwards.set(element.name.text, [path, (element.propertyName ?? element.name).text]);
        }
      } else use(path, '*');
    } else if (hasExport(statement)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          for (const name of boundNames(declaration.name)) module.declared.add(name);
        }
      } else if ('name' in statement && statement.name !== undefined && ts.isIdentifier(statement.name as ts.Node)) {
        module.declared.add((statement.name as ts.Identifier).text);
      }
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      const path = specifier === undefined ? undefined : target(specifier);
      if (path !== undefined) for (const name of dynamicUses(node)) use(path, name);
    }
    if (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) {
      const left = ts.isPropertyAccessExpression(node) ? node.expression : node.left;
      const right = ts.isPropertyAccessExpression(node) ? node.name : node.right;
      const path = ts.isIdentifier(left) ? namespaces.get(left.text) : undefined;
      if (path !== undefined) use(path, right.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return module;
}

/**
 * The names a dynamic `import()` takes: `(await import(x)).name`, `const { a, b } = await import(x)`; any other
 * use (a module object passed on) counts as using everything.
 */
function dynamicUses(call: ts.CallExpression): string[] {
  let node: ts.Node = call;
  while (ts.isAwaitExpression(node.parent) || ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return [parent.name.text];
  if (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)) {
    return parent.name.elements.map((e) => ((e.propertyName ?? e.name) as ts.Identifier).text);
  }
  return ['*'];
}

describe('exports', () => {
  it('every export under src/ has an importer', () => {
    const modules = new Map<string, Module>();
    for (const file of READERS.flatMap((dir) => filesUnder(join(ROOT, dir)))) modules.set(file, parse(file));
    const moduleOf = (path: string) => modules.get(path) ?? modules.get(`${path}.ts`);
    const used = new Map<string, Set<string>>();
    /** Marks `name` of `path` used, through any re-export that forwards it. */
    const mark = (path: string, name: string, seen = new Set<string>()): void => {
      const key = `${path}\u0000${name}`;
      const module = moduleOf(path);
      if (module === undefined || seen.has(key)) return;
      seen.add(key);
      const names = used.get(path) ?? new Set<string>();
      names.add(name);
      used.set(path, names);
      const forward = module.forwards.get(name);
      if (forward !== undefined) mark(forward[0], forward[1], seen);
      for (const star of module.stars) mark(star, name, seen);
      if (name === '*') for (const declared of module.declared) mark(path, declared, seen);
    };
    for (const module of modules.values()) {
      for (const [path, names] of module.uses) for (const name of names) mark(path, name);
    }
    const orphans = [...modules]
      .filter(([path]) => path.startsWith(join(ROOT, CHECKED)) && existsSync(path))
      .flatMap(([path, module]) =>
        [...module.declared]
          .filter((name) => !(used.get(path)?.has(name) ?? false))
          .map((name) => `${relative(ROOT, path)}: ${name}`),
      );
    assert.deepEqual(orphans, [], 'an export nothing imports: drop the export, or the code');
  });
});
