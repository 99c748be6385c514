import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Type from 'typebox';
import { ManualClock } from '../util/clock.ts';
import { getOptional } from './client.ts';
import { customResourceDefinition } from './crd.ts';
import { openEmbeddedStore, type EmbeddedStore } from './embedded/store.ts';
import { ignoreNotFound, KubeInvalidError } from './errors.ts';
import type { Resource } from './object.ts';
import { builtin, type ResourceType } from './resource-type.ts';

type Widget = Resource<{ size: number }, never>;
type Gadget = Resource<{ low: number }, never>;

const NS = 'typing';
const widgetType: ResourceType<Widget> = {
  group: 'typing.openregion.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};
const gadgetType: ResourceType<Gadget> = {
  group: 'typing.openregion.dev',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};

const widget = (name: string, size: number): Widget => ({
  apiVersion: 'typing.openregion.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace: NS },
  spec: { size },
});

describe('Client: the resource type carries the object type', () => {
  let store: EmbeddedStore;
  before(async () => {
    store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const schema = Type.Object({ spec: Type.Object({ size: Type.Integer({ minimum: 1 }) }) });
    await store.create(
      builtin.customResourceDefinition,
      customResourceDefinition({ type: widgetType, schema, statusSubresource: false, printerColumns: [] }),
    );
  });
  after(() => store.close());

  it('reads back the kind it names, typed, with no type argument', async () => {
    await store.create(widgetType, widget('w1', 3));
    const got = await store.get(widgetType, NS, 'w1');
    assert.equal(got.spec.size, 3);
    const { items } = await store.list(widgetType, { namespace: NS });
    assert.deepEqual(
      items.map((w) => w.spec.size),
      [3],
    );
  });

  it('does not compile a call whose object type is not the resource type’s', () => {
    // Never run: the compiler is the assertion (tsc fails on an unused @ts-expect-error).
    const mismatched = () => [
      // @ts-expect-error a Widget resource type does not read Gadgets
      store.get<Gadget>(widgetType, NS, 'w1'),
      // @ts-expect-error nor list them
      store.list<Gadget>(widgetType),
      // @ts-expect-error a Gadget is not written as a Widget
      store.create(gadgetType, widget('w2', 1)),
      // @ts-expect-error nor updated as one
      store.update(gadgetType, widget('w2', 1)),
    ];
    assert.equal(typeof mismatched, 'function');
  });

  it('getOptional reads an absent object as undefined and a present one as itself', async () => {
    assert.equal(await getOptional(store, widgetType, NS, 'absent'), undefined);
    await store.create(widgetType, widget('w3', 4));
    assert.equal((await getOptional(store, widgetType, NS, 'w3'))?.spec.size, 4);
  });

  it('ignoreNotFound passes every other failure through', async () => {
    assert.equal(await ignoreNotFound(store.delete(widgetType, NS, 'absent')), undefined);
    await assert.rejects(ignoreNotFound(store.create(widgetType, widget('w4', 0))), KubeInvalidError);
  });
});
