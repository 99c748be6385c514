import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpError } from './errors.ts';
import { quotaRefusal } from './quota.ts';

const answer = (serviceType: string, status: number, body: unknown) =>
  httpError({
    serviceType,
    method: 'POST',
    urlTemplate: '/things',
    status,
    requestID: 'req-1',
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('quotaRefusal: each service says "quota" its own way', () => {
  const refusals: [string, ReturnType<typeof answer>, string][] = [
    [
      'Nova 403 instances',
      answer('compute', 403, {
        forbidden: {
          code: 403,
          message: 'Quota exceeded for instances: Requested 1, but already used 10 of 10 instances',
        },
      }),
      'instances',
    ],
    [
      'Nova 403 cores',
      answer('compute', 403, {
        forbidden: { code: 403, message: 'Quota exceeded for cores: Requested 4, but already used 20 of 20 cores' },
      }),
      'cores',
    ],
    [
      'Nova 403 OverQuota listing its resources (a rebuild over the metadata quota)',
      answer('compute', 403, { forbidden: { code: 403, message: "Quota exceeded for resources: ['metadata_items']" } }),
      'metadata_items',
    ],
    [
      'Nova 403 MetadataLimitExceeded',
      answer('compute', 403, { forbidden: { code: 403, message: 'Maximum number of metadata items exceeds 128' } }),
      'metadata_items',
    ],
    [
      'Nova 403 key pairs',
      answer('compute', 403, { forbidden: { message: 'Quota exceeded, too many key pairs.' } }),
      'key_pairs',
    ],
    [
      'Neutron 409 OverQuota',
      answer('network', 409, {
        NeutronError: { type: 'OverQuota', message: "Quota exceeded for resources: ['security_group'].", detail: '' },
      }),
      'security_group',
    ],
    [
      'Cinder 413 VolumeLimitExceeded',
      answer('block-storage', 413, {
        overLimit: {
          code: 413,
          message: "VolumeLimitExceeded: Maximum number of volumes allowed (10) exceeded for quota 'volumes'.",
          retryAfter: '0',
        },
      }),
      'volumes',
    ],
    [
      'Cinder 413 gigabytes',
      answer('block-storage', 413, {
        overLimit: {
          code: 413,
          message:
            'VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes quota. Requested 5G, quota is 1G and 0G has been consumed.',
        },
      }),
      'gigabytes',
    ],
    [
      'Cinder 400 naming a quota',
      answer('block-storage', 400, {
        badRequest: { code: 400, message: 'Invalid input: the quota of this project is used up.' },
      }),
      '',
    ],
    [
      'Octavia 403',
      answer('load-balancer', 403, {
        faultcode: 'Client',
        faultstring: 'Quota has been met for resources: Load Balancer',
        debuginfo: null,
      }),
      'load_balancer',
    ],
  ];
  for (const [name, error, quota] of refusals) {
    it(`${name} → ${quota === '' ? 'an unnamed quota' : quota}`, () => {
      assert.equal(quotaRefusal(error), quota);
    });
  }

  const others: [string, unknown][] = [
    [
      'Neutron 409 in use',
      answer('network', 409, { NeutronError: { type: 'SecurityGroupInUse', message: 'Security Group 1 in use.' } }),
    ],
    [
      'Nova 403 policy',
      answer('compute', 403, {
        forbidden: { message: 'Policy does not allow os_compute_api:servers:create to be performed.' },
      }),
    ],
    [
      'Cinder 400 bad size',
      answer('block-storage', 400, { badRequest: { message: 'Invalid input received: size must be > 0' } }),
    ],
    ['Nova 404', answer('compute', 404, { itemNotFound: { message: 'Quota exceeded for instances' } })],
    ['not an HTTP error', new Error('Quota exceeded for instances')],
    [
      'Keystone 400 quoting quota text',
      answer('identity', 400, { error: { code: 400, message: 'Quota exceeded for instances' } }),
    ],
  ];
  for (const [name, error] of others) {
    it(`${name} is not a quota refusal`, () => {
      assert.equal(quotaRefusal(error), undefined);
    });
  }
});
