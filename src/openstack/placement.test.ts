import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getResourceProviderTraits, listResourceProviders } from './placement.ts';
import { startHarness, type Harness } from './testing/harness.ts';

describe('placement', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('filters providers by resources and required and forbidden traits at microversion 1.22', async () => {
    h.cloud.on('GET', '/placement/resource_providers', {
      body: {
        resource_providers: [
          { uuid: 'rp-1', name: 'node-1', generation: 3, parent_provider_uuid: null, root_provider_uuid: 'rp-1' },
        ],
      },
    });
    const providers = await listResourceProviders(h.session.client('placement'), {
      resources: { CUSTOM_GOLD: 1, VCPU: 2 },
      requiredTraits: ['HW_CPU_X86_AVX2'],
      forbiddenTraits: ['CUSTOM_MAINTENANCE'],
    });
    assert.deepEqual(
      providers.map((p) => p.uuid),
      ['rp-1'],
    );
    const req = h.cloud.last();
    assert.equal(req.query.get('resources'), 'CUSTOM_GOLD:1,VCPU:2');
    assert.equal(req.query.get('required'), 'HW_CPU_X86_AVX2,!CUSTOM_MAINTENANCE');
    assert.equal(req.headers['openstack-api-version'], 'placement 1.22');
  });

  it('sends no trait filter when there are no traits', async () => {
    h.cloud.on('GET', '/placement/resource_providers', { body: { resource_providers: [] } });
    assert.deepEqual(await listResourceProviders(h.session.client('placement'), { resources: { CUSTOM_GOLD: 1 } }), []);
    assert.equal(h.cloud.last().query.has('required'), false);
  });

  it('reads a provider’s traits', async () => {
    h.cloud.on('GET', '/placement/resource_providers/:uuid/traits', (_req, p) => ({
      body: { traits: [`T_${p.uuid ?? ''}`], resource_provider_generation: 1 },
    }));
    const traits = await getResourceProviderTraits(h.session.client('placement'), 'rp-9');
    assert.deepEqual(traits.traits, ['T_rp-9']);
  });
});
