/**
 * The conformance suite every Client backend passes. It uses only the Client interface and the backend's declared
 * capabilities, so the same tests run against the embedded store and a real kube-apiserver.
 */
/* eslint-disable @typescript-eslint/no-floating-promises -- node:test's describe/it return promises the runner awaits itself. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../../src/kube/client.ts';
import {
  KubeAlreadyExistsError,
  KubeConflictError,
  KubeGoneError,
  KubeInvalidError,
  KubeNotFoundError,
} from '../../src/kube/errors.ts';
import { COMBINED_PREFIX, EventRecorder, recordEvent } from '../../src/kube/events.ts';
import { controllerReference, type KubeObject, type Secret } from '../../src/kube/object.ts';
import { builtin, type ResourceType } from '../../src/kube/resource-type.ts';
import { ManualClock, systemClock } from '../../src/util/clock.ts';
import {
  b64,
  brokenRuleCrd,
  collect,
  eventually,
  gadgetCrd,
  gadgetType,
  widgetCrd,
  widgetType,
  type Gadget,
  type Widget,
} from './fixtures.ts';

export interface ConformanceBackend {
  readonly client: Client;
  close(): Promise<void>;
  readonly supports: { readonly garbageCollection: boolean; readonly cel: boolean };
  /**
   * Makes the backend forget its change history, so a resourceVersion from before is Gone. Absent where that cannot
   * be forced within a test (a real apiserver compacts etcd on its own schedule).
   */
  readonly compact?: () => Promise<void>;
}

export function conformance(backendName: string, makeClient: () => Promise<ConformanceBackend>): void {
  describe(`kube conformance: ${backendName}`, () => {
    let backend: ConformanceBackend;
    let c: Client;
    const run = randomBytes(4).toString('hex');
    const ns = `conf-${run}`;
    let seq = 0;
    // The run's suffix keeps names (and the labels built from them) apart from earlier runs on a reused server.
    const unique = (p: string): string => `${p}-${run}-${String(++seq)}`;
    const widget = (name: string, spec: Partial<Widget['spec']> = {}, labels?: Record<string, string>): Widget => ({
      apiVersion: 'conformance.openregion.dev/v1',
      kind: 'Widget',
      metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
      spec: { size: 1, ...spec },
    });
    const secret = (
      name: string,
      data: Record<string, string>,
      extra: Partial<KubeObject['metadata']> = {},
    ): Secret => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns, ...extra },
      data,
    });

    before(async () => {
      backend = await makeClient();
      c = backend.client;
      await c.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      await c.apply(builtin.customResourceDefinition, widgetCrd, { fieldManager: 'conformance', force: true });
      if (backend.supports.cel)
        await c.apply(builtin.customResourceDefinition, gadgetCrd, { fieldManager: 'conformance', force: true });
      await eventually('the Widget kind to be served', () => c.list(widgetType, { namespace: ns }));
    });

    after(async () => {
      await c.delete(builtin.namespace, undefined, ns).catch(() => undefined);
      await backend.close();
    });

    describe('CRUD', () => {
      it('create fills the server fields and get returns the same object', async () => {
        const created = await c.create(widgetType, widget(unique('crud')));
        assert.ok(created.metadata.uid);
        assert.ok(created.metadata.resourceVersion);
        assert.ok(created.metadata.creationTimestamp);
        assert.equal(created.metadata.generation, 1);
        const got = await c.get(widgetType, ns, created.metadata.name);
        assert.equal(got.metadata.uid, created.metadata.uid);
        assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
        assert.equal(got.spec.size, 1);
      });

      it('generateName gives a fresh name with the prefix', async () => {
        const created = await c.create(widgetType, {
          ...widget(''),
          metadata: { name: '', generateName: 'gen-', namespace: ns },
        });
        assert.match(created.metadata.name, /^gen-[a-z0-9]{5}$/);
      });

      it('refuses a duplicate with AlreadyExists', async () => {
        const name = unique('dup');
        await c.create(widgetType, widget(name));
        await assert.rejects(c.create(widgetType, widget(name)), KubeAlreadyExistsError);
      });

      it('answers NotFound for a missing object, a missing namespace and an unknown kind', async () => {
        await assert.rejects(c.get(widgetType, ns, 'absent'), KubeNotFoundError);
        await assert.rejects(c.delete(widgetType, ns, 'absent'), KubeNotFoundError);
        await assert.rejects(
          c.create(widgetType, { ...widget('x'), metadata: { name: 'x', namespace: `${ns}-missing` } }),
          KubeNotFoundError,
        );
        const unknown: ResourceType = { ...widgetType, plural: 'nonesuches', kind: 'Nonesuch' };
        await assert.rejects(
          c.create(unknown, {
            apiVersion: 'conformance.openregion.dev/v1',
            kind: 'Nonesuch',
            metadata: { name: 'x', namespace: ns },
          }),
          KubeNotFoundError,
        );
        await assert.rejects(c.list(unknown), KubeNotFoundError);
      });

      it('discovery names the versions that serve a kind, preferred first, and none for an unknown one', async () => {
        assert.deepEqual(await c.servedVersions(widgetType.group, widgetType.plural), ['v1']);
        assert.deepEqual(await c.servedVersions('', 'secrets'), ['v1']);
        assert.deepEqual(await c.servedVersions(widgetType.group, 'nonesuches'), []);
        assert.deepEqual(await c.servedVersions(`absent.${widgetType.group}`, 'widgets'), []);
        // As an older External Secrets Operator installs SecretStore: v1beta1 stored, v1alpha1 served, v1 not served.
        const group = `discovery-${run}.openregion.dev`;
        const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
        const crd = {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `stores.${group}` },
          spec: {
            group,
            scope: 'Namespaced',
            names: { plural: 'stores', singular: 'store', kind: 'Store', listKind: 'StoreList' },
            versions: [
              { name: 'v1alpha1', served: true, storage: false, schema },
              { name: 'v1beta1', served: true, storage: true, schema },
              { name: 'v1', served: false, storage: false, schema },
            ],
          },
        };
        await c.create(builtin.customResourceDefinition, crd);
        try {
          const served = await eventually('the Store kind discovered', async () => {
            const versions = await c.servedVersions(group, 'stores');
            return versions.length === 2 ? versions : undefined;
          });
          assert.deepEqual(served, ['v1beta1', 'v1alpha1']);
        } finally {
          await c.delete(builtin.customResourceDefinition, undefined, crd.metadata.name);
        }
      });

      it('update with a stale resourceVersion is a Conflict; with the current one it succeeds', async () => {
        const created = await c.create(widgetType, widget(unique('occ')));
        const updated = await c.update(widgetType, { ...created, spec: { ...created.spec, size: 2 } });
        assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
        await assert.rejects(
          c.update(widgetType, { ...created, spec: { ...created.spec, size: 3 } }),
          KubeConflictError,
        );
        assert.equal((await c.get(widgetType, ns, created.metadata.name)).spec.size, 2);
      });

      it('delete removes the object; a precondition on another uid is a Conflict', async () => {
        const created = await c.create(widgetType, widget(unique('del')));
        await assert.rejects(
          c.delete(widgetType, ns, created.metadata.name, {
            preconditions: { uid: '00000000-0000-0000-0000-000000000000' },
          }),
          KubeConflictError,
        );
        await c.delete(widgetType, ns, created.metadata.name);
        await eventually('the widget to go', async () =>
          (await c.get(widgetType, ns, created.metadata.name).catch((e: unknown) => e)) instanceof KubeNotFoundError
            ? true
            : undefined,
        );
      });

      it('creates Secrets from stringData as base64 data', async () => {
        const s = await c.create(builtin.secret, {
          ...secret(unique('sd'), {}),
          stringData: { user: 'alice' },
        });
        assert.equal(s.data?.user, b64('alice'));
      });
    });

    describe('validation and defaults', () => {
      it('rejects schema violations with KubeInvalidError naming each field', async () => {
        const bad = { ...widget(unique('bad')), spec: { size: 20, color: 'pink', name: 'UPPER' } };
        const error = await c.create(widgetType, bad).catch((e: unknown) => e);
        assert.ok(error instanceof KubeInvalidError, String(error));
        const fields = error.causes.map((x) => x.field).sort();
        assert.deepEqual(fields, ['spec.color', 'spec.name', 'spec.size']);
      });

      it('reports a missing required field', async () => {
        const error = await c
          .create<KubeObject>(widgetType, { ...widget(unique('req')), spec: {} })
          .catch((e: unknown) => e);
        assert.ok(error instanceof KubeInvalidError, String(error));
        assert.ok(
          error.causes.some((x) => x.field === 'spec.size'),
          JSON.stringify(error.causes),
        );
      });

      it('applies defaults, prunes unknown fields, keeps preserved ones', async () => {
        const created = await c.create(widgetType, {
          ...widget(unique('def')),
          spec: { size: 1, bogus: true, extra: { anything: { nested: 1 } } } as Widget['spec'],
        });
        assert.equal(created.spec.mode, 'auto');
        assert.equal((created.spec as unknown as Record<string, unknown>).bogus, undefined);
        assert.deepEqual(created.spec.extra, { anything: { nested: 1 } });
      });

      it('rejects an invalid object name', async () => {
        await assert.rejects(c.create(widgetType, widget('Not_A_Name')), KubeInvalidError);
      });
    });

    describe('generation and the status subresource', () => {
      it('spec writes bump generation; status and metadata writes do not', async () => {
        const created = await c.create(widgetType, widget(unique('gen')));
        const specChanged = await c.update(widgetType, { ...created, spec: { ...created.spec, size: 5 } });
        assert.equal(specChanged.metadata.generation, 2);
        const labelled = await c.update(widgetType, {
          ...specChanged,
          metadata: { ...specChanged.metadata, labels: { a: 'b' } },
        });
        assert.equal(labelled.metadata.generation, 2);
        const status = await c.update(
          widgetType,
          { ...labelled, status: { phase: 'Ready', observedGeneration: 2 } },
          { subresource: 'status' },
        );
        assert.equal(status.metadata.generation, 2);
        assert.equal(status.status?.phase, 'Ready');
        const patched = await c.patch(
          widgetType,
          ns,
          created.metadata.name,
          { type: 'merge', patch: { status: { phase: 'Done' } } },
          { subresource: 'status' },
        );
        assert.equal(patched.status?.phase, 'Done');
        assert.equal(patched.metadata.generation, 2);
      });

      it('ignores status in a main-resource write, and spec in a status write', async () => {
        const created = await c.create(widgetType, { ...widget(unique('st')), status: { phase: 'Ignored' } });
        assert.equal(created.status?.phase, undefined);
        const withStatus = await c.update(
          widgetType,
          { ...created, status: { phase: 'A' } },
          { subresource: 'status' },
        );
        const main = await c.update(widgetType, {
          ...withStatus,
          spec: { ...withStatus.spec, size: 4 },
          status: { phase: 'B' },
        });
        assert.equal(main.status?.phase, 'A');
        const statusWrite = await c.update(
          widgetType,
          { ...main, spec: { ...main.spec, size: 9 }, status: { phase: 'C' } },
          { subresource: 'status' },
        );
        assert.equal(statusWrite.spec.size, 4);
        assert.equal(statusWrite.status?.phase, 'C');
      });

      it('applies status through the status subresource without touching generation', async () => {
        const created = await c.create(widgetType, widget(unique('sst')));
        const applied = await c.apply(
          widgetType,
          {
            apiVersion: created.apiVersion,
            kind: 'Widget',
            metadata: { name: created.metadata.name, namespace: ns },
            status: { phase: 'Applied' },
          },
          { fieldManager: 'status-writer', subresource: 'status', force: true },
        );
        assert.equal(applied.status?.phase, 'Applied');
        assert.equal(applied.metadata.generation, 1);
      });
    });

    describe('finalizers and deletion', () => {
      it('a finalizer holds the object with deletionTimestamp until it is removed', async () => {
        const name = unique('fin');
        await c.create(widgetType, {
          ...widget(name),
          metadata: { name, namespace: ns, finalizers: ['conformance.openregion.dev/hold'] },
        });
        await c.delete(widgetType, ns, name);
        const held = await c.get(widgetType, ns, name);
        assert.ok(held.metadata.deletionTimestamp);
        assert.deepEqual(held.metadata.finalizers, ['conformance.openregion.dev/hold']);
        await c.patch(widgetType, ns, name, { type: 'json', patch: [{ op: 'remove', path: '/metadata/finalizers' }] });
        await eventually('the finalized widget to go', async () =>
          (await c.get(widgetType, ns, name).catch((e: unknown) => e)) instanceof KubeNotFoundError ? true : undefined,
        );
      });
    });

    describe('patches', () => {
      it('merge patch sets and removes keys (RFC 7386)', async () => {
        const name = unique('mp');
        await c.create(widgetType, widget(name, { color: 'red', tags: ['a'] }));
        const patched = await c.patch(widgetType, ns, name, {
          type: 'merge',
          patch: { spec: { color: null, size: 7, tags: ['b', 'c'] } },
        });
        assert.equal(patched.spec.color, undefined);
        assert.equal(patched.spec.size, 7);
        assert.deepEqual(patched.spec.tags, ['b', 'c']);
      });

      it('JSON patch adds, replaces, removes and tests (RFC 6902)', async () => {
        const name = unique('jp');
        await c.create(widgetType, widget(name, { tags: ['a'] }));
        const patched = await c.patch(widgetType, ns, name, {
          type: 'json',
          patch: [
            { op: 'test', path: '/spec/size', value: 1 },
            { op: 'replace', path: '/spec/size', value: 3 },
            { op: 'add', path: '/spec/tags/-', value: 'b' },
            { op: 'add', path: '/spec/color', value: 'green' },
            { op: 'remove', path: '/spec/tags/0' },
          ],
        });
        assert.equal(patched.spec.size, 3);
        assert.deepEqual(patched.spec.tags, ['b']);
        assert.equal(patched.spec.color, 'green');
        await assert.rejects(
          c.patch(widgetType, ns, name, { type: 'json', patch: [{ op: 'test', path: '/spec/size', value: 99 }] }),
        );
      });

      it('a patch that breaks the schema is Invalid, and a patch carrying a stale resourceVersion is a Conflict', async () => {
        const name = unique('pv');
        const created = await c.create(widgetType, widget(name));
        await assert.rejects(
          c.patch(widgetType, ns, name, { type: 'merge', patch: { spec: { size: 99 } } }),
          KubeInvalidError,
        );
        await c.patch(widgetType, ns, name, { type: 'merge', patch: { spec: { size: 2 } } });
        await assert.rejects(
          c.patch(widgetType, ns, name, {
            type: 'merge',
            patch: { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { size: 3 } },
          }),
          KubeConflictError,
        );
      });
    });

    describe('server-side apply', () => {
      const managers = (o: KubeObject): string[] =>
        (o.metadata.managedFields ?? []).map((m) => `${m.manager}:${m.operation}`).sort();

      it('creates, records the manager, and conflicts only on fields another manager set differently', async () => {
        const name = unique('ssa');
        const cfg = (spec: Partial<Widget['spec']>): KubeObject => ({
          apiVersion: widgetType.group + '/v1',
          kind: 'Widget',
          metadata: { name, namespace: ns },
          spec,
        });
        const first = await c.apply(widgetType, cfg({ size: 2, color: 'red' }), { fieldManager: 'alpha' });
        assert.deepEqual(managers(first), ['alpha:Apply']);
        const entry = first.metadata.managedFields?.[0];
        assert.deepEqual((entry?.fieldsV1['f:spec'] as Record<string, unknown>)['f:color'], {});
        // The same value is shared ownership, not a conflict.
        await c.apply(widgetType, cfg({ size: 2 }), { fieldManager: 'beta' });
        await assert.rejects(c.apply(widgetType, cfg({ size: 3 }), { fieldManager: 'beta' }), KubeConflictError);
        const forced = await c.apply(widgetType, cfg({ size: 3 }), { fieldManager: 'beta', force: true });
        assert.equal(forced.spec.size, 3);
        assert.equal(forced.spec.color, 'red');
      });

      it('removes a field its manager stops applying, but keeps one another manager also owns', async () => {
        const name = unique('ssa-rm');
        const cfg = (spec: Partial<Widget['spec']>): KubeObject => ({
          apiVersion: widgetType.group + '/v1',
          kind: 'Widget',
          metadata: { name, namespace: ns },
          spec,
        });
        await c.apply(widgetType, cfg({ size: 2, color: 'red', name: 'keep' }), { fieldManager: 'alpha' });
        await c.apply(widgetType, cfg({ name: 'keep' }), { fieldManager: 'beta' });
        const after = await c.apply(widgetType, cfg({ size: 2 }), { fieldManager: 'alpha' });
        assert.equal(after.spec.color, undefined, 'color had only alpha as owner');
        assert.equal(after.spec.name, 'keep', 'name is co-owned by beta');
      });

      it("delivers a Secret as the KeystoneUser operator does: forced keys are repaired, others' keys stay", async () => {
        const owner = await c.create(widgetType, widget(unique('order')));
        const name = `${owner.metadata.name}-credentials`;
        const delivered = (password: string): KubeObject => ({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: ns, ownerReferences: [controllerReference(owner)] },
          type: 'Opaque',
          data: { username: b64('svc'), password: b64(password) },
        });
        const op = { fieldManager: 'keystone-user-operator', force: true };
        await c.apply(builtin.secret, delivered('one'), op);
        // Someone edits the password and adds a key of their own.
        await c.patch(
          builtin.secret,
          ns,
          name,
          { type: 'merge', patch: { data: { password: b64('edited'), note: b64('mine') } } },
          { fieldManager: 'kubectl-edit' },
        );
        await assert.rejects(
          c.apply(builtin.secret, delivered('one'), { fieldManager: 'keystone-user-operator' }),
          KubeConflictError,
        );
        const repaired = await c.apply(builtin.secret, delivered('one'), op);
        assert.deepEqual(
          repaired.data,
          { username: b64('svc'), password: b64('one'), note: b64('mine') },
          'a key another manager added stays',
        );
        const opFields = repaired.metadata.managedFields?.find((m) => m.manager === 'keystone-user-operator')?.fieldsV1;
        assert.deepEqual(Object.keys(opFields?.['f:data'] ?? {}).sort(), ['f:password', 'f:username']);
        // A rotation applies the new password; the other manager's key still stays.
        const rotated = await c.apply(builtin.secret, delivered('two'), op);
        assert.deepEqual(rotated.data, { username: b64('svc'), password: b64('two'), note: b64('mine') });
        // A deleted Secret is applied again.
        await c.delete(builtin.secret, ns, name);
        await eventually('the secret to go', async () =>
          (await c.get(builtin.secret, ns, name).catch((e: unknown) => e)) instanceof KubeNotFoundError
            ? true
            : undefined,
        );
        const again = await c.apply(builtin.secret, delivered('two'), op);
        assert.equal(again.data?.password, b64('two'));
        assert.equal(again.metadata.ownerReferences?.[0]?.uid, owner.metadata.uid);
      });
    });

    describe('list and selectors', () => {
      it('filters by namespace, label selector and field selector', async () => {
        const tag = unique('sel');
        await c.create(widgetType, widget(`${tag}-a`, {}, { app: tag, tier: 'front' }));
        await c.create(widgetType, widget(`${tag}-b`, {}, { app: tag, tier: 'back' }));
        await c.create(widgetType, widget(`${tag}-c`, {}, { app: tag }));
        const names = async (labelSelector: string, fieldSelector?: string): Promise<string[]> =>
          (await c.list(widgetType, { namespace: ns, labelSelector, fieldSelector })).items
            .map((o) => o.metadata.name)
            .sort();
        assert.deepEqual(await names(`app=${tag}`), [`${tag}-a`, `${tag}-b`, `${tag}-c`]);
        assert.deepEqual(await names(`app=${tag},tier=front`), [`${tag}-a`]);
        assert.deepEqual(await names(`app=${tag},tier!=front`), [`${tag}-b`, `${tag}-c`]);
        assert.deepEqual(await names(`app=${tag},tier in (front,back)`), [`${tag}-a`, `${tag}-b`]);
        assert.deepEqual(await names(`app=${tag},tier notin (front)`), [`${tag}-b`, `${tag}-c`]);
        assert.deepEqual(await names(`app=${tag},!tier`), [`${tag}-c`]);
        assert.deepEqual(await names(`app=${tag},tier`), [`${tag}-a`, `${tag}-b`]);
        assert.deepEqual(await names(`app=${tag}`, `metadata.name=${tag}-b`), [`${tag}-b`]);
        assert.deepEqual(await names(`app=${tag}`, `metadata.namespace=${ns},metadata.name!=${tag}-b`), [
          `${tag}-a`,
          `${tag}-c`,
        ]);
        const all = await c.list(widgetType, { labelSelector: `app=${tag}` });
        assert.equal(all.items.length, 3);
        assert.ok(all.resourceVersion);
      });
    });

    describe('watch', () => {
      it('replays ADDED, MODIFIED and DELETED from a resourceVersion, in order', async () => {
        const tag = unique('w');
        const list = await c.list(widgetType, { namespace: ns });
        await c.create(widgetType, widget(`${tag}-x`, {}, { w: tag }));
        await c.patch(widgetType, ns, `${tag}-x`, { type: 'merge', patch: { spec: { size: 2 } } });
        await c.delete(widgetType, ns, `${tag}-x`);
        const events = await collect<Widget>(
          c,
          widgetType,
          { namespace: ns, resourceVersion: list.resourceVersion, labelSelector: `w=${tag}` },
          (es) => es.some((e) => e.type === 'DELETED'),
        );
        const changes = events.filter((e) => e.type !== 'BOOKMARK');
        assert.deepEqual(
          changes.map((e) => e.type),
          ['ADDED', 'MODIFIED', 'DELETED'],
        );
        const rvs = changes.map((e) => Number(e.object.metadata.resourceVersion));
        assert.ok(
          rvs.every((rv, i) => i === 0 || rv > (rvs[i - 1] ?? 0)),
          `increasing resourceVersions: ${rvs.join(',')}`,
        );
        assert.equal(changes[2]?.object.metadata.name, `${tag}-x`);
      });

      it('delivers live changes to a running watch, and bookmarks carry only a resourceVersion', async () => {
        const tag = unique('live');
        const list = await c.list(widgetType, { namespace: ns });
        const watching = collect<Widget>(
          c,
          widgetType,
          { namespace: ns, resourceVersion: list.resourceVersion, allowBookmarks: true },
          (es) => es.some((e) => e.type === 'MODIFIED' && e.object.metadata.name === tag),
        );
        await c.create(widgetType, widget(tag));
        await c.patch(widgetType, ns, tag, { type: 'merge', patch: { spec: { size: 4 } } });
        const events = await watching;
        for (const e of events.filter((x) => x.type === 'BOOKMARK')) {
          assert.ok(e.object.metadata.resourceVersion);
          assert.equal((e.object as Record<string, unknown>).spec, undefined);
        }
        const mine = events.filter((e) => e.type !== 'BOOKMARK' && e.object.metadata.name === tag);
        assert.deepEqual(
          mine.map((e) => e.type),
          ['ADDED', 'MODIFIED'],
        );
      });

      it('a label selector turns an object leaving the selection into DELETED', async () => {
        const name = unique('leave');
        const list = await c.list(widgetType, { namespace: ns });
        await c.create(widgetType, widget(name, {}, { keep: 'yes' }));
        await c.patch(widgetType, ns, name, { type: 'merge', patch: { metadata: { labels: { keep: 'no' } } } });
        const events = await collect<Widget>(
          c,
          widgetType,
          { namespace: ns, resourceVersion: list.resourceVersion, labelSelector: 'keep=yes' },
          (es) => es.some((e) => e.type === 'DELETED'),
        );
        assert.deepEqual(
          events.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type),
          ['ADDED', 'DELETED'],
        );
      });

      it('a compacted resourceVersion is Gone', async (t) => {
        const compact = backend.compact;
        if (compact === undefined) {
          t.skip(`${backendName} cannot be made to compact its history within a test`);
          return;
        }
        const list = await c.list(widgetType, { namespace: ns });
        await c.create(widgetType, widget(unique('gone')));
        await compact();
        const watch = c.watch(widgetType, { namespace: ns, resourceVersion: list.resourceVersion });
        const iterator = watch[Symbol.asyncIterator]();
        await assert.rejects(iterator.next(), KubeGoneError);
        await iterator.return?.();
      });
    });

    describe('garbage collection', () => {
      const skip = (t: { skip(message: string): void }): boolean => {
        if (backend.supports.garbageCollection) return false;
        t.skip(
          `${backendName} runs no garbage collector (kube-controller-manager's job; not part of the test apiserver)`,
        );
        return true;
      };
      const gone = (type: typeof builtin.secret | typeof widgetType, name: string) => async () =>
        (await c.get(type, ns, name).catch((e: unknown) => e)) instanceof KubeNotFoundError ? true : undefined;

      it('background: deleting the owner deletes its dependents', async (t) => {
        if (skip(t)) return;
        const owner = await c.create(widgetType, widget(unique('bg')));
        const dep = `${owner.metadata.name}-dep`;
        await c.create(builtin.secret, secret(dep, {}, { ownerReferences: [controllerReference(owner)] }));
        await c.delete(widgetType, ns, owner.metadata.name);
        await eventually('the dependent to be collected', gone(builtin.secret, dep));
      });

      it('a dependent with another live owner only loses the reference', async (t) => {
        if (skip(t)) return;
        const a = await c.create(widgetType, widget(unique('own-a')));
        const b = await c.create(widgetType, widget(unique('own-b')));
        const dep = unique('shared');
        const ref = (o: KubeObject) => ({ ...controllerReference(o), controller: false });
        await c.create(builtin.secret, secret(dep, {}, { ownerReferences: [ref(a), ref(b)] }));
        await c.delete(widgetType, ns, a.metadata.name);
        await eventually('the dangling reference to be removed', async () => {
          const s = await c.get(builtin.secret, ns, dep);
          return s.metadata.ownerReferences?.length === 1 ? s : undefined;
        });
      });

      it('foreground: the owner waits with deletionTimestamp until blocking dependents are gone', async (t) => {
        if (skip(t)) return;
        const owner = await c.create(widgetType, widget(unique('fg')));
        const dep = `${owner.metadata.name}-dep`;
        await c.create(
          builtin.secret,
          secret(
            dep,
            {},
            { ownerReferences: [controllerReference(owner)], finalizers: ['conformance.openregion.dev/hold'] },
          ),
        );
        await c.delete(widgetType, ns, owner.metadata.name, { propagationPolicy: 'Foreground' });
        const waiting = await eventually('the dependent to be marked', async () => {
          const s = await c.get(builtin.secret, ns, dep);
          return s.metadata.deletionTimestamp ? s : undefined;
        });
        assert.ok(waiting);
        const o = await c.get(widgetType, ns, owner.metadata.name);
        assert.ok(o.metadata.deletionTimestamp);
        assert.ok(o.metadata.finalizers?.includes('foregroundDeletion'));
        await c.patch(builtin.secret, ns, dep, { type: 'merge', patch: { metadata: { finalizers: null } } });
        await eventually('the owner to go', gone(widgetType, owner.metadata.name));
      });

      it('orphan: dependents stay without the owner reference', async (t) => {
        if (skip(t)) return;
        const owner = await c.create(widgetType, widget(unique('orph')));
        const dep = `${owner.metadata.name}-dep`;
        await c.create(builtin.secret, secret(dep, {}, { ownerReferences: [controllerReference(owner)] }));
        await c.delete(widgetType, ns, owner.metadata.name, { propagationPolicy: 'Orphan' });
        await eventually('the owner to go', gone(widgetType, owner.metadata.name));
        const s = await c.get(builtin.secret, ns, dep);
        assert.equal(s.metadata.ownerReferences, undefined);
      });

      it('deleting a namespace deletes what is in it', async (t) => {
        if (skip(t)) return;
        const other = `${ns}-x`;
        await c.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: other } });
        await c.create(builtin.configMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'cm', namespace: other },
        });
        await c.delete(builtin.namespace, undefined, other);
        await eventually('the namespace to go', async () =>
          (await c.get(builtin.namespace, undefined, other).catch((e: unknown) => e)) instanceof KubeNotFoundError
            ? true
            : undefined,
        );
        await assert.rejects(c.get(builtin.configMap, other, 'cm'), KubeNotFoundError);
      });
    });

    describe('CEL validation rules', () => {
      const skip = (t: { skip(message: string): void }): boolean => {
        if (backend.supports.cel) return false;
        t.skip(`${backendName} does not enforce x-kubernetes-validations (Kubernetes 1.20 predates CEL rules)`);
        return true;
      };
      const gadget = (name: string, spec: Gadget['spec']): Gadget => ({
        apiVersion: 'conformance.openregion.dev/v1',
        kind: 'Gadget',
        metadata: { name, namespace: ns },
        spec,
      });

      it('enforces an immutable field and an only-increasing integer, on update only', async (t) => {
        if (skip(t)) return;
        const name = unique('cel');
        const created = await c.create(gadgetType, gadget(name, { userName: 'alice', passwordGeneration: 2 }));
        const err = await c
          .update(gadgetType, { ...created, spec: { userName: 'bob', passwordGeneration: 2 } })
          .catch((e: unknown) => e);
        assert.ok(err instanceof KubeInvalidError, String(err));
        assert.ok(
          err.causes.some((x) => x.field === 'spec.userName' && x.message.includes('immutable')),
          JSON.stringify(err.causes),
        );
        await assert.rejects(
          c.patch(gadgetType, ns, name, { type: 'merge', patch: { spec: { passwordGeneration: 1 } } }),
          KubeInvalidError,
        );
        const raised = await c.patch(gadgetType, ns, name, {
          type: 'merge',
          patch: { spec: { passwordGeneration: 3 } },
        });
        assert.equal(raised.spec.passwordGeneration, 3);
      });

      it('evaluates a rule over several fields, after defaults', async (t) => {
        if (skip(t)) return;
        await assert.rejects(c.create(gadgetType, gadget(unique('cel-x'), { low: 11 })), KubeInvalidError);
        await c.create(gadgetType, gadget(unique('cel-ok'), { low: 5 }));
      });

      it('refuses a CRD whose rule does not compile', async (t) => {
        if (skip(t)) return;
        await assert.rejects(c.create(builtin.customResourceDefinition, brokenRuleCrd()), KubeInvalidError);
      });
    });

    describe('events', () => {
      it('recordEvent writes a core/v1 Event about the object', async () => {
        const involved = await c.create(widgetType, widget(unique('ev')));
        const event = await recordEvent(c, involved, 'Warning', 'Testing', 'a message', systemClock);
        const got = await c.get(builtin.event, ns, event.metadata.name);
        assert.equal(got.reason, 'Testing');
        assert.equal(got.type, 'Warning');
        assert.equal(got.involvedObject.uid, involved.metadata.uid);
        const listed = await c.list(builtin.event, { namespace: ns });
        assert.ok(listed.items.some((e) => e.metadata.name === event.metadata.name));
      });

      it('the recorder counts a repeat on its Event, and combines more than 10 similar messages into one', async () => {
        const involved = await c.create(widgetType, widget(unique('rec')));
        const start = Date.parse('2026-01-01T00:00:00Z');
        const clock = new ManualClock(start);
        const errors: unknown[] = [];
        const recorder = new EventRecorder({
          client: c,
          clock,
          component: 'conformance',
          onError: (e) => errors.push(e),
        });
        for (let i = 0; i < 3; i++) {
          await recorder.record(involved, 'Warning', 'Looping', 'the same failure');
          clock.advance(1_000);
        }
        for (let i = 0; i < 15; i++) await recorder.record(involved, 'Warning', 'Varying', `failure ${String(i)}`);
        assert.deepEqual(errors, []);
        const { items } = await c.list(builtin.event, {
          namespace: ns,
          fieldSelector: `involvedObject.uid=${involved.metadata.uid ?? ''}`,
        });
        const looping = items.filter((e) => e.reason === 'Looping');
        assert.deepEqual(
          looping.map((e) => [e.count, e.message, e.firstTimestamp, e.lastTimestamp, e.source.component]),
          [[3, 'the same failure', '2026-01-01T00:00:00Z', '2026-01-01T00:00:02Z', 'conformance']],
        );
        const varying = items.filter((e) => e.reason === 'Varying');
        assert.equal(varying.length, 11, 'ten as they came, then one combined');
        const combined = varying.filter((e) => e.message.startsWith(COMBINED_PREFIX));
        assert.deepEqual(
          combined.map((e) => [e.count, e.message]),
          [[5, `${COMBINED_PREFIX}failure 14`]],
        );
      });
    });
  });
}
