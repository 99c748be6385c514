/** loadBalancerProviderFor: which identity it acts as comes from the OpenstackIdentity record, or from nothing. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../../util/clock.ts';
import { openRegionStore } from '../../apis/testing/store.ts';
import { API_VERSION, openstackIdentityType } from '../../apis/index.ts';
import { TransientError } from '../../provider/errors.ts';
import type { LoadBalancerInput } from '../../provider/inputs.ts';
import type { RegionContext } from '../registry.ts';
import { loadBalancerProviderFor } from './provider.ts';

const store = await openRegionStore(systemClock);
after(() => store.close());

// No client may be asked for: every case here ends before OpenStack is reached.
const region = {
  namespace: 'default',
  config: {},
  clients: new Proxy({}, { get: () => assert.fail('no OpenStack call is expected') }),
} as unknown as RegionContext;
const ctx = { signal: new AbortController().signal };
const owner = { organizationID: 'o', projectID: 'p', regionID: 'r' };
const lb: LoadBalancerInput = { ...owner, id: 'lb', networkID: 'n', publicIP: false, listeners: [] };

describe('loadBalancerProviderFor', () => {
  it('an identity with no record, or a record without its user, was never realised: delete is done, create waits', async () => {
    await store.create(openstackIdentityType, {
      apiVersion: API_VERSION,
      kind: 'OpenstackIdentity',
      metadata: { name: 'half', namespace: 'default' },
      spec: { projectID: 'project-without-user' },
    });
    const provider = loadBalancerProviderFor(region, { kube: store });
    for (const id of ['absent', 'half']) {
      const identity = { ...owner, id };
      assert.deepEqual(await provider.deleteLoadBalancer(ctx, identity, lb), { kind: 'done', value: undefined });
      await assert.rejects(provider.createLoadBalancer(ctx, identity, lb), TransientError);
    }
  });
});
