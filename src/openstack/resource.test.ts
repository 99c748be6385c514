import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsistencyError } from './errors.ts';
import type { QueryKeys } from './request.ts';
import { resource } from './resource.ts';
import type { RequestSpec, ServiceClient } from './session.ts';

interface Widget {
  readonly id: string;
  readonly name: string;
}

interface WidgetFilter {
  readonly name?: string | undefined;
  readonly projectID?: string | undefined;
}

const keys: QueryKeys<WidgetFilter> = { name: 'name', projectID: 'project_id' };

/** A client that records each request and answers with `answer(spec)`. */
function recording(answer: (spec: RequestSpec) => unknown) {
  const sent: RequestSpec[] = [];
  const client: ServiceClient<'network'> = {
    serviceType: 'network',
    scope: 'project',
    baseUrl: () => Promise.resolve('http://neutron.test/v2.0'),
    request: ((spec: RequestSpec) => {
      sent.push(spec);
      return Promise.resolve({ status: 200, headers: {}, body: answer(spec), requestID: undefined });
    }) as ServiceClient['request'],
  };
  return { client, sent };
}

const widgets = resource<ServiceClient<'network'>, Widget, WidgetFilter, { name: string }, { name: string }>({
  path: '/widget-things',
  envelope: 'widget_thing',
  keys,
  style: { kind: 'links', items: 'widget_things' },
});

describe('resource', () => {
  it('names the member by `{<envelope>_id}` below the collection, and wraps bodies in the envelope', async () => {
    const widget = { id: 'w1', name: 'one' };
    const { client, sent } = recording(() => ({ widget_thing: widget }));
    assert.deepEqual(await widgets.create(client, { name: 'one' }), widget);
    assert.deepEqual(await widgets.get(client, 'w1'), widget);
    assert.deepEqual(await widgets.update(client, 'w1', { name: 'two' }), widget);
    await widgets.delete(client, 'w1');
    assert.deepEqual(sent, [
      { method: 'POST', path: '/widget-things', body: { widget_thing: { name: 'one' } } },
      { method: 'GET', path: '/widget-things/{widget_thing_id}', params: { widget_thing_id: 'w1' } },
      {
        method: 'PUT',
        path: '/widget-things/{widget_thing_id}',
        params: { widget_thing_id: 'w1' },
        body: { widget_thing: { name: 'two' } },
      },
      { method: 'DELETE', path: '/widget-things/{widget_thing_id}', params: { widget_thing_id: 'w1' } },
    ]);
  });

  it('updates with the declared method and lists from the declared list path', async () => {
    const patched = resource<ServiceClient<'network'>, Widget, WidgetFilter, never, { name: string }>({
      path: '/widgets',
      listPath: '/widgets/detail',
      envelope: 'widget',
      keys,
      style: { kind: 'links', items: 'widgets' },
      update: 'PATCH',
    });
    const { client, sent } = recording((spec) => (spec.method === 'GET' ? { widgets: [] } : { widget: {} }));
    await patched.update(client, 'w1', { name: 'two' });
    await patched.list(client, { projectID: 'p1' });
    assert.deepEqual(
      sent.map((s) => [s.method, s.path, s.query]),
      [
        ['PATCH', '/widgets/{widget_id}', undefined],
        ['GET', '/widgets/detail', { project_id: 'p1' }],
      ],
    );
  });

  it('finds by exact name among what the service matched, with the filter, and refuses a duplicate', async () => {
    const listed = [
      { id: 'w1', name: 'one' },
      { id: 'w2', name: 'ONE' },
    ];
    const { client, sent } = recording(() => ({ widget_things: listed }));
    assert.deepEqual(await widgets.findByName(client, 'one', { projectID: 'p1' }), { id: 'w1', name: 'one' });
    assert.deepEqual(sent[0]?.query, { name: 'one', project_id: 'p1' });
    assert.equal(await widgets.findByName(client, 'two'), undefined);
    listed.push({ id: 'w3', name: 'one' });
    await assert.rejects(widgets.findByName(client, 'one'), (error: unknown) => {
      assert.ok(error instanceof ConsistencyError);
      assert.match(error.message, /widget_thing/);
      return true;
    });
  });
});
