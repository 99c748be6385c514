import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as n from './names.ts';

const ID = '0c7a1b2e-5d4f-4e3a-9b8c-7d6e5f4a3b2c';

describe('names as the spec and upstream spell them', () => {
  it('identity scaffolding', () => {
    const want = `unikorn-identity-${ID}`;
    assert.equal(n.identityName(ID), want);
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
    assert.equal(n.leftBehindIdentityTag(ID), `openregion:identity=${ID}`);
    assert.ok(n.leftBehindIdentityTag(ID).length <= 60 && n.LEFT_BEHIND_TAG.length <= 60, "older Neutron's tag limit");
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

/** The parser of a prefix-and-id name family: what follows `name('')`, undefined for a name not of the family. */
const parserOf =
  (name: (id: string) => string) =>
  (text: string): string | undefined => {
    const prefix = name('');
    return text.startsWith(prefix) && text.length > prefix.length ? text.slice(prefix.length) : undefined;
  };

// Every single-id name family, with the parser that reverses it.
const families: [string, (id: string) => string, (name: string) => string | undefined][] = [
  ['identity', n.identityName, parserOf(n.identityName)],
  ['network', n.networkName, parserOf(n.networkName)],
  ['security group', n.securityGroupName, parserOf(n.securityGroupName)],
  ['port', n.serverPortName, parserOf(n.serverPortName)],
  ['load balancer', n.loadBalancerName, parserOf(n.loadBalancerName)],
  ['volume', n.volumeName, parserOf(n.volumeName)],
  ['vlan allocation', n.vlanAllocationName, parserOf(n.vlanAllocationName)],
  ['organization tag', n.organizationTag, parserOf(n.organizationTag)],
  ['project tag', n.projectTag, parserOf(n.projectTag)],
  ['image package', n.imagePackageProperty, n.parseImagePackageProperty],
  ['image tag', n.imageTagProperty, n.parseImageTagProperty],
  ['left-behind identity tag', n.leftBehindIdentityTag, n.parseLeftBehindIdentityTag],
];

describe('parsers', () => {
  for (const [kind, name, parse] of families) {
    it(`${kind}: parse(name(id)) === id`, () => {
      fc.assert(fc.property(fc.oneof(fc.uuid(), fc.string({ minLength: 1 })), (id) => parse(name(id)) === id));
    });
  }

  it('reject names that are not ours or name no id', () => {
    assert.equal(parserOf(n.identityName)('unikorn-identity-'), undefined);
    assert.equal(parserOf(n.identityName)('my-project'), undefined);
    assert.equal(parserOf(n.networkName)(`Network-${ID}`), undefined);
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

/**
 * Keystone on MariaDB compares names under `utf8_general_ci`: case- and accent-insensitive, trailing spaces
 * pad-equal (docs/spec/keystone-orders.md §Name comparison). Two names with equal keys are the same name to
 * Keystone: the identity names must stay apart under this folding.
 */
function keystoneNameKey(name: string): string {
  // Lowercasing first: some capitals lowercase to a letter plus a mark (İ → i̇), which must fold away too.
  return name
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .normalize('NFC')
    .replace(/ +$/u, '');
}

describe('keystoneNameKey', () => {
  it('folds as MariaDB utf8_general_ci compares', () => {
    const key = keystoneNameKey(n.identityName(ID));
    assert.equal(keystoneNameKey(`UNIKORN-Identity-${ID.toUpperCase()}`), key);
    assert.equal(keystoneNameKey(`unikorn-identity-${ID}  `), key);
    assert.equal(keystoneNameKey('admín'), keystoneNameKey('ADMIN'));
    assert.equal(keystoneNameKey('İSTANBUL'), keystoneNameKey('istanbul'));
    // PAD SPACE: only trailing spaces are insignificant.
    assert.notEqual(keystoneNameKey(` unikorn-identity-${ID}`), key);
  });

  it('is idempotent and ignores ASCII case', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const key = keystoneNameKey(s);
        assert.equal(keystoneNameKey(key), key);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9-]{1,30}$/), (s) => {
        assert.equal(keystoneNameKey(s.toUpperCase()), keystoneNameKey(s.toLowerCase()));
      }),
    );
  });

  it('keeps distinct identities distinct', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (a, b) => {
        const same = keystoneNameKey(n.identityName(a)) === keystoneNameKey(n.identityName(b));
        assert.equal(same, a.toLowerCase() === b.toLowerCase());
      }),
    );
  });
});
