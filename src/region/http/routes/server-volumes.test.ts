/**
 * spec.volumes through the REST API: stored in CRD terms and read back with status.volumes rows; a volume that does
 * not exist, is named twice or lives on another network is a 422; one another server holds or asks for is a 409
 * naming the field; a PUT that leaves a volume out detaches it; a volume a server holds cannot be deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { labels, serverType, volumeType } from '../../apis/index.ts';
import {
  apiFixture,
  call,
  createNetwork,
  FLAVOR,
  IMAGE,
  NAMESPACE,
  VOLUME_CLASS,
  type ApiFixture,
} from '../testing/api.ts';
import { defined } from '../../../util/defined.ts';

interface Read {
  metadata: { id: string };
  spec: { volumes?: { volumeId: string; device?: string }[] };
  status: {
    volumes?: { volumeId: string; provisioningStatus: string; device?: string; message?: string }[];
    serverId?: string;
  };
}

interface Problem {
  status: number;
  errors?: { field: string; rule: string; message: string }[];
  detail: string;
}

describe('/api/v2/servers spec.volumes', () => {
  let f: ApiFixture;
  let network = '';
  let otherNetwork = '';

  const volume = async (networkID = network): Promise<string> => {
    const { status, body } = await call<Read>(f, f.tokens.a, 'POST', '/api/v2/volumes', {
      metadata: { name: 'data' },
      spec: { networkId: networkID, volumeClassId: VOLUME_CLASS, sizeGiB: 10 },
    });
    assert.equal(status, 201);
    return body.metadata.id;
  };
  const server = (name: string, volumes?: { volumeId: string; device?: string }[]) =>
    call<Read & Problem>(f, f.tokens.a, 'POST', '/api/v2/servers', {
      metadata: { name },
      spec: { networkId: network, flavorId: FLAVOR, imageId: IMAGE, ...defined({ volumes }) },
    });
  // A server's name cannot change (ADR 0034): an update names it as it is.
  const put = async (id: string, volumes?: { volumeId: string; device?: string }[]) =>
    call<Read & Problem>(f, f.tokens.a, 'PUT', `/api/v2/servers/${id}`, {
      metadata: { name: (await f.store.get(serverType, NAMESPACE, id)).metadata.labels?.[labels.name] ?? '' },
      spec: { flavorId: FLAVOR, imageId: IMAGE, ...defined({ volumes }) },
    });

  before(async () => {
    f = await apiFixture();
    network = await createNetwork(f, f.tokens.a);
    otherNetwork = await createNetwork(f, f.tokens.a, undefined, undefined, 'other');
  });
  after(() => f.close());

  it('stores spec.volumes in order in CRD terms and reads them back with their status rows', async () => {
    const [a, b] = [await volume(), await volume()];
    const created = await server('web', [{ volumeId: a, device: '/dev/vdc' }, { volumeId: b }]);
    assert.equal(created.status, 201);
    const id = created.body.metadata.id;
    assert.deepEqual((await f.store.get(serverType, NAMESPACE, id)).spec.volumes, [
      { id: a, device: '/dev/vdc' },
      { id: b },
    ]);
    assert.deepEqual(created.body.spec.volumes, [{ volumeId: a, device: '/dev/vdc' }, { volumeId: b }]);

    await f.store.patch(
      serverType,
      NAMESPACE,
      id,
      {
        type: 'merge',
        patch: {
          status: {
            volumes: [
              { id: a, provisioningStatus: 'Provisioned', device: '/dev/vdb', message: 'the volume is attached' },
              { id: b, provisioningStatus: 'Errored', message: 'the volume does not exist' },
            ],
          },
        },
      },
      { subresource: 'status' },
    );
    const read = (await call<Read>(f, f.tokens.a, 'GET', `/api/v2/servers/${id}`)).body;
    assert.deepEqual(read.status.volumes, [
      { volumeId: a, provisioningStatus: 'provisioned', device: '/dev/vdb', message: 'the volume is attached' },
      { volumeId: b, provisioningStatus: 'error', message: 'the volume does not exist' },
    ]);

    // A PUT replaces: the volume it leaves out is detached.
    const updated = await put(id, [{ volumeId: b }]);
    assert.equal(updated.status, 202);
    assert.deepEqual((await f.store.get(serverType, NAMESPACE, id)).spec.volumes, [{ id: b }]);
    assert.equal((await put(id)).status, 202);
    assert.equal((await f.store.get(serverType, NAMESPACE, id)).spec.volumes, undefined);
    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/servers/${id}`)).status, 202);
  });

  it('refuses a volume that does not exist, is named twice or is on another network (422, naming the field)', async () => {
    const [mine, foreign] = [await volume(), await volume(otherNetwork)];
    const before = await f.snapshot();
    const missing = await server('bad', [{ volumeId: 'no-such-volume' }]);
    assert.equal(missing.status, 422);
    assert.deepEqual(
      missing.body.errors?.map((e) => [e.field, e.rule]),
      [['spec.volumes[0].volumeId', 'exists']],
    );
    const twice = await server('bad', [{ volumeId: mine }, { volumeId: mine }]);
    assert.deepEqual(
      twice.body.errors?.map((e) => [e.field, e.rule]),
      [['spec.volumes[1].volumeId', 'unique']],
    );
    const elsewhere = await server('bad', [{ volumeId: foreign }]);
    assert.deepEqual(
      elsewhere.body.errors?.map((e) => [e.field, e.rule]),
      [['spec.volumes[0].volumeId', 'sameNetwork']],
    );
    const device = await server('bad', [{ volumeId: mine, device: 'vdb; rm -rf' }]);
    assert.equal(device.status, 400, 'the device pattern is the schema');
    assert.deepEqual(await f.snapshot(), before, 'nothing written');
  });

  it('refuses a volume another server asks for or holds (409, naming the field and the server)', async () => {
    const shared = await volume();
    const holder = await server('holder', [{ volumeId: shared }]);
    assert.equal(holder.status, 201);
    const holderID = holder.body.metadata.id;

    const second = await server('second', [{ volumeId: shared }]);
    assert.equal(second.status, 409);
    assert.deepEqual(
      second.body.errors?.map((e) => [e.field, e.rule, e.message]),
      [['spec.volumes[0].volumeId', 'available', `the volume is attached to (or requested by) server ${holderID}`]],
    );

    const plain = await server('plain');
    assert.equal(plain.status, 201);
    assert.equal((await put(plain.body.metadata.id, [{ volumeId: shared }])).status, 409);
    // The holder itself may keep naming it.
    assert.equal((await put(holderID, [{ volumeId: shared }])).status, 202);

    // A claim (the controller's) refuses too, even once no spec names the volume any more.
    await put(holderID);
    const claimed = await f.store.get(volumeType, NAMESPACE, shared);
    await f.store.update(volumeType, {
      ...claimed,
      spec: { ...claimed.spec, claimRef: { kind: 'Server', id: holderID } },
    });
    assert.equal((await put(plain.body.metadata.id, [{ volumeId: shared }])).status, 409);
    assert.equal((await call<Read>(f, f.tokens.a, 'GET', `/api/v2/volumes/${shared}`)).body.status.serverId, holderID);
  });

  it('refuses to delete a volume a server holds or asks for (409), and deletes it once released', async () => {
    const id = await volume();
    const holder = await server('keeper', [{ volumeId: id }]);
    const refused = await call<Problem>(f, f.tokens.a, 'DELETE', `/api/v2/volumes/${id}`);
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, new RegExp(`server ${holder.body.metadata.id}`));
    assert.equal((await put(holder.body.metadata.id)).status, 202);
    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/volumes/${id}`)).status, 202);
  });
});
