/**
 * The rest of a server's life through the provider on the emulator: duplicate Nova names, deletes interrupted at
 * each request, power, console, snapshot, delete of server, port and floating IP, a never-realised identity, and
 * the not-found surfacing of a vanished server.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as nova from '../../../openstack/compute.ts';
import { getImage } from '../../../openstack/image.ts';
import { ServerGoneError } from '../../provider/contract.ts';
import type { Outcome } from '../../provider/outcome.ts';
import type { Image } from '../../provider/types.ts';
import type { OpenstackServerProvider } from './provider.ts';
import { networkName, serverPortName } from '../names.ts';
import { serverFixtureWithProvider, type ServerFixture } from '../testing/server.ts';
import { testImage } from '../../provider/testing/image.ts';

const ctx = { signal: new AbortController().signal };

/** What the REST API hands the provider: the server's image, renamed, owned by the organization. */
const template: Image = testImage('source', { name: 'snap-1', tags: { team: 'web' }, organizationID: 'org-snap' });

let w: ServerFixture;
let provider: OpenstackServerProvider;

before(async () => ({ w, provider } = await serverFixtureWithProvider()));
after(() => w.close());

describe('consistency and interrupted deletes', () => {
  it("a Nova server of the same name another Server made is not this one's: each converges and deletes its own", async () => {
    const input = w.input();
    await w.converge(provider, input);
    const region = await w.context();
    const privileged = region.clients.privileged(w.projectID).client('compute');
    // What two Servers of one display name left before names were unique on a network (ADR 0034).
    const other = { ...w.input(), name: input.name };
    await w.converge(provider, other);
    assert.equal((await w.novaServers(input.name)).length, 2);
    assert.equal((await provider.createServer(ctx, w.identity, input)).kind, 'done');
    const polled = await provider.pollServers(ctx, w.identity, [
      { server: input, generation: 1, status: undefined },
      { server: other, generation: 1, status: undefined },
    ]);
    assert.deepEqual(
      polled.map((p) => [p.id, p.found]),
      [
        [input.id, true],
        [other.id, true],
      ],
    );
    for (let pass = 0; pass < 10; pass++) {
      if ((await provider.deleteServer(ctx, w.identity, other)).kind === 'done') break;
      w.advance(1000);
    }
    const left = await w.novaServers(input.name);
    assert.equal(left.length, 1, 'the other Server deleted exactly its own');
    assert.equal(left[0]?.metadata['region:server_id'], input.id);
    // Two Nova servers that both claim this Server are a consistency error, never a pick.
    await nova.createServer(privileged, {
      name: input.name,
      flavorRef: w.flavorID,
      imageRef: w.images.a,
      networks: 'none',
      metadata: { 'region:server_id': input.id },
    });
    await assert.rejects(provider.createServer(ctx, w.identity, input), { name: 'ResourceConsistencyError' });
    assert.deepEqual(
      await provider.pollServers(ctx, w.identity, [{ server: input, generation: 1, status: undefined }]),
      [],
    );
  });

  it('a server whose display name changed behind the API is found by its port, renamed, and deleted', async () => {
    const input = w.input();
    await w.converge(provider, input);
    const renamed = { ...input, name: `${input.name}-renamed` };
    assert.deepEqual((await w.novaServers(renamed.name)).length, 0);
    assert.equal((await provider.createServer(ctx, w.identity, renamed)).kind, 'done');
    assert.equal((await w.novaServers(renamed.name)).length, 1, 'it follows the name');
    assert.equal((await w.novaServers(input.name)).length, 0, 'no second server');
    // Renamed again, then deleted before any pass: the delete still finds it through the port.
    const again = { ...input, name: `${input.name}-again` };
    assert.deepEqual(await provider.deleteServer(ctx, w.identity, again), { kind: 'yield', reason: 'server-deleting' });
    for (let pass = 0; pass < 10; pass++) {
      w.advance(1000);
      if ((await provider.deleteServer(ctx, w.identity, again)).kind === 'done') break;
    }
    assert.deepEqual(await w.novaServers(renamed.name), []);
    assert.deepEqual(await w.ports(input), []);
  });

  it('converges after a delete interrupted after each request in turn: nothing left', async () => {
    for (let n = 1; ; n++) {
      const input = w.input({ publicIP: true });
      await w.converge(provider, input);
      const [port] = await w.ports(input);
      w.transport.interruptAfter(n);
      let interrupted = false;
      for (let pass = 0; pass < 6; pass++) {
        const outcome = await provider.deleteServer(ctx, w.identity, input).catch((e: unknown) => e);
        if (outcome instanceof Error) interrupted = true;
        else if ((outcome as Outcome<undefined>).kind === 'done') break;
        w.advance(1000);
      }
      w.transport.interruptAfter(undefined);
      assert.equal((await (await w.provider()).deleteServer(ctx, w.identity, input)).kind, 'done');
      assert.deepEqual(await w.novaServers(input.name), [], `n=${String(n)}: no server`);
      assert.deepEqual(await w.ports(input), [], `n=${String(n)}: no port`);
      assert.deepEqual(await w.floatingIPs(port?.id ?? ''), [], `n=${String(n)}: no floating IP`);
      if (!interrupted) break;
      assert.ok(n < 20, 'the delete passes end');
    }
  });
});

describe('deleteServer and the rest of the lifecycle', () => {
  it('power, console output and snapshot reach the server; delete removes server, port and floating IP', async () => {
    const input = w.input({ publicIP: true });
    await w.converge(provider, input);
    assert.equal((await provider.stopServer(ctx, w.identity, input)).kind, 'done');
    assert.deepEqual(await provider.startServer(ctx, w.identity, input), { kind: 'yield', reason: 'start/conflict' });
    w.advance(1000);
    assert.equal((await provider.startServer(ctx, w.identity, input)).kind, 'done');
    w.advance(1000);
    assert.equal((await provider.rebootServer(ctx, w.identity, input, true)).kind, 'done');
    w.advance(1000);
    assert.equal((await provider.rebootServer(ctx, w.identity, input, false)).kind, 'done');
    w.advance(1000);
    assert.match(await provider.getConsoleOutput(ctx, w.identity, input, 1), /login/);
    assert.match(await provider.createConsoleSession(ctx, w.identity, input), /vnc_auto\.html\?path=.*token/);
    const snapshot = await provider.createSnapshot(ctx, w.identity, input, template);
    assert.equal(snapshot.identityID, w.identity.id);
    assert.ok(snapshot.id !== '');
    w.advance(1000);

    const [port] = await w.ports(input);
    assert.deepEqual(await provider.deleteServer(ctx, w.identity, input), { kind: 'yield', reason: 'server-deleting' });
    w.advance(1000);
    assert.equal((await provider.deleteServer(ctx, w.identity, input)).kind, 'done');
    assert.deepEqual(await w.novaServers(input.name), []);
    assert.deepEqual(await w.ports(input), []);
    assert.deepEqual(await w.floatingIPs(port?.id ?? ''), []);
    assert.equal((await provider.deleteServer(ctx, w.identity, input)).kind, 'done', 'idempotent');
    await assert.rejects(provider.getConsoleOutput(ctx, w.identity, input), { name: 'ResourceNotFoundError' });
  });

  it('a snapshot carries the image properties upstream sets and is published with the privileged client', async () => {
    const input = w.input();
    await w.converge(provider, input);
    const from = w.transport.requests.length;
    const snapshot = await provider.createSnapshot(ctx, w.identity, input, template);
    assert.deepEqual(
      w.requestsSince(from).filter((r) => !r.includes(' GET ')),
      [
        `identity project:${w.projectID} POST compute /servers/{server_id}/action`,
        `region project:${w.projectID} PATCH image /images/{image_id}`,
      ],
      'taken as the identity, published by the region credential in the identity project',
    );
    assert.equal(snapshot.name, 'snap-1');
    assert.equal(snapshot.organizationID, 'org-snap');
    assert.equal(snapshot.identityID, w.identity.id);
    assert.deepEqual(snapshot.os, template.os);
    assert.equal(snapshot.status, 'pending', 'queued until the hypervisor has uploaded it');
    const glance = await getImage(w.admin.client('image'), snapshot.id);
    assert.equal(glance.visibility, 'public');
    assert.equal(glance.owner, w.projectID, "the identity's project owns it");
    const props = glance as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries({
      'unikorn:organization:id': 'org-snap',
      'unikorn:identity_id': w.identity.id,
      'unikorn:os:kernel': 'linux',
      'unikorn:os:distro': 'ubuntu',
      'unikorn:os:version': '24.04',
      'unikorn:virtualization': 'virtualized',
      'unikorn:tag:team': 'web',
      architecture: 'x86_64',
      hw_firmware_type: 'uefi',
      hw_machine_type: 'q35',
    })) {
      assert.equal(props[key], value, key);
    }
    w.advance(1000);
  });

  it('refuses to snapshot into an image no organization owns: published, it would be everyone’s', async () => {
    const input = w.input();
    await w.converge(provider, input);
    const from = w.transport.requests.length;
    const { organizationID: _, ...unowned } = template;
    await assert.rejects(provider.createSnapshot(ctx, w.identity, input, unowned), {
      name: 'ResourceConsistencyError',
    });
    assert.deepEqual(w.requestsSince(from), [], 'nothing asked of the cloud');
  });

  it('a never-realised identity: delete is done without a request; a create waits', async () => {
    const stranger = { ...w.identity, id: 'never-realised' };
    const from = w.transport.requests.length;
    assert.equal((await provider.deleteServer(ctx, stranger, w.input())).kind, 'done');
    assert.equal(w.transport.requests.length, from);
    await assert.rejects(provider.createServer(ctx, stranger, w.input()), { name: 'TransientError' });
  });

  it('updateServerState surfaces a vanished server as not found, carrying the absent observation', async () => {
    const input = w.input();
    await w.converge(provider, input);
    const status = await provider.updateServerState(ctx, w.identity, {
      server: input,
      generation: 1,
      status: undefined,
    });
    assert.equal(status.observed?.image, w.images.a);
    const [server] = await w.novaServers(input.name);
    w.emulator.nova.controls.deleteOutOfBand(server?.id ?? '');
    const gone = await provider
      .updateServerState(ctx, w.identity, { server: input, generation: 1, status })
      .catch((e: unknown) => e);
    assert.ok(gone instanceof ServerGoneError);
    assert.deepEqual(gone.status.observed, { generation: 1, image: w.images.a, errored: false });
  });
});

describe('a server created while its network is still being provisioned', () => {
  it('waits for the subnet rather than make a port Nova refuses, and addresses a port made before it', async () => {
    const admin = w.admin.client('network');
    const make = async <T>(kind: 'network' | 'port' | 'subnet', body: Record<string, unknown>) =>
      (
        await admin.request<Record<string, T>>({
          method: 'POST',
          path: `/${kind}s`,
          body: { [kind]: { project_id: w.projectID, ...body } },
        })
      ).body[kind] as T;
    const networkID = randomUUID();
    const bare = await make<{ id: string }>('network', { name: networkName(networkID) });
    const input = w.input({ networkID });
    await assert.rejects(provider.createServer(ctx, w.identity, input), { name: 'TransientError' });
    assert.deepEqual(await w.ports(input), [], 'no port before the network has a subnet');
    // What an earlier version made in that window: the server's port, without an address.
    await make('port', { network_id: bare.id, name: serverPortName(input.id) });
    await make('subnet', { network_id: bare.id, cidr: '192.168.99.0/24', ip_version: 4 });
    await w.converge(provider, input);
    const [port, ...more] = await w.ports(input);
    assert.equal(more.length, 0);
    assert.match(port?.fixed_ips[0]?.ip_address ?? '', /^192\.168\.99\./);
  });
});
