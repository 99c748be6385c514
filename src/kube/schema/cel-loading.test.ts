import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../util/clock.ts';
import { openEmbeddedStore } from '../embedded/store.ts';
import type { KubeObject } from '../object.ts';
import { builtin, type ResourceType } from '../resource-type.ts';

const dir = mkdtempSync(join(tmpdir(), 'cel-loading-'));
const store = join(dir, 'store.db');
const root = fileURLToPath(new URL('../../../', import.meta.url));
const gadgets: ResourceType = {
  group: 'example.com',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};

const gadget = (name: string): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Gadget',
  metadata: { name, namespace: 'default' },
  spec: { size: 1 },
});

before(async () => {
  const client = openEmbeddedStore(store, { clock: new ManualClock(), garbageCollection: false });
  await client.create(builtin.customResourceDefinition, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { size: { type: 'integer' } },
                  'x-kubernetes-validations': [{ rule: 'self.size > 0', message: 'size must be positive' }],
                },
              },
            },
          },
        },
      ],
    },
  });
  await client.create(gadgets, gadget('first'));
  await client.close();
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens the store in a fresh process, lists the gadgets (and, with `write`, creates one), and says whether the CEL
 * library was loaded, as an ES module (seen by a resolve hook) or through its CommonJS build.
 */
function inFreshProcess(write: boolean): { names: string[]; celLoaded: boolean } {
  const hook = `export async function initialize({ port }) { globalThis.port = port; }
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@bufbuild/cel')) globalThis.port.postMessage(specifier);
  return next(specifier, context);
}`;
  const script = `
import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const imported = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (s) => imported.push(s));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), import.meta.url, { data: { port: port2 }, transferList: [port2] });
const { openEmbeddedStore } = await import(${JSON.stringify(join(root, 'src/kube/embedded/store.ts'))});
const { ManualClock } = await import(${JSON.stringify(join(root, 'src/util/clock.ts'))});
const type = ${JSON.stringify(gadgets)};
const client = openEmbeddedStore(${JSON.stringify(store)}, { clock: new ManualClock(), garbageCollection: false });
if (${String(write)}) await client.create(type, ${JSON.stringify(gadget('second'))});
const { items } = await client.list(type, { namespace: 'default' });
await client.close();
await new Promise((resolve) => setTimeout(resolve, 50));
port1.close();
const required = Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes('@bufbuild/cel'));
console.log(JSON.stringify({ names: items.map((o) => o.metadata.name), celLoaded: imported.length > 0 || required }));
`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as { names: string[]; celLoaded: boolean };
}

describe('the CEL library is loaded only by a write that evaluates rules', () => {
  it('a command that only reads the store (get, a completion Tab) never loads it', () => {
    assert.deepEqual(inFreshProcess(false), { names: ['first'], celLoaded: false });
  });

  it('a write of a custom resource with rules loads it', () => {
    assert.deepEqual(inFreshProcess(true), { names: ['first', 'second'], celLoaded: true });
  });
});
