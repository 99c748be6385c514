import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as n from './names.ts';

const ID = '0c7a1b2e-5d4f-4e3a-9b8c-7d6e5f4a3b2c';

describe('names as the seed and reference spell them', () => {
  it('identity scaffolding', () => {
    const want = `unikorn-identity-${ID}`;
    for (const f of [
      n.identityName,
      n.identityProjectName,
      n.identityUserName,
      n.identityApplicationCredentialName,
      n.identityServerGroupName,
    ]) {
      assert.equal(f(ID), want);
    }
    assert.equal(n.IDENTITY_KEYPAIR_NAME, 'unikorn-openstack-provider');
    assert.equal(n.organizationTag('org-1'), 'organization=org-1');
    assert.equal(n.projectTag('proj-1'), 'project=proj-1');
  });

  it('neutron', () => {
    assert.equal(n.networkName(ID), `network-${ID}`);
    assert.equal(n.subnetName(ID), `network-${ID}`);
    assert.equal(n.routerName(ID), `network-${ID}`);
    assert.equal(n.securityGroupName(ID), `securitygroup-${ID}`);
    assert.equal(n.serverPortName(ID), `server-${ID}`);
  });

  it('nova server name is the display-name label', () => {
    assert.equal(n.serverName({ 'unikorn-cloud.org/name': 'web-1', other: 'x' }), 'web-1');
    assert.equal(n.serverName({}), undefined);
  });

  it('octavia', () => {
    assert.equal(n.loadBalancerName(ID), `lb-${ID}`);
    assert.equal(n.listenerName(ID, 'http'), `lb-${ID}-http-listener`);
    assert.equal(n.poolName(ID, 'http'), `lb-${ID}-http-pool`);
    assert.equal(n.monitorName(ID, 'http'), `lb-${ID}-http-monitor`);
    assert.equal(n.loadBalancerChildPrefix(ID), `lb-${ID}-`);
  });

  it('cinder and kubernetes', () => {
    assert.equal(n.volumeName(ID), `volume-${ID}`);
    assert.equal(n.VOLUME_DESCRIPTION, 'unikorn managed block storage volume');
    assert.equal(n.vlanAllocationName('eu-west'), 'openstack.eu-west');
  });

  it('image properties', () => {
    assert.equal(n.ImageProperty.osKernel, 'unikorn:os:kernel');
    assert.equal(n.ImageProperty.gpuModels, 'unikorn:gpu_models');
    assert.equal(n.ImageProperty.organizationID, 'unikorn:organization:id');
    assert.equal(n.ImageProperty.legacyKubernetesVersion, 'unikorn:kubernetes_version');
    assert.equal(n.imagePackageProperty('slurmd'), 'unikorn:package:slurmd');
    assert.equal(n.imageTagProperty('team'), 'unikorn:tag:team');
    assert.deepEqual(n.imageCreateProperties('x86_64'), {
      hw_disk_bus: 'scsi',
      hw_firmware_type: 'uefi',
      hw_scsi_model: 'virtio-scsi',
      hw_machine_type: 'q35',
    });
    assert.equal(n.imageCreateProperties('aarch64').hw_machine_type, 'virt');
  });
});

describe('metadata', () => {
  it('translates namespaced tag keys and drops the rest', () => {
    assert.equal(n.tagMetadataKey('kubernetes.io/cluster-name'), 'kubernetes:cluster_name');
    assert.equal(n.tagMetadataKey('billing.example.com/cost-centre'), 'billing:cost_centre');
    for (const key of ['team', 'Kubernetes.io/x', 'a.b/c/d', 'a/b', '-a.b/c', 'a.b/']) {
      assert.equal(n.tagMetadataKey(key), undefined, key);
    }
  });

  const ids = { serverID: 's', organizationID: 'o', projectID: 'p', regionID: 'r' };

  it('server metadata: namespaced and legacy keys, system keys beating colliding tags', () => {
    const tags = [
      { name: 'region.unikorn-cloud.org/server-id', value: 'forged' },
      { name: 'app.example.com/tier', value: 'web' },
    ];
    assert.deepEqual(n.serverMetadata(ids, tags), {
      'app:tier': 'web',
      'region:server_id': 's',
      'identity:organization_id': 'o',
      'identity:project_id': 'p',
      'region:region_id': 'r',
      serverID: 's',
      organizationID: 'o',
      projectID: 'p',
      regionID: 'r',
    });
  });

  it('volume metadata: namespaced keys only, never the legacy ones', () => {
    const got = n.volumeMetadata({ ...ids, volumeID: 'v', networkID: 'net', identityID: 'i' }, [
      { name: 'region.x/identity-id', value: 'forged' },
    ]);
    assert.deepEqual(got, {
      'region:identity_id': 'i',
      'region:volume_id': 'v',
      'identity:organization_id': 'o',
      'identity:project_id': 'p',
      'region:region_id': 'r',
      'region:network_id': 'net',
    });
  });

  it('no tag can override a system key (property)', () => {
    const tagArb = fc.record({
      name: fc.oneof(
        fc.constantFrom(...Object.values(n.SystemMetadata).map((k) => k.replace(':', '.x/').replaceAll('_', '-'))),
        fc.string(),
      ),
      value: fc.string(),
    });
    fc.assert(
      fc.property(fc.array(tagArb), (tags) => {
        const got = n.serverMetadata(ids, tags);
        assert.equal(got['region:server_id'], 's');
        assert.equal(got['identity:organization_id'], 'o');
        assert.equal(got.serverID, 's');
      }),
    );
  });
});

// Every single-id name family, with the parser that reverses it.
const families: [string, (id: string) => string, (name: string) => string | undefined][] = [
  ['identity', n.identityName, n.parseIdentityName],
  ['network', n.networkName, n.parseNetworkName],
  ['security group', n.securityGroupName, n.parseSecurityGroupName],
  ['port', n.serverPortName, n.parseServerPortName],
  ['load balancer', n.loadBalancerName, n.parseLoadBalancerName],
  ['volume', n.volumeName, n.parseVolumeName],
  ['vlan allocation', n.vlanAllocationName, n.parseVlanAllocationName],
  ['organization tag', n.organizationTag, n.parseOrganizationTag],
  ['project tag', n.projectTag, n.parseProjectTag],
  ['image package', n.imagePackageProperty, n.parseImagePackageProperty],
  ['image tag', n.imageTagProperty, n.parseImageTagProperty],
];

describe('parsers', () => {
  for (const [kind, name, parse] of families) {
    it(`${kind}: parse(name(id)) === id`, () => {
      fc.assert(fc.property(fc.oneof(fc.uuid(), fc.string({ minLength: 1 })), (id) => parse(name(id)) === id));
    });
  }

  it('reject names that are not ours or name no id', () => {
    assert.equal(n.parseIdentityName('unikorn-identity-'), undefined);
    assert.equal(n.parseIdentityName('my-project'), undefined);
    assert.equal(n.parseNetworkName(`Network-${ID}`), undefined);
  });

  it('load balancer children: parse(child(lb, listener, kind)) recovers both, dashes included', () => {
    const listenerArb = fc.oneof(
      fc.string({ minLength: 1 }),
      fc.constantFrom('http', 'x-pool', 'a-listener', 'monitor-', '-', 'pool'),
    );
    fc.assert(
      fc.property(fc.uuid(), listenerArb, fc.constantFrom('listener', 'pool', 'monitor'), (lb, listener, child) => {
        const name = n.loadBalancerChildName(lb, listener, child);
        assert.deepEqual(n.parseLoadBalancerChildName(lb, name), { listener, child });
      }),
    );
    assert.equal(n.parseLoadBalancerChildName(ID, `lb-${ID}-http-member`), undefined);
    assert.equal(n.parseLoadBalancerChildName(ID, `lb-${ID}--pool`), undefined);
    assert.equal(n.parseLoadBalancerChildName(ID, `lb-${ID}-webpool`), undefined);
    assert.equal(n.parseLoadBalancerChildName(ID, n.listenerName('other', 'http')), undefined);
  });
});

describe('names of different kinds never collide', () => {
  it('across families, for any ids', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (a, b) => {
        for (const [kindA, nameA] of families) {
          for (const [kindB, nameB, parseB] of families) {
            if (kindA === kindB) continue;
            assert.notEqual(nameA(a), nameB(b), `${kindA} vs ${kindB}`);
            assert.equal(parseB(nameA(a)), undefined, `${kindB} parses a ${kindA} name`);
          }
        }
      }),
    );
  });

  it('within a load balancer: children of different kinds or listeners, and the balancer itself', () => {
    const listenerArb = fc.string({ minLength: 1, maxLength: 12 });
    const childArb = fc.constantFrom<n.LoadBalancerChild>('listener', 'pool', 'monitor');
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), listenerArb, listenerArb, childArb, childArb, (a, b, l1, l2, c1, c2) => {
        const x = n.loadBalancerChildName(a, l1, c1);
        const y = n.loadBalancerChildName(b, l2, c2);
        assert.equal(x === y, a === b && l1 === l2 && c1 === c2);
        assert.notEqual(x, n.loadBalancerName(b));
      }),
    );
  });
});

describe('keystoneNameKey', () => {
  it('folds as MariaDB utf8_general_ci compares', () => {
    const key = n.keystoneNameKey(n.identityProjectName(ID));
    assert.equal(n.keystoneNameKey(`UNIKORN-Identity-${ID.toUpperCase()}`), key);
    assert.equal(n.keystoneNameKey(`unikorn-identity-${ID}  `), key);
    assert.equal(n.keystoneNameKey('admín'), n.keystoneNameKey('ADMIN'));
    assert.equal(n.keystoneNameKey('İSTANBUL'), n.keystoneNameKey('istanbul'));
    // PAD SPACE: only trailing spaces are insignificant.
    assert.notEqual(n.keystoneNameKey(` unikorn-identity-${ID}`), key);
  });

  it('is idempotent and ignores ASCII case', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const key = n.keystoneNameKey(s);
        assert.equal(n.keystoneNameKey(key), key);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9-]{1,30}$/), (s) => {
        assert.equal(n.keystoneNameKey(s.toUpperCase()), n.keystoneNameKey(s.toLowerCase()));
      }),
    );
  });

  it('keeps distinct identities distinct', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (a, b) => {
        const same = n.keystoneNameKey(n.identityName(a)) === n.keystoneNameKey(n.identityName(b));
        assert.equal(same, a.toLowerCase() === b.toLowerCase());
      }),
    );
  });
});
