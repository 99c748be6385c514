/** Image reading (schema, signatures, translation, status) and writing (properties that read back the same). */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Image as GlanceImage } from '../../../openstack/image.ts';
import type { Image } from '../../provider/types.ts';
import {
  imageStatusOf,
  imageWriteProperties,
  readImage,
  schemaProblem,
  type ImageReadOptions,
} from './image-convert.ts';
import { signingKeyOf, verifyImageSignature } from './image-signature.ts';

const ID = '0b0f9b83-4b0b-4d8f-9a8e-6f8f0a1b2c3d';
const VALID = {
  'unikorn:os:kernel': 'linux',
  'unikorn:os:family': 'debian',
  'unikorn:os:distro': 'ubuntu',
  'unikorn:os:version': '24.04',
  'unikorn:virtualization': 'virtualized',
};

function glance(props: Record<string, string>, overrides: Partial<GlanceImage> = {}): GlanceImage {
  return {
    id: ID,
    name: 'ubuntu',
    status: 'active',
    visibility: 'public',
    owner: 'p',
    disk_format: 'raw',
    container_format: 'bare',
    size: 10,
    virtual_size: 3 * 2 ** 30 + 1,
    checksum: null,
    os_hash_algo: null,
    os_hash_value: null,
    min_disk: 0,
    min_ram: 0,
    protected: false,
    os_hidden: false,
    tags: [],
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-02T00:00:00Z',
    ...props,
    ...overrides,
  };
}
const options: ImageReadOptions = { defaultArchitecture: 'x86_64' };
const read = (props: Record<string, string>, overrides: Partial<GlanceImage> = {}, opts = options) =>
  readImage(glance(props, overrides), opts);

describe('image schema', () => {
  it('requires the OS fields and a known virtualization; kernel is linux', () => {
    assert.equal(schemaProblem(VALID), undefined);
    for (const key of Object.keys(VALID)) {
      const { [key]: _dropped, ...rest } = VALID as Record<string, string>;
      assert.ok(schemaProblem(rest), `without ${key}`);
    }
    assert.ok(schemaProblem({ ...VALID, 'unikorn:os:kernel': 'windows' }));
    assert.ok(schemaProblem({ ...VALID, 'unikorn:virtualization': 'container' }));
  });

  it('a GPU vendor needs models and driver; package versions are v1.2.3; architecture is one offered', () => {
    assert.ok(schemaProblem({ ...VALID, 'unikorn:gpu_vendor': 'NVIDIA' }));
    assert.ok(
      schemaProblem({
        ...VALID,
        'unikorn:gpu_vendor': 'Intel',
        'unikorn:gpu_models': 'x',
        'unikorn:gpu_driver_version': '1',
      }),
    );
    assert.equal(
      schemaProblem({
        ...VALID,
        'unikorn:gpu_vendor': 'NVIDIA',
        'unikorn:gpu_models': 'H100',
        'unikorn:gpu_driver_version': '550',
      }),
      undefined,
    );
    assert.ok(schemaProblem({ ...VALID, 'unikorn:package:kubernetes': '1.30' }));
    assert.equal(schemaProblem({ ...VALID, 'unikorn:package:kubernetes': 'v1.30.2' }), undefined);
    assert.equal(schemaProblem({ ...VALID, 'unikorn:package:other': 'anything' }), undefined);
    assert.ok(schemaProblem({ ...VALID, architecture: 'ppc64le' }));
  });

  it('an invalid image is left out with why', () => {
    assert.deepEqual(read({}), { ok: false, why: 'unikorn:os:kernel is required' });
  });
});

describe('image translation', () => {
  it('translates OS, packages (legacy kubernetes too), GPU, tags, ownership, size and status', () => {
    const reading = read(
      {
        ...VALID,
        'unikorn:os:codename': 'noble',
        'unikorn:kubernetes_version': 'v1.29.0',
        'unikorn:package:slurmd': 'v23.1.1',
        'unikorn:gpu_vendor': 'NVIDIA',
        'unikorn:gpu_models': 'H100, A100',
        'unikorn:gpu_driver_version': '550.54',
        'unikorn:tag:team': 'ml',
        'unikorn:organization:id': 'org-1',
        'unikorn:identity_id': 'id-1',
        architecture: 'aarch64',
      },
      { status: 'importing' },
    );
    assert.deepEqual(reading, {
      ok: true,
      image: {
        id: ID,
        name: 'ubuntu',
        tags: { team: 'ml' },
        organizationID: 'org-1',
        created: '2026-01-01T00:00:00Z',
        modified: '2026-01-02T00:00:00Z',
        architecture: 'aarch64',
        sizeGiB: 4,
        virtualization: 'virtualized',
        gpu: { vendor: 'NVIDIA', driver: '550.54', models: ['H100', 'A100'] },
        os: { kernel: 'linux', family: 'debian', distro: 'ubuntu', codename: 'noble', version: '24.04' },
        packages: { kubernetes: 'v1.29.0', slurmd: 'v23.1.1' },
        status: 'creating',
        identityID: 'id-1',
      },
    });
    const sized = read(VALID, { min_disk: 20 });
    assert.equal(sized.ok && sized.image.sizeGiB, 20, 'min_disk wins');
  });

  it('architecture: the Glance property, then defaultArchitecture, then x86_64', () => {
    const arch = (props: Record<string, string>, opts = options) => {
      const r = read(props, {}, opts);
      return r.ok ? r.image.architecture : r.why;
    };
    assert.equal(arch({ ...VALID, architecture: 'x86_64' }, { defaultArchitecture: 'aarch64' }), 'x86_64');
    assert.equal(arch(VALID, { defaultArchitecture: 'aarch64' }), 'aarch64');
    assert.equal(arch(VALID), 'x86_64');
  });

  it('maps every Glance status', () => {
    const cases = {
      queued: 'pending',
      saving: 'creating',
      importing: 'creating',
      uploading: 'creating',
      active: 'ready',
      killed: 'failed',
      deleted: 'failed',
      pending_delete: 'failed',
      deactivated: 'failed',
    } as const;
    for (const [glanceStatus, status] of Object.entries(cases)) {
      assert.equal(imageStatusOf(glanceStatus as keyof typeof cases), status, glanceStatus);
    }
  });

  it('what an image is written with reads back as the same image', () => {
    const image: Image = {
      id: ID,
      name: 'ubuntu',
      tags: { team: 'ml' },
      organizationID: 'org-1',
      created: '2026-01-01T00:00:00Z',
      modified: '2026-01-02T00:00:00Z',
      architecture: 'aarch64',
      sizeGiB: 4,
      virtualization: 'baremetal',
      gpu: { vendor: 'AMD', driver: '6.1', models: ['MI300X'] },
      os: { kernel: 'linux', family: 'redhat', distro: 'rocky', variant: 'server', version: '9.4' },
      packages: { kubernetes: 'v1.31.2' },
      status: 'ready',
    };
    const props = imageWriteProperties(image);
    assert.equal(props.hw_machine_type, 'virt');
    assert.equal(props.hw_firmware_type, 'uefi');
    assert.deepEqual(read(props), { ok: true, image });
  });
});

describe('image signatures', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = Buffer.from(publicKey.export({ type: 'spki', format: 'pem' }).toString()).toString('base64');
  const key = signingKeyOf(pem);
  const digest = sign('sha256', Buffer.from(ID), { key: privateKey, dsaEncoding: 'der' }).toString('base64');

  it('a public image with no organization needs a valid signature over its id', () => {
    assert.equal(key?.kind, 'key');
    const signed: ImageReadOptions = { signingKey: key, defaultArchitecture: 'x86_64' };
    assert.equal(read({ ...VALID, 'unikorn:digest': digest }, {}, signed).ok, true);
    assert.deepEqual(read(VALID, {}, signed), { ok: false, why: 'the signature does not verify' });
    const other = sign('sha256', Buffer.from('another-id'), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
    assert.equal(read({ ...VALID, 'unikorn:digest': other }, {}, signed).ok, false);
    assert.equal(read({ ...VALID, 'unikorn:organization:id': 'org' }, {}, signed).ok, true, 'org images skip it');
    assert.equal(read(VALID, {}, options).ok, true, 'no key, no check');
  });

  it('a key that does not parse verifies nothing (fail closed)', () => {
    const broken = signingKeyOf(Buffer.from('not a key').toString('base64'));
    assert.equal(broken?.kind, 'invalid');
    assert.equal(verifyImageSignature(broken, ID, digest), false);
    assert.equal(signingKeyOf(undefined), undefined);
  });
});
