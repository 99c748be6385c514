/**
 * The rest of a server's life through the provider on the emulator: duplicate Nova names, deletes interrupted at
 * each request, power, console, snapshot, delete of server, port and floating IP, a never-realised identity, and
 * the not-found surfacing of a vanished server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as nova from '../../../openstack/compute.ts';
import { ServerGoneError } from '../../provider/contract.ts';
import type { Outcome } from '../../provider/outcome.ts';
import type { Image } from '../../provider/types.ts';
import type { OpenstackServerProvider } from './provider.ts';
import { serverFixture, type ServerFixture } from '../testing/server.ts';

const ctx = { signal: new AbortController().signal };

let w: ServerFixture;
let provider: OpenstackServerProvider;

before(async () => {
  w = await serverFixture();
  provider = await w.provider();
});
after(async () => {
  await w.close();
});

describe('consistency and interrupted deletes', () => {
  it('two Nova servers under one name: a consistency error to create, and the poll leaves the server out', async () => {
    const input = w.input();
    await w.converge(provider, input);
    const region = await w.context();
    const privileged = region.clients.privileged(w.projectID).client('compute');
    await nova.createServer(privileged, {
      name: input.name,
      flavorRef: w.flavorID,
      imageRef: w.images.a,
      networks: 'none',
    });
    await assert.rejects(provider.createServer(ctx, w.identity, input), { name: 'ResourceConsistencyError' });
    assert.deepEqual(
      await provider.pollServers(ctx, w.identity, [{ server: input, generation: 1, status: undefined }]),
      [],
    );
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
    const image = { id: '', name: 'snap-1', tags: {} } as unknown as Image;
    const snapshot = await provider.createSnapshot(ctx, w.identity, input, image);
    assert.equal(snapshot.status, 'creating');
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
