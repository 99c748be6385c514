import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getNode, getNodeByInstanceUuid, listNodes, NODE_FIELDS, type BaremetalClient } from './baremetal.ts';
import { ConsistencyError, NotFoundError } from './errors.ts';
import { clientHarness, type Harness } from './testing/harness.ts';

const base = '/baremetal/v1';
const instance = '6f1c1c0e-0000-4000-8000-000000000001';

const node = (uuid: string, instanceUuid: string | null, extra: Record<string, unknown> = {}) => ({
  uuid,
  name: `node-${uuid}`,
  instance_uuid: instanceUuid,
  provision_state: 'deploying',
  target_provision_state: 'active',
  power_state: 'power on',
  maintenance: false,
  last_error: null,
  driver: 'ipmi',
  links: [],
  ...extra,
});

describe('baremetal', () => {
  let h: Harness;
  let ironic: BaremetalClient;
  before(async () => ({ h, client: ironic } = await clientHarness('baremetal')));
  after(() => h.close());

  it('lists nodes with instance_uuid and fields, following the absolute next URL', async () => {
    h.cloud.on('GET', `${base}/nodes`, (req) =>
      req.query.get('marker') === 'n-1'
        ? { body: { nodes: [node('n-2', null)] } }
        : {
            body: {
              nodes: [node('n-1', null)],
              next: 'http://ironic.internal:6385/v1/nodes?limit=1&fields=uuid,name&marker=n-1',
            },
          },
    );
    const start = h.cloud.requests.length;
    const nodes = await listNodes(ironic, { instanceUuid: instance, fields: ['uuid', 'name'] }, { pageSize: 1 });
    assert.deepEqual(
      nodes.map((n) => n.uuid),
      ['n-1', 'n-2'],
    );
    const [first, second] = h.cloud.requests.slice(start);
    assert.ok(first && second);
    assert.equal(first.path, `${base}/nodes`);
    assert.equal(first.query.get('instance_uuid'), instance);
    assert.equal(first.query.get('fields'), 'uuid,name');
    assert.equal(first.query.get('limit'), '1');
    assert.equal(first.headers['openstack-api-version'], 'baremetal 1.11');
    assert.equal(first.headers['x-openstack-ironic-api-version'], '1.11');
    // The cloud's own host is replaced by the endpoint we use; only the path and query are taken from the link.
    assert.equal(second.path, `${base}/nodes`);
    assert.equal(second.query.get('marker'), 'n-1');
    assert.equal(second.headers['x-openstack-ironic-api-version'], '1.11');
  });

  it('sends no filters when none are given', async () => {
    h.cloud.on('GET', `${base}/nodes`, { body: { nodes: [] } });
    assert.deepEqual(await listNodes(ironic, { fields: [] }), []);
    assert.deepEqual([...h.cloud.last().query.keys()], []);
  });

  describe('getNodeByInstanceUuid', () => {
    it('returns undefined when no node carries the instance', async () => {
      h.cloud.on('GET', `${base}/nodes`, { body: { nodes: [] } });
      assert.equal(await getNodeByInstanceUuid(ironic, instance), undefined);
      const req = h.cloud.last('GET', `${base}/nodes`);
      assert.equal(req.query.get('instance_uuid'), instance);
      assert.deepEqual(req.query.get('fields')?.split(','), [...NODE_FIELDS]);
      assert.equal(req.headers['openstack-api-version'], 'baremetal 1.11');
    });

    it('returns the one node deployed for the instance', async () => {
      h.cloud.on('GET', `${base}/nodes`, {
        body: { nodes: [node('n-1', instance, { provision_state: 'wait call-back' })] },
      });
      const found = await getNodeByInstanceUuid(ironic, instance);
      assert.equal(found?.uuid, 'n-1');
      assert.equal(found.provision_state, 'wait call-back');
      assert.equal(found.target_provision_state, 'active');
      assert.equal(found.power_state, 'power on');
    });

    it('ignores a node reported for another instance', async () => {
      h.cloud.on('GET', `${base}/nodes`, { body: { nodes: [node('n-9', 'someone-else')] } });
      assert.equal(await getNodeByInstanceUuid(ironic, instance), undefined);
    });

    it('throws ConsistencyError when two nodes claim the instance', async () => {
      h.cloud.on('GET', `${base}/nodes`, { body: { nodes: [node('n-1', instance), node('n-2', instance)] } });
      await assert.rejects(getNodeByInstanceUuid(ironic, instance), (e: unknown) => {
        assert.ok(e instanceof ConsistencyError);
        assert.deepEqual(e.ids, ['n-1', 'n-2']);
        return true;
      });
    });
  });

  it('gets a node with its states, resource class and traits', async () => {
    h.cloud.on('GET', `${base}/nodes/:ident`, (_req, p) => ({
      body: node(p.ident ?? '', instance, {
        provision_state: 'deploy failed',
        last_error: 'Timeout reached while waiting for callback',
        maintenance: true,
        resource_class: 'baremetal.gold',
        traits: ['CUSTOM_GOLD'],
      }),
    }));
    const got = await getNode(ironic, 'n-1');
    const req = h.cloud.last();
    assert.equal(req.path, `${base}/nodes/n-1`);
    assert.equal(req.query.has('fields'), false);
    assert.equal(req.headers['x-openstack-ironic-api-version'], '1.11');
    assert.equal(got.uuid, 'n-1');
    assert.equal(got.provision_state, 'deploy failed');
    assert.equal(got.last_error, 'Timeout reached while waiting for callback');
    assert.equal(got.maintenance, true);
    assert.equal(got.instance_uuid, instance);
    assert.equal(got.driver, 'ipmi');
    assert.equal(got.resource_class, 'baremetal.gold');
    assert.deepEqual(got.traits, ['CUSTOM_GOLD']);

    await getNode(ironic, 'node name', ['uuid', 'provision_state']);
    assert.equal(h.cloud.last().path, `${base}/nodes/node%20name`);
    assert.equal(h.cloud.last().query.get('fields'), 'uuid,provision_state');
  });

  it('surfaces Ironic’s error_message on a missing node', async () => {
    h.cloud.on('GET', `${base}/nodes/:ident`, {
      status: 404,
      body: {
        error_message: JSON.stringify({
          faultcode: 'Client',
          faultstring: 'Node n-0 could not be found.',
          debuginfo: null,
        }),
      },
    });
    await assert.rejects(getNode(ironic, 'n-0'), (e: unknown) => {
      assert.ok(e instanceof NotFoundError);
      assert.equal(e.urlTemplate, '/nodes/{node_ident}');
      assert.equal(e.fault.message, 'Node n-0 could not be found.');
      return true;
    });
  });
});
