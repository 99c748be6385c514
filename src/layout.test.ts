/**
 * The "Where files go" rules of docs/architecture.md, checked for the two products (src/region, src/keystone):
 * one spelling per kind, a kind as one file or one folder per layer, decision tables only in pure `decide*.ts`
 * modules, and test-only code only in `*.test.ts` or under a `testing/` folder, which is exactly what the
 * production entry point never reaches. And one spelling of ids in TypeScript names (docs/architecture.md §Names).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { regionKinds } from './region/apis/index.ts';

const SRC = dirname(fileURLToPath(import.meta.url));
const PRODUCTS = ['region', 'keystone'].map((p) => join(SRC, p));
const ENTRY = join(SRC, 'cli', 'main.ts');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const modules = PRODUCTS.flatMap(filesUnder).filter((p) => p.endsWith('.ts'));
/** Every module and every folder holding one (an empty folder is no part of a clone). */
const productPaths = [...new Set(modules.flatMap((p) => [p, ...ancestors(p)]))];

function ancestors(path: string): string[] {
  const up = dirname(path);
  return PRODUCTS.some((product) => up.startsWith(product)) ? [up, ...ancestors(up)] : [];
}
const isTest = (path: string) => path.endsWith('.test.ts');
const underTesting = (path: string) => relative(SRC, path).split('/').includes('testing');
const stem = (path: string) => basename(path).replace(/(\.test)?\.ts$/, '');
const kebab = (kind: string) => kind.replace(/([a-z])([A-Z])/g, '$1-$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2');

/** Relative specifiers of a module's static and dynamic imports and re-exports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] ?? '');
  return found.map((specifier) => resolve(dirname(file), specifier));
}

function reachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    stack.push(...importsOf(file));
  }
  return seen;
}

describe('where files go', () => {
  it('spells every region kind one way: singular kebab-case', () => {
    const spellings = new Map<string, string>();
    for (const { type } of regionKinds) {
      const canonical = kebab(type.kind).toLowerCase();
      const squashed = canonical.replaceAll('-', '');
      for (const wrong of [`${canonical}s`, squashed, `${squashed}s`, canonical.replaceAll('-', '_')]) {
        if (wrong !== canonical) spellings.set(wrong, canonical);
      }
    }
    const misspelt = productPaths
      .filter((p) => spellings.has(stem(p)))
      .map((p) => `${relative(SRC, p)} (spell it ${spellings.get(stem(p)) ?? ''})`);
    assert.deepEqual(misspelt, []);
  });

  it('keeps a kind in one file or one folder per layer, never both', () => {
    const both = productPaths.filter((p) => p.endsWith('.ts') && !isTest(p) && existsSync(p.replace(/\.ts$/, '')));
    assert.deepEqual(
      both.map((p) => relative(SRC, p)),
      [],
    );
  });

  it('exports decision functions only from decide*.ts modules, and those do no I/O', () => {
    const decideModule = (p: string) => /^decide(-[a-z-]+)?$/.test(stem(p)) && !isTest(p);
    const misplaced = modules
      .filter((p) => !isTest(p) && !decideModule(p))
      .filter((p) => /export (?:async )?function decide[A-Z]|export const decide[A-Z]/.test(readFileSync(p, 'utf8')))
      .map((p) => relative(SRC, p));
    assert.deepEqual(misplaced, [], 'a decide* function outside a decide*.ts module');
    const impure = modules
      .filter(decideModule)
      .filter((p) =>
        /\basync\b|\bawait\b|\bPromise\b|Date\.now\(|Math\.random\(|process\.env/.test(readFileSync(p, 'utf8')),
      )
      .map((p) => relative(SRC, p));
    assert.deepEqual(impure, [], 'a decide*.ts module that waits on I/O or reads the clock, randomness or env');
  });

  it('gives each OpenStack kind one provider module, which openstack/provider.ts composes', () => {
    const openstack = join(SRC, 'region', 'openstack');
    const kinds = readdirSync(openstack, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'testing')
      .map((entry) => entry.name);
    const camel = (kind: string) => kind.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const missing = kinds.filter((kind) => {
      const path = join(openstack, kind, 'provider.ts');
      return !existsSync(path) || !readFileSync(path, 'utf8').includes(`export function ${camel(kind)}ProviderFor(`);
    });
    assert.deepEqual(missing, [], 'a kind without <kind>/provider.ts exporting <kind>ProviderFor');
    const elsewhere = modules
      .filter((p) => !isTest(p) && !underTesting(p) && basename(p) !== 'provider.ts')
      .filter((p) => /export function \w+ProviderFor\(/.test(readFileSync(p, 'utf8')))
      .map((p) => relative(SRC, p));
    assert.deepEqual(elsewhere, [], 'a provider built outside a provider.ts module');
    const composed = importsOf(join(openstack, 'provider.ts')).map((p) => relative(openstack, p));
    assert.deepEqual(
      kinds.filter((kind) => !composed.includes(`${kind}/provider.ts`)),
      [],
      'openstack/provider.ts composes every kind through its provider.ts',
    );
    assert.deepEqual(
      composed.filter((p) => p.endsWith('/lifecycle.ts')),
      [],
      'openstack/provider.ts reaches a lifecycle only through the provider.ts of its kind',
    );
  });

  it('registers every region controller one way, with the indexes it reads', () => {
    const controllers = join(SRC, 'region', 'controllers');
    const sources = modules
      .filter((p) => p.startsWith(controllers) && !isTest(p) && !underTesting(p))
      .map((p) => ({ path: p, text: readFileSync(p, 'utf8') }));
    const registrations = sources.flatMap(({ path, text }) =>
      [...text.matchAll(/export function (register\w+Controller)\(([^)]*)\)/g)].map((m) => ({
        path,
        text,
        name: m[1] ?? '',
        params: m[2] ?? '',
      })),
    );
    // The region status controller and the composition of them all are not provisioners.
    const provisioners = registrations.filter((r) => !/^register(Region|RegionControllers)Controller$/.test(r.name));
    assert.ok(provisioners.length >= 6, 'found the provisioning controllers');
    const shaped = (r: (typeof provisioners)[number]) => {
      const m = /^\s*manager: Manager,\s*lookup: ProviderLookup<\w+>,\s*(?:\w+|\{.*\}): (\w+) = \{\},?\s*$/.exec(
        r.params,
      );
      const type = m?.[1];
      return (
        type === 'RegistrationOptions' ||
        (type !== undefined && new RegExp(`interface ${type} extends RegistrationOptions`).test(r.text))
      );
    };
    assert.deepEqual(
      provisioners.filter((r) => !shaped(r)).map((r) => `${relative(SRC, r.path)} ${r.name}`),
      [],
      'register<Kind>Controller(manager, lookup, options: RegistrationOptions)',
    );
    const central = sources.filter(({ path, text }) => basename(path) === 'index.ts' && /\.index\(/.test(text));
    assert.deepEqual(
      central.map(({ path }) => relative(SRC, path)),
      [],
      'a controller registers the indexes it reads itself, not the composition',
    );
  });

  it('keeps test-only code in *.test.ts or under testing/, and production never reaches it', () => {
    const production = reachableFrom(ENTRY);
    const stranded = modules.filter((p) => !isTest(p) && !underTesting(p) && !production.has(p));
    assert.deepEqual(
      stranded.map((p) => relative(SRC, p)),
      [],
      'a module production never imports: move it under testing/ (or delete it)',
    );
    const leaked = [...production].filter((p) => underTesting(p) || isTest(p));
    assert.deepEqual(
      leaked.map((p) => relative(SRC, p)),
      [],
      'production imports test-only code',
    );
  });
});

/** `Id`/`Ip` as a word inside a name (`projectId`, `floatingIps`, `IdRef`), the spelling names never use. */
const ID_CASING = /(Id|Ip)s?(?=[A-Z0-9_]|$)/;
/**
 * Wire names a property may carry although they break the rule, because a body outside TypeScript spells them so:
 * OpenTelemetry's span JSON, Nova's camelCase fields (`hostId`, the volume attachment's `volumeId`/`serverId`), the
 * region CRD's VLAN segments (`startId`/`endId`), the bearer token's claims (`organizationIds`, `projectIds`) and
 * OpenAPI's `operationId`. The REST API's own names are read from its schemas and the console's generated types.
 */
const WIRE_NAMES = new Set([
  'traceId',
  'spanId',
  'parentSpanId',
  'hostId',
  'volumeId',
  'serverId',
  'startId',
  'endId',
  'organizationIds',
  'projectIds',
  'operationId',
]);
/** Where wire bodies are declared: the REST API's and the CRDs' TypeBox schemas and the console's generated types. */
const WIRE_SCHEMAS = [
  join(SRC, 'region', 'http', 'schemas'),
  join(SRC, 'region', 'apis'),
  join(SRC, 'keystone', 'apis'),
  join(SRC, '..', 'console', 'api-types.ts'),
];
const CONSOLE = join(SRC, '..', 'console');

function parsed(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function identifiersOf(file: ts.SourceFile): ts.Identifier[] {
  const found: ts.Identifier[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) found.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Where an identifier names a property of a body rather than a binding: a key, a member access, a field. */
function isPropertyName(id: ts.Identifier): boolean {
  const p = id.parent;
  return (
    ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p)) && p.name === id) ||
    (ts.isPropertyAccessExpression(p) && p.name === id) ||
    (ts.isBindingElement(p) && p.propertyName === id) ||
    (ts.isQualifiedName(p) && p.right === id)
  );
}

describe('names', () => {
  it('spells ids ID and IPs IP in TypeScript names; wire names only in wire bodies', () => {
    const schemaFiles = WIRE_SCHEMAS.flatMap((p) => (p.endsWith('.ts') ? [p] : filesUnder(p)));
    const wireNames = new Set(WIRE_NAMES);
    for (const file of schemaFiles.filter((p) => p.endsWith('.ts') && !isTest(p))) {
      for (const id of identifiersOf(parsed(file))) if (isPropertyName(id)) wireNames.add(id.text);
    }
    const production = [...filesUnder(SRC), ...filesUnder(CONSOLE)].filter(
      (p) => /\.tsx?$/.test(p) && !isTest(p) && !underTesting(p) && !schemaFiles.includes(p),
    );
    const misspelt: string[] = [];
    for (const path of production) {
      const file = parsed(path);
      // The emulator's records are its serialized state (emulator/state-file.ts): their fields are a wire body too.
      const emulator = relative(SRC, path).startsWith('emulator/');
      for (const id of identifiersOf(file)) {
        if (!ID_CASING.test(id.text) || id.text === 'getElementById') continue;
        const shorthand = ts.isShorthandPropertyAssignment(id.parent);
        if (!shorthand && isPropertyName(id) && (wireNames.has(id.text) || emulator)) continue;
        const { line } = file.getLineAndCharacterOfPosition(id.getStart(file));
        misspelt.push(`${relative(join(SRC, '..'), path)}:${line + 1} ${id.text}`);
      }
    }
    assert.deepEqual(misspelt, [], 'spell it ID/IP (projectID, floatingIPs); a wire name belongs in a wire body');
  });
});

const ROUTES = join(SRC, 'region', 'http', 'routes');

/** `x as T` and `<T>x` in a file, with what they assert (parentheses looked through). */
function assertionsOf(file: ts.SourceFile): { operand: ts.Expression; line: number }[] {
  const found: { operand: ts.Expression; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      let operand = node.expression;
      while (ts.isParenthesizedExpression(operand)) operand = operand.expression;
      found.push({ operand, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('route kits', () => {
  it('take bodies and params typed from their TypeBox schemas: no cast on a request part', () => {
    const casts: string[] = [];
    for (const path of filesUnder(ROUTES).filter((p) => p.endsWith('.ts') && !isTest(p))) {
      const file = parsed(path);
      for (const { operand, line } of assertionsOf(file)) {
        if (!ts.isPropertyAccessExpression(operand) || !['body', 'params', 'query'].includes(operand.name.text))
          continue;
        casts.push(`${relative(join(SRC, '..'), path)}:${String(line)} ${operand.getText(file)} as …`);
      }
    }
    assert.deepEqual(casts, [], 'type the kit from the schema (kit.ts RouteBody/RouteParams), not by a cast');
  });
});

describe('test support', () => {
  it('opens every in-memory region store in one place: apis/testing/store.ts openRegionStore', () => {
    const ONE_STORE = join(SRC, 'region', 'apis', 'testing', 'store.ts');
    const remade: string[] = [];
    for (const path of filesUnder(join(SRC, 'region')).filter((p) => p.endsWith('.ts') && p !== ONE_STORE)) {
      const text = readFileSync(path, 'utf8');
      // A store that serves the region kinds: one opened in memory, or one taught the region kinds' CRDs.
      if (/openEmbeddedStore\(\s*':memory:'[\s\S]*customResourceDefinition\(/.test(text)) {
        remade.push(relative(join(SRC, '..'), path));
      }
    }
    assert.deepEqual(remade, [], 'open it with openRegionStore (its options choose the kinds and the collector)');
  });
});
