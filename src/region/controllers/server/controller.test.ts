/**
 * The measured rebuild behaviours of docs/spec/openstack-provider.md §Policy-gated fields, reproduced on the emulator
 * with the Server controller and the monitor on one manual clock: what a foreign operation does and does not move, our
 * failed rebuild and its remedy, a deactivated and a nonexistent image, and an out-of-band delete.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { updateImage } from '../../../openstack/image.ts';
import { listPorts } from '../../../openstack/network.ts';
import { serverType, type ServerStatus } from '../../apis/server.ts';
import { API_VERSION, labels } from '../../apis/shared.ts';
import { sshCertificateAuthorityType } from '../../apis/ssh-certificate-authority.ts';
import { serverPortName } from '../../openstack/names.ts';
import { IMAGE_NOT_FOUND_MESSAGE, IMAGE_NOT_REALIZED_MESSAGE } from '../../openstack/server/messages.ts';
import { nextStatus } from '../status.ts';
import { ORGANIZATION, PROJECT, REGION, condition, serverObject } from '../testing/fakes.ts';
import { serverControllerFixture, type ServerControllerFixture } from '../testing/server.ts';
import { serverAddressesOf, serverInputOf, stamped } from './controller.ts';

let s: ServerControllerFixture;
before(async () => {
  s = await serverControllerFixture();
});
after(async () => {
  await s.close();
});

const CA = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ca@example';
const controls = () => s.emulator.nova.controls;
const REFUSED_MESSAGE = 'the cloud provider refused the requested change to this server; retrying';

describe('Server controller and monitor: foreign operations', () => {
  it('a foreign rebuild in flight moves no provisioning axis; only the monitor’s axes read Rebuilding', async () => {
    const input = s.input();
    const converged = await s.converged(input);
    const available = await s.available(input);
    const passes = s.passes(input.id);
    controls().foreignRebuild((await s.nova(input)).id, s.images.a);
    await s.poll();
    assert.equal((await s.condition(input, 'Active'))?.reason, 'Rebuilding');
    assert.equal((await s.condition(input, 'Healthy'))?.status, 'Unknown');
    assert.equal(s.passes(input.id), passes, 'no wake: no spec change, no observed change');
    assert.deepEqual(await s.available(input), available);
    await s.tick();
    await s.poll();
    assert.equal((await s.condition(input, 'Active'))?.reason, 'Running');
    assert.equal(s.passes(input.id), passes);
    assert.deepEqual((await s.get(input)).status?.observed, converged.status?.observed);
  });

  it('an evacuation (a rebuild on the spec image elsewhere) reads the same: no pass, Running again after', async () => {
    const input = s.input();
    await s.converged(input);
    const passes = s.passes(input.id);
    controls().evacuate((await s.nova(input)).id);
    await s.poll();
    assert.equal((await s.condition(input, 'Active'))?.reason, 'Rebuilding');
    await s.tick();
    await s.poll();
    assert.equal((await s.condition(input, 'Active'))?.reason, 'Running');
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    assert.equal(s.passes(input.id), passes);
  });

  it('a failed foreign rebuild parks on the next poll; a foreign recovery un-parks the same way', async () => {
    const input = s.input();
    await s.converged(input);
    const id = (await s.nova(input)).id;
    controls().foreignRebuild(id, s.images.a, { fail: true });
    await s.tick(1_000);
    await s.poll();
    const parked = await s.available(input);
    assert.deepEqual([parked?.reason, parked?.message], ['Errored', IMAGE_NOT_REALIZED_MESSAGE]);
    const passes = s.passes(input.id);
    await s.tick(60_000);
    assert.equal(s.passes(input.id), passes, 'a parked server has no requeue');

    controls().recover(id);
    await s.poll();
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    assert.equal((await s.nova(input)).id, id, 'the server was never replaced');
  });

  it('a foreign rebuild onto another image is reverted by R4″', async () => {
    const input = s.input();
    await s.converged(input);
    const id = (await s.nova(input)).id;
    const from = s.rows.length;
    controls().foreignRebuild(id, s.images.b);
    await s.poll();
    assert.equal((await s.get(input)).status?.observed?.image, s.images.b, 'the ref flip is observed');
    for (let i = 0; i < 4 && (await s.nova(input)).image !== s.images.a; i++) await s.tick();
    await s.tick();
    assert.deepEqual(await s.nova(input), { id, status: 'ACTIVE', image: s.images.a });
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    const taken = s.rows.slice(from);
    assert.ok(taken.includes('R4″/accepted'), 'the corrective rebuild was ours');
    assert.equal(taken.at(-1), 'R3″');
  });
});

describe('Server controller and monitor: image changes', () => {
  it('our failed rebuild parks with the cause-neutral message; a spec edit resumes it', async () => {
    const input = s.input();
    await s.converged(input);
    controls().failNext({ operation: 'rebuild', mode: 'async' });
    await s.editSpec(input, { image: { id: s.images.b } });
    assert.equal((await s.condition(input, 'Active'))?.reason, 'Rebuilding', 'the accepted stamp');
    assert.equal((await s.condition(input, 'Healthy'))?.status, 'Unknown');
    assert.equal((await s.available(input))?.reason, 'Provisioning');
    await s.tick();
    const parked = await s.available(input);
    assert.deepEqual([parked?.reason, parked?.message], ['Errored', IMAGE_NOT_REALIZED_MESSAGE]);
    assert.ok(!parked?.message.includes('rebuild'), 'the message names no cause');
    assert.deepEqual((await s.nova(input)).status, 'ERROR');

    await s.editSpec(input, { image: { id: s.images.a } });
    await s.tick();
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    assert.deepEqual([(await s.nova(input)).status, (await s.nova(input)).image], ['ACTIVE', s.images.a]);
  });

  it('a deactivated image reads as the pass’s error, retries on the 10 s yield (never parks) and converges after reactivation', async () => {
    const input = s.input();
    await s.converged(input);
    const passes = s.passes(input.id);
    await s.editSpec(input, { image: { id: s.images.deactivated } });
    await s.tick();
    // docs/spec/openstack-provider.md §Image rebuild: every other 400 "surfaces as the pass's error and retries".
    const refused = await s.available(input);
    assert.deepEqual(
      [refused?.reason, refused?.message],
      ['Errored', REFUSED_MESSAGE],
      'never "Provisioning" for ever',
    );
    assert.ok(s.passes(input.id) > passes + 1, 'retried');
    // The specification's yield interval, not an exponential back-off: one pass per 10 s, however long the refusal lasts.
    for (let i = 0; i < 4; i++) {
      const before = s.passes(input.id);
      await s.tick();
      assert.equal(s.passes(input.id), before + 1, `one pass per 10 s (tick ${String(i)})`);
    }
    assert.equal((await s.nova(input)).image, s.images.a, 'the refusal touched nothing');

    await s.control('POST', `/glance/images/${s.images.deactivated}/reactivate`);
    for (let i = 0; i < 6 && (await s.available(input))?.reason !== 'Provisioned'; i++) await s.tick();
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    assert.equal((await s.nova(input)).image, s.images.deactivated);
  });

  it('an image too big for the flavor (Nova’s 400) reads refused, retries every 10 s, and converges once it fits', async () => {
    const input = s.input();
    await s.converged(input);
    await s.editSpec(input, { image: { id: s.images.hungry } });
    await s.tick();
    const refused = await s.available(input);
    assert.deepEqual([refused?.reason, refused?.message], ['Errored', REFUSED_MESSAGE]);
    assert.ok(!refused?.message.includes('memory'), 'Nova’s text stays in the operator log');
    for (let i = 0; i < 3; i++) {
      const before = s.passes(input.id);
      await s.tick();
      assert.equal(s.passes(input.id), before + 1, `one pass per 10 s (tick ${String(i)})`);
    }
    assert.deepEqual([(await s.nova(input)).status, (await s.nova(input)).image], ['ACTIVE', s.images.a]);

    // The operator fixes the image: nothing the Server watches moves, and the 10 s retry converges it.
    await updateImage(s.admin.client('image'), s.images.hungry, [{ op: 'replace', property: 'min_ram', value: 0 }]);
    for (let i = 0; i < 6 && (await s.available(input))?.reason !== 'Provisioned'; i++) await s.tick();
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    assert.equal((await s.nova(input)).image, s.images.hungry);
  });

  it('a rebuild Nova refuses over quota (403, its real body) names the quota, retries every 10 s, then converges', async () => {
    const input = s.input();
    await s.converged(input);
    controls().failNext({
      operation: 'rebuild',
      mode: 'sync',
      status: 403,
      message: 'Maximum number of metadata items exceeds 128',
    });
    await s.editSpec(input, { image: { id: s.images.b } });
    const refused = await s.available(input);
    assert.equal(refused?.reason, 'Errored');
    assert.equal(
      refused.message,
      "the project's quota for server metadata items is exhausted: delete unused resources or ask an operator to raise it; retrying",
    );
    assert.equal((await s.nova(input)).image, s.images.a, 'the refusal touched nothing');
    await s.tick();
    assert.equal((await s.condition(input, 'Active'))?.reason, 'Rebuilding', 'the retry was accepted');
    for (let i = 0; i < 6 && (await s.available(input))?.reason !== 'Provisioned'; i++) await s.tick();
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    assert.equal((await s.nova(input)).image, s.images.b);
  });

  it('a nonexistent image parks with no requeue; the server is untouched', async () => {
    const input = s.input();
    await s.converged(input);
    await s.editSpec(input, { image: { id: randomUUID() } });
    const parked = await s.available(input);
    assert.deepEqual([parked?.reason, parked?.message], ['Errored', IMAGE_NOT_FOUND_MESSAGE]);
    const passes = s.passes(input.id);
    await s.tick(60_000);
    assert.equal(s.passes(input.id), passes);
    assert.deepEqual([(await s.nova(input)).status, (await s.nova(input)).image], ['ACTIVE', s.images.a]);
  });

  it('an out-of-band delete is recorded by the monitor and the server recreated', async () => {
    const input = s.input();
    await s.converged(input);
    const first = (await s.nova(input)).id;
    controls().deleteOutOfBand(first);
    await s.poll();
    await s.tick();
    const second = await s.nova(input);
    assert.notEqual(second.id, first);
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    await s.poll();
    assert.equal((await s.condition(input, 'Active'))?.reason, 'Running');
  });
});

describe('Server controller: the first provision', () => {
  const calls = (from: number) =>
    s
      .requestsSince(from)
      .filter((l) => l.startsWith('identity '))
      .map((l) => l.split(' ').slice(2).join(' '));

  it('makes the port and the server without re-finding them by name: nothing named for the Server exists yet', async () => {
    const input = s.input();
    const from = s.transport.requests.length;
    await s.create(input);
    const made = calls(from);
    assert.ok(made.includes('POST network /ports') && made.includes('POST compute /servers'), made.join(', '));
    assert.ok(!made.includes('GET network /ports'), `no port lookup: ${made.join(', ')}`);
    assert.ok(!made.includes('GET compute /servers/detail'), `no server lookup: ${made.join(', ')}`);
  });

  it('a pass after a failed first provision re-finds by name: one port and one server', async () => {
    const input = s.input();
    // Groups, network, subnet, then the port is made and the pass dies on its way to Nova.
    s.transport.interruptAfter(4);
    await s.create(input);
    s.transport.interruptAfter(undefined);
    assert.equal((await s.ports(input)).length, 1, 'the port was made');
    assert.equal((await s.novaServers(input.name)).length, 0, 'the server was not');
    const from = s.transport.requests.length;
    for (let i = 0; i < 5 && (await s.available(input))?.reason !== 'Provisioned'; i++) await s.tick(60_000);
    assert.equal((await s.available(input))?.reason, 'Provisioned');
    assert.ok(calls(from).includes('GET network /ports'), 'the finalizer was on: the port was re-found');
    assert.equal((await s.ports(input)).length, 1);
    assert.equal((await s.novaServers(input.name)).length, 1);
  });
});

describe('Server controller: the SSH CA and delete', () => {
  it('a named CA that does not exist gates; once it exists its key reaches the create-time user data', async () => {
    const input = s.input({ sshInjection: 'ca' });
    const caID = randomUUID();
    const object = s.serverObject(input, { sshInjection: 'ca', sshCertificateAuthorityID: caID });
    await s.store.create(serverType, object);
    await s.idle();
    assert.equal((await s.available(input))?.reason, 'DependencyNotFound');
    assert.equal(s.passes(input.id), 0);

    await s.store.create(sshCertificateAuthorityType, {
      apiVersion: API_VERSION,
      kind: sshCertificateAuthorityType.kind,
      metadata: { name: caID, namespace: s.namespace },
      spec: { publicKey: CA },
    });
    for (let i = 0; i < 4 && (await s.available(input))?.reason !== 'Provisioned'; i++) await s.tick();
    const [nova] = await s.novaServers(input.name);
    assert.equal(nova?.key_name, null, 'ca mode sends no key_name');
    const userData = (nova as unknown as Record<string, string>)['OS-EXT-SRV-ATTR:user_data'] ?? '';
    assert.ok(Buffer.from(userData, 'base64').toString().includes(CA));
  });

  it('deleting the Server deletes the Nova server, its port and floating IP, then releases the finalizer', async () => {
    const input = s.input({ publicIP: true });
    await s.converged(input);
    assert.ok((await s.get(input)).status?.publicIP !== undefined, 'the floating IP is recorded');
    await s.store.delete(serverType, s.namespace, input.id);
    await s.idle();
    for (let i = 0; i < 4 && (await s.novaServers(input.name)).length > 0; i++) await s.tick();
    await s.tick();
    await assert.rejects(s.get(input), { name: 'KubeNotFoundError' });
    assert.deepEqual(await s.novaServers(input.name), []);
    const ports = await listPorts(s.admin.client('network'), { name: serverPortName(input.id) });
    assert.deepEqual(ports, []);
  });
});

const PROVISIONED = { type: 'Available', status: 'True', reason: 'Provisioned', message: 'ok' } as const;

describe('serverInputOf', () => {
  it('builds the provider input: the display name, the first network, SSH mode resolved, user data decoded', () => {
    const input = serverInputOf(
      serverObject(undefined, {
        networks: [{ id: 'net-1', allowedAddressPairs: [{ cidr: '10.0.0.0/24', macAddress: 'fa:16:3e:00:00:01' }] }],
        securityGroups: [{ id: 'sg-1' }],
        publicIPAllocation: { enabled: true },
        sshCertificateAuthorityID: 'ca-1',
        userData: Buffer.from('#!/bin/sh\n').toString('base64'),
        tags: [{ name: 'a.example.com/b', value: 'c' }],
      }),
      'ssh-ed25519 AAAA ca',
    );
    assert.deepEqual(
      { ...input, userData: input?.userData && Buffer.from(input.userData).toString() },
      {
        organizationID: ORGANIZATION,
        projectID: PROJECT,
        regionID: REGION,
        id: 's-1',
        name: 'web',
        flavorID: 'f',
        imageID: 'img',
        networkID: 'net-1',
        allowedAddressPairs: [{ cidr: '10.0.0.0/24', macAddress: 'fa:16:3e:00:00:01' }],
        securityGroupIDs: ['sg-1'],
        publicIP: true,
        sshInjection: 'ca',
        userData: '#!/bin/sh\n',
        tags: [{ name: 'a.example.com/b', value: 'c' }],
        sshCertificateAuthorityPublicKey: 'ssh-ed25519 AAAA ca',
      },
    );
    assert.equal(serverInputOf(serverObject())?.sshInjection, 'identityKeypair');
    assert.equal(serverInputOf(serverObject(undefined, { sshInjection: 'none' }))?.sshInjection, 'none');
  });

  it('without its display name label there is no Nova name to find it by', () => {
    assert.equal(serverInputOf(serverObject(undefined, {}, { [labels.name]: '' })), undefined);
  });
});

describe('the status the reconciler writes besides Available', () => {
  it('the addresses record what the pass realised and drop an address it no longer has', () => {
    const before: ServerStatus = { privateIP: '10.0.0.5', publicIP: '203.0.113.9', macAddress: 'fa:16:3e:00:00:01' };
    const { conditions: _, ...after } =
      nextStatus(before, PROVISIONED, 0, serverAddressesOf({ privateIP: '10.0.0.5' })) ?? assert.fail('a change');
    assert.deepEqual(after, { privateIP: '10.0.0.5', macAddress: 'fa:16:3e:00:00:01' });
  });

  it('stamped: Active Rebuilding and Healthy Unknown, what the monitor maps a rebuild to, nothing else touched', () => {
    const before: ServerStatus = {
      observed: { generation: 2, image: 'img', errored: false },
      conditions: [condition('Active', 'True', 'Running'), condition('Available', 'True', 'Provisioned')],
    };
    const after = stamped(before, new Date('2026-02-01T00:00:00Z'));
    assert.deepEqual(after.observed, before.observed);
    assert.deepEqual(
      after.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['Active', 'False', 'Rebuilding'],
        ['Available', 'True', 'Provisioned'],
        ['Healthy', 'Unknown', 'Unknown'],
      ],
    );
    assert.deepEqual(
      after.conditions.filter((c) => c.type !== 'Available').map((c) => c.message),
      ['the server is being rebuilt', 'unable to determine server status'],
    );
  });
});
