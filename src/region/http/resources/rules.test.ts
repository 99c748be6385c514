/** The specification's rules that need no store: pure checks over one request. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { vipProblem } from '../../apis/index.ts';
import { validateNetworkCreate } from './network.ts';
import { imageViolations } from './server.ts';
import { userDataProblem } from './server-user-data.ts';
import type { Flavor, Image } from '../../provider/types.ts';
import type { Flavor as NovaFlavor } from '../../../openstack/compute.ts';
import { exportFlavors } from '../../openstack/inventory/flavors.ts';
import { flavorRead } from './inventory.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('request rules', () => {
  it('user data must be something cloud-init reads', () => {
    assert.equal(userDataProblem(b64('#cloud-config\npackages: [nginx]\n')), undefined);
    assert.equal(userDataProblem(b64('#!/bin/sh\necho hi\n')), undefined);
    assert.equal(userDataProblem(b64('Content-Type: multipart/mixed; boundary="x"\nMIME-Version: 1.0\n')), undefined);
    assert.match(userDataProblem(b64('echo hi\n')) ?? '', /cloud-init format/);
    assert.match(userDataProblem(Buffer.from([0x1f, 0x8b, 8, 0]).toString('base64')) ?? '', /gzip/);
    assert.match(userDataProblem(b64('Content-Type: multipart/mixed\n')) ?? '', /boundary/);
  });

  it('a VIP must be a usable host of the network: inside it, not its network, gateway or broadcast address', () => {
    assert.equal(vipProblem('192.168.0.50', '192.168.0.0/24'), undefined);
    assert.equal(vipProblem('192.168.1.50', '192.168.0.0/24')?.rule, 'inNetwork');
    assert.equal(vipProblem('10.0.255.254', '10.0.0.0/16'), undefined);
    assert.equal(vipProblem('10.0.0.2', '10.0.0.0/16'), undefined);
    for (const reserved of ['192.168.0.0', '192.168.0.1', '192.168.0.255']) {
      assert.equal(vipProblem(reserved, '192.168.0.0/24')?.rule, 'usableAddress', reserved);
    }
    assert.equal(vipProblem('10.0.255.255', '10.0.0.0/16')?.rule, 'usableAddress');
  });

  it('a network is between a /8 and a /24, with a reservation inside it', () => {
    const spec = { organizationId: 'o', projectId: 'p', regionId: 'r', dnsNameservers: [] };
    assert.deepEqual(validateNetworkCreate({ ...spec, prefix: '10.0.0.0/16' }), []);
    assert.deepEqual(validateNetworkCreate({ ...spec, prefix: '10.0.0.0/8' }), []);
    const rules = (prefix: string) => validateNetworkCreate({ ...spec, prefix }).map((v) => v.rule);
    assert.deepEqual(rules('0.0.0.0/0'), ['maximumPrefixSize']);
    assert.deepEqual(rules('10.0.0.0/7'), ['maximumPrefixSize']);
    assert.deepEqual(rules('10.0.0.0/25'), ['minimumPrefixSize']);
    assert.deepEqual(
      validateNetworkCreate({
        ...spec,
        prefix: '10.0.0.0/24',
        reservations: { prefixLength: 26, providerReservedPrefixLength: 25 },
      }).map((v) => v.rule),
      ['notShorterThanReservation'],
    );
  });

  it('an image must suit the flavor: architecture, virtualization, disk', () => {
    const flavor: Flavor = {
      id: 'f',
      name: 'f',
      architecture: 'x86_64',
      cpus: 1,
      diskBytes: 10 * 2 ** 30,
      baremetal: true,
      pinnedOnly: false,
    };
    const image = {
      id: 'i',
      status: 'ready',
      architecture: 'aarch64',
      virtualization: 'virtualized',
      sizeGiB: 20,
    } as Image;
    assert.deepEqual(
      imageViolations(image, flavor).map((v) => v.rule),
      ['architecture', 'virtualization', 'disk'],
    );
    assert.deepEqual(
      imageViolations({ ...image, architecture: 'x86_64', virtualization: 'any', sizeGiB: 1 }, flavor).map(
        (v) => v.rule,
      ),
      [],
    );
  });

  it("Nova's flavor disk is GiB: an image exactly the flavor's disk fits, one GiB more does not", () => {
    // The dev cloud's or.small: disk 1 (Nova's root_gb), booting or-image-a, 1 GiB.
    const small: NovaFlavor = {
      id: 'small',
      name: 'or.small',
      vcpus: 1,
      ram: 512,
      disk: 1,
      swap: 0,
      'OS-FLV-EXT-DATA:ephemeral': 0,
      'os-flavor-access:is_public': true,
      description: null,
    };
    const [flavor] = exportFlavors([small], { endpoint: 'e', serviceAccountSecret: { namespace: 'n', name: 's' } });
    const image = { id: 'i', status: 'ready', architecture: 'x86_64', virtualization: 'any', sizeGiB: 1 } as Image;
    assert.deepEqual(imageViolations(image, flavor), []);
    assert.deepEqual(
      imageViolations({ ...image, sizeGiB: 2 }, flavor).map((v) => v.rule),
      ['disk'],
    );
    // The API reports the flavor's disk as Nova's number.
    assert.equal(flavorRead(flavor ?? assert.fail('exported'), 'now').spec.disk, 1);
  });
});
