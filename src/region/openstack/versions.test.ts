import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndpointNotFoundError, TransportError } from '../../openstack/errors.ts';
import { silentLogger } from '../../runtime/logger.ts';
import type { RegionContext } from './registry.ts';
import { checkRegionApiVersions, RegionApiVersionError } from './versions.ts';

type Answer = unknown;

/** A region whose clients answer GETs of the version documents with what the test says each service offers. */
function regionOffering(answers: { compute: Answer; 'load-balancer': Answer }): RegionContext {
  const client = (service: 'compute' | 'load-balancer') => ({
    baseUrl: () => Promise.resolve(`https://${service}.example/v2`),
    request: () => {
      const answer = answers[service];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve({ body: answer });
    },
  });
  return {
    region: { metadata: { name: 'r1' } },
    clients: { region: () => ({ client }) },
  } as unknown as RegionContext;
}

const nova = (min: string, max: string) => ({ version: { id: 'v2.1', min_version: min, version: max } });
const octavia = (current: string) => ({
  versions: [
    { id: 'v2.0', status: 'SUPPORTED' },
    { id: current, status: 'CURRENT' },
  ],
});
const log = silentLogger();

describe('checkRegionApiVersions (start-up)', () => {
  it('passes a cloud offering Nova 2.90 and Octavia 2.22 or later', async () => {
    await checkRegionApiVersions(regionOffering({ compute: nova('2.1', '2.93'), 'load-balancer': octavia('v2.26') }), {
      log,
    });
  });

  it('refuses a Nova below the pinned microversion, naming the region, the service, required and offered', async () => {
    const region = regionOffering({ compute: nova('2.1', '2.60'), 'load-balancer': octavia('v2.26') });
    await assert.rejects(checkRegionApiVersions(region, { log }), (error: unknown) => {
      assert.ok(error instanceof RegionApiVersionError);
      assert.equal(
        error.message,
        "region r1: compute: the cloud's Nova API offers microversions 2.1 to 2.60; openregion needs 2.90",
      );
      return true;
    });
  });

  it('refuses an Octavia older than 2.22, naming both versions', async () => {
    const region = regionOffering({ compute: nova('2.1', '2.93'), 'load-balancer': octavia('v2.21') });
    await assert.rejects(
      checkRegionApiVersions(region, { log }),
      /region r1: load-balancer: the cloud's Octavia API is 2\.21; openregion needs 2\.22 or later/,
    );
  });

  it('a configured compute microversion is the one checked', async () => {
    const region = regionOffering({ compute: nova('2.1', '2.90'), 'load-balancer': octavia('v2.26') });
    await checkRegionApiVersions(region, { log, computeMicroversion: '2.90' });
    await assert.rejects(checkRegionApiVersions(region, { log, computeMicroversion: '2.92' }), RegionApiVersionError);
  });

  it('a service the catalog does not list is not checked; a cloud that cannot be asked is let through', async () => {
    const site = { serviceType: 'compute', method: 'GET', urlTemplate: '/' };
    await checkRegionApiVersions(
      regionOffering({
        compute: new TransportError(site, new Error('ECONNREFUSED')),
        'load-balancer': new EndpointNotFoundError('load-balancer', 'public', 'RegionOne'),
      }),
      { log },
    );
  });
});
