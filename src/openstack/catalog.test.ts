import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogEndpoint, CatalogEntry } from './auth.ts';
import { selectEndpoint, serviceBaseUrl, serviceTypeAliases, type ServiceType } from './catalog.ts';
import { EndpointNotFoundError, ErrorCode } from './errors.ts';

const ep = (
  iface: string,
  url: string,
  region: Partial<Pick<CatalogEndpoint, 'region' | 'region_id'>> = {},
): CatalogEndpoint => ({
  interface: iface,
  url,
  region_id: 'RegionOne',
  region: 'RegionOne',
  ...region,
});
const entry = (type: string, ...endpoints: CatalogEndpoint[]): CatalogEntry => ({ type, endpoints });
const publicOnly = { interface: 'public' } as const;

describe('selectEndpoint', () => {
  it('finds a service by its type', () => {
    const catalog = [
      entry('identity', ep('public', 'https://keystone.example/v3')),
      entry('compute', ep('public', 'https://nova.example/v2.1')),
      entry('network', ep('public', 'https://neutron.example')),
    ];
    assert.equal(selectEndpoint(catalog, 'compute', publicOnly), 'https://nova.example/v2.1');
    assert.equal(selectEndpoint(catalog, 'network', publicOnly), 'https://neutron.example');
  });

  it('finds block-storage under volumev3 when there is no block-storage entry', () => {
    const catalog = [entry('volumev3', ep('public', 'https://cinder.example/v3/%(project_id)s'))];
    assert.equal(selectEndpoint(catalog, 'block-storage', publicOnly), 'https://cinder.example/v3/%(project_id)s');
  });

  it('prefers block-storage to volumev3, and volumev3 to volumev2, whatever the catalog order', () => {
    const catalog = [
      entry('volumev2', ep('public', 'https://cinder.example/v2')),
      entry('volumev3', ep('public', 'https://cinder.example/v3')),
      entry('block-storage', ep('public', 'https://block-storage.example/v3')),
    ];
    assert.equal(selectEndpoint(catalog, 'block-storage', publicOnly), 'https://block-storage.example/v3');
    assert.equal(selectEndpoint(catalog.slice(0, 2), 'block-storage', publicOnly), 'https://cinder.example/v3');
    assert.equal(selectEndpoint(catalog.slice(0, 1), 'block-storage', publicOnly), 'https://cinder.example/v2');
  });

  it('falls back to the next alias when the preferred one has no endpoint in the region', () => {
    const catalog = [
      entry('block-storage', ep('public', 'https://two.example/v3', { region_id: 'RegionTwo', region: 'RegionTwo' })),
      entry('volumev3', ep('public', 'https://one.example/v3')),
    ];
    assert.equal(
      selectEndpoint(catalog, 'block-storage', { interface: 'public', region: 'RegionOne' }),
      'https://one.example/v3',
    );
  });

  it('finds baremetal under its older bare-metal type', () => {
    const catalog = [entry('bare-metal', ep('public', 'https://ironic.example'))];
    assert.equal(selectEndpoint(catalog, 'baremetal', publicOnly), 'https://ironic.example');
  });

  it('lists every service type’s own name first among its aliases', () => {
    for (const [type, aliases] of Object.entries(serviceTypeAliases)) assert.equal(aliases[0], type);
  });

  it('picks the endpoint of the interface asked for', () => {
    const catalog = [
      entry(
        'compute',
        ep('admin', 'https://admin.example/v2.1'),
        ep('internal', 'http://internal.example:8774/v2.1'),
        ep('public', 'https://public.example/v2.1'),
      ),
    ];
    assert.equal(selectEndpoint(catalog, 'compute', { interface: 'public' }), 'https://public.example/v2.1');
    assert.equal(selectEndpoint(catalog, 'compute', { interface: 'internal' }), 'http://internal.example:8774/v2.1');
    assert.equal(selectEndpoint(catalog, 'compute', { interface: 'admin' }), 'https://admin.example/v2.1');
  });

  it('picks the endpoint in the region asked for, by region_id or by the legacy region', () => {
    const catalog = [
      entry(
        'image',
        ep('public', 'https://one.example', { region_id: 'RegionOne', region: 'RegionOne' }),
        ep('public', 'https://two.example', { region_id: 'RegionTwo', region: 'RegionTwo' }),
        // Older Keystones give only the legacy `region`.
        { interface: 'public', url: 'https://three.example', region: 'RegionThree' },
        ep('public', 'https://four.example', { region_id: 'RegionFour', region: null }),
      ),
    ];
    const inRegion = (region: string) => selectEndpoint(catalog, 'image', { interface: 'public', region });
    assert.equal(inRegion('RegionOne'), 'https://one.example');
    assert.equal(inRegion('RegionTwo'), 'https://two.example');
    assert.equal(inRegion('RegionThree'), 'https://three.example');
    assert.equal(inRegion('RegionFour'), 'https://four.example');
    // No region asked for: the first endpoint of the interface.
    assert.equal(selectEndpoint(catalog, 'image', { interface: 'public', region: undefined }), 'https://one.example');
  });

  it('throws EndpointNotFoundError for a missing type, interface or region', () => {
    const catalog = [entry('compute', ep('public', 'https://nova.example/v2.1'))];
    const check = (type: ServiceType, filter: Parameters<typeof selectEndpoint>[2], pattern: RegExp) => {
      assert.throws(
        () => selectEndpoint(catalog, type, filter),
        (e: unknown) => {
          assert.ok(e instanceof EndpointNotFoundError);
          assert.equal(e.code, ErrorCode.EndpointNotFound);
          assert.match(e.message, pattern);
          return true;
        },
      );
    };
    check('network', { interface: 'public' }, /^no public endpoint for service type network in the catalog$/);
    check('compute', { interface: 'internal' }, /^no internal endpoint for service type compute in the catalog$/);
    check('compute', { interface: 'public', region: 'RegionTwo' }, /compute in region RegionTwo/);
    assert.throws(() => selectEndpoint([], 'identity', publicOnly), EndpointNotFoundError);
  });
});

describe('serviceBaseUrl', () => {
  const cases: [string, ServiceType, string][] = [
    // Registered at the version: left as is.
    ['https://keystone.example:5000/v3', 'identity', 'https://keystone.example:5000/v3'],
    ['https://nova.example:8774/v2.1', 'compute', 'https://nova.example:8774/v2.1'],
    ['https://glance.example/v2', 'image', 'https://glance.example/v2'],
    ['https://neutron.example/v2.0', 'network', 'https://neutron.example/v2.0'],
    ['https://cinder.example/v3', 'block-storage', 'https://cinder.example/v3'],
    ['https://octavia.example/v2', 'load-balancer', 'https://octavia.example/v2'],
    ['https://ironic.example/v1', 'baremetal', 'https://ironic.example/v1'],
    // Registered at the root: the version is added.
    ['https://keystone.example:5000', 'identity', 'https://keystone.example:5000/v3'],
    ['https://nova.example:8774', 'compute', 'https://nova.example:8774/v2.1'],
    ['https://glance.example:9292', 'image', 'https://glance.example:9292/v2'],
    ['https://neutron.example:9696', 'network', 'https://neutron.example:9696/v2.0'],
    ['https://cinder.example:8776', 'block-storage', 'https://cinder.example:8776/v3'],
    ['https://octavia.example:9876', 'load-balancer', 'https://octavia.example:9876/v2'],
    ['https://ironic.example:6385', 'baremetal', 'https://ironic.example:6385/v1'],
    // Behind a path-routing proxy.
    ['https://cloud.example/identity', 'identity', 'https://cloud.example/identity/v3'],
    ['https://cloud.example/compute/v2.1', 'compute', 'https://cloud.example/compute/v2.1'],
    ['https://cloud.example/network', 'network', 'https://cloud.example/network/v2.0'],
    // Placement has no version segment.
    ['https://placement.example', 'placement', 'https://placement.example'],
    ['https://cloud.example/placement', 'placement', 'https://cloud.example/placement'],
    // Trailing slashes go.
    ['https://neutron.example:9696/', 'network', 'https://neutron.example:9696/v2.0'],
    ['https://keystone.example/v3/', 'identity', 'https://keystone.example/v3'],
    ['https://placement.example/placement//', 'placement', 'https://placement.example/placement'],
    // The segment is matched as a whole path segment, never in the host or inside another segment.
    ['https://v2.glance.example', 'image', 'https://v2.glance.example/v2'],
    ['https://cloud.example/v2.1-proxy', 'compute', 'https://cloud.example/v2.1-proxy/v2.1'],
  ];
  for (const [url, type, expected] of cases) {
    it(`${type}: ${url} → ${expected}`, () => {
      assert.equal(serviceBaseUrl(url, type), expected);
    });
  }

  it('fills the project id into %(project_id)s, %(tenant_id)s and $(project_id)s', () => {
    assert.equal(
      serviceBaseUrl('https://cinder.example/v3/%(project_id)s', 'block-storage', 'p-1'),
      'https://cinder.example/v3/p-1',
    );
    assert.equal(
      serviceBaseUrl('https://cinder.example/v3/%(tenant_id)s/', 'block-storage', 'p-1'),
      'https://cinder.example/v3/p-1',
    );
    assert.equal(
      serviceBaseUrl('https://nova.example/v2.1/$(project_id)s', 'compute', 'p-2'),
      'https://nova.example/v2.1/p-2',
    );
  });
});
