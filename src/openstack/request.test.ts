import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { commaJoined, flag, joined, requestEnveloped, toQuery, type QueryKeys } from './request.ts';
import { startHarness, type Harness } from './testing/harness.ts';

interface Filter {
  readonly name?: string | undefined;
  readonly projectId?: string | undefined;
  readonly routerExternal?: boolean | undefined;
  readonly tagsAny?: readonly string[] | undefined;
  readonly images?: readonly string[] | undefined;
  readonly allTenants?: boolean | undefined;
}

const keys: QueryKeys<Filter> = {
  name: 'name',
  projectId: 'project_id',
  routerExternal: 'router:external',
  tagsAny: commaJoined('tags-any'),
  images: 'image',
  allTenants: flag('all_tenants', 'True'),
};

describe('toQuery', () => {
  it('writes each set field under its wire name, with its encoder', () => {
    assert.deepEqual(
      toQuery(
        {
          name: 'n',
          projectId: 'p',
          routerExternal: false,
          tagsAny: ['a', 'b'],
          images: ['i1', 'i2'],
          allTenants: true,
        },
        keys,
      ),
      {
        name: 'n',
        project_id: 'p',
        'router:external': false,
        'tags-any': 'a,b',
        image: ['i1', 'i2'],
        all_tenants: 'True',
      },
    );
  });

  it('leaves out unset fields, and fields their encoder unsets (an empty list, a false flag)', () => {
    assert.deepEqual(toQuery({}, keys), {});
    assert.deepEqual(toQuery({ name: undefined, tagsAny: [], allTenants: false }, keys), {});
  });

  it('never writes a camelCase key: every key it writes is a declared wire name', () => {
    const wire = new Set(['name', 'project_id', 'router:external', 'tags-any', 'image', 'all_tenants']);
    fc.assert(
      fc.property(
        fc.record(
          {
            name: fc.string(),
            projectId: fc.string(),
            routerExternal: fc.boolean(),
            tagsAny: fc.array(fc.string()),
            images: fc.array(fc.string()),
            allTenants: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
        (filter) => Object.keys(toQuery(filter, keys)).every((k) => wire.has(k)),
      ),
    );
  });
});

describe('joined', () => {
  it('is one comma-separated value, and unset when there is nothing to join', () => {
    assert.equal(joined(['a', 'b', 'c']), 'a,b,c');
    assert.equal(joined([]), undefined);
    assert.equal(joined(undefined), undefined);
  });
});

describe('requestEnveloped', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('sends the request as given and returns what the envelope holds', async () => {
    h.cloud.on('PUT', '/network/v2.0/networks/net-1', (req) => ({
      body: { network: { id: 'net-1', echoed: req.json() }, other: 1 },
    }));
    const network = await requestEnveloped(h.session.client('network'), 'network', {
      method: 'PUT',
      path: '/networks/{network_id}',
      params: { network_id: 'net-1' },
      body: { network: { name: 'n' } },
    });
    assert.deepEqual(network, { id: 'net-1', echoed: { network: { name: 'n' } } });
  });
});
