/**
 * Glance images ↔ the neutral Image (docs/spec/openstack-provider.md §Image handling; docs/spec/upstream-region.md
 * §Image properties (Glance)). Reading: the custom properties are validated against the region's schema (required OS
 * fields, enums, GPU fields that go together, semantic package versions), public images not owned by an organization
 * must carry a valid signature when the Region names a signing key, and the rest is translated. An image that fails any
 * check is left out of the inventory, never half-shown. Writing: the same keys, from an Image, plus the create-time
 * hardware properties.
 */
import type { Image as GlanceImage, ImageStatus as GlanceStatus } from '../../../openstack/image.ts';
import { imageProperties } from '../../../openstack/image.ts';
import type { Architecture, Image, ImageGPU, ImageStatus, ImageVirtualization } from '../../provider/types.ts';
import {
  ImageProperty,
  imageCreateProperties,
  imagePackageProperty,
  imageTagProperty,
  parseImagePackageProperty,
  parseImageTagProperty,
} from '../names.ts';
import { verifyImageSignature, type SigningKey } from './image-signature.ts';
import { defined } from '../../../util/defined.ts';

const GiB = 2 ** 30;
const VIRTUALIZATIONS: readonly string[] = ['any', 'baremetal', 'virtualized'];
const ARCHITECTURES: readonly string[] = ['x86_64', 'aarch64'];
const GPU_VENDORS: readonly string[] = ['AMD', 'NVIDIA'];
const SEMVER_PACKAGES: readonly string[] = ['kubernetes', 'slurmd'];
const SEMVER = /^v\d+\.\d+\.\d+$/;

export interface ImageReadOptions {
  readonly defaultArchitecture: Architecture;
  /** When set, public images with no organization must be signed with it. */
  readonly signingKey?: SigningKey | undefined;
}

type ImageReading = { readonly ok: true; readonly image: Image } | { readonly ok: false; readonly why: string };

/**
 * docs/spec/upstream-region.md §Image properties (Glance): queued → pending; saving, importing, uploading → creating;
 * active → ready; the rest → failed.
 */
export function imageStatusOf(status: GlanceStatus): ImageStatus {
  switch (status) {
    case 'queued':
      return 'pending';
    case 'saving':
    case 'importing':
    case 'uploading':
      return 'creating';
    case 'active':
      return 'ready';
    default:
      return 'failed';
  }
}

/** The first way the properties break the image schema, or undefined when they conform. */
export function schemaProblem(props: Readonly<Record<string, string>>): string | undefined {
  for (const key of [ImageProperty.osKernel, ImageProperty.osFamily, ImageProperty.osDistro, ImageProperty.osVersion]) {
    if (!props[key]) return `${key} is required`;
  }
  if (props[ImageProperty.osKernel] !== 'linux') return `${ImageProperty.osKernel} must be linux`;
  const virtualization = props[ImageProperty.virtualization];
  if (virtualization === undefined || !VIRTUALIZATIONS.includes(virtualization)) {
    return `${ImageProperty.virtualization} must be one of ${VIRTUALIZATIONS.join(', ')}`;
  }
  const vendor = props[ImageProperty.gpuVendor];
  if (vendor !== undefined) {
    if (!GPU_VENDORS.includes(vendor)) return `${ImageProperty.gpuVendor} must be AMD or NVIDIA`;
    if (!props[ImageProperty.gpuModels] || !props[ImageProperty.gpuDriverVersion]) {
      return `${ImageProperty.gpuVendor} needs ${ImageProperty.gpuModels} and ${ImageProperty.gpuDriverVersion}`;
    }
  }
  for (const pkg of SEMVER_PACKAGES) {
    const version = props[imagePackageProperty(pkg)];
    if (version !== undefined && !SEMVER.test(version)) return `${imagePackageProperty(pkg)} must look like v1.2.3`;
  }
  const arch = props[ImageProperty.architecture];
  if (arch !== undefined && !ARCHITECTURES.includes(arch)) return `architecture ${arch} is not one the region offers`;
  return undefined;
}

export function readImage(image: GlanceImage, options: ImageReadOptions): ImageReading {
  const props = imageProperties(image);
  const problem = schemaProblem(props);
  if (problem !== undefined) return { ok: false, why: problem };
  const organizationID = props[ImageProperty.organizationID] || undefined;
  if (options.signingKey !== undefined && organizationID === undefined && image.visibility === 'public') {
    if (!verifyImageSignature(options.signingKey, image.id, props[ImageProperty.digest])) {
      return { ok: false, why: 'the signature does not verify' };
    }
  }
  const packages = packagesOf(props);
  const tags = prefixed(props, parseImageTagProperty);
  const gpu = gpuOf(props);
  const identityID = props[ImageProperty.identityID] || undefined;
  return {
    ok: true,
    image: {
      id: image.id,
      name: image.name ?? '',
      tags,
      ...defined({ organizationID }),
      created: image.created_at,
      modified: image.updated_at,
      architecture: (props[ImageProperty.architecture] as Architecture | undefined) ?? options.defaultArchitecture,
      sizeGiB: image.min_disk > 0 ? image.min_disk : Math.ceil((image.virtual_size ?? 0) / GiB),
      virtualization: props[ImageProperty.virtualization] as ImageVirtualization,
      ...defined({ gpu }),
      os: {
        kernel: 'linux',
        family: props[ImageProperty.osFamily] ?? '',
        distro: props[ImageProperty.osDistro] ?? '',
        ...optional('variant', props[ImageProperty.osVariant]),
        ...optional('codename', props[ImageProperty.osCodename]),
        version: props[ImageProperty.osVersion] ?? '',
      },
      ...(Object.keys(packages).length === 0 ? {} : { packages }),
      status: imageStatusOf(image.status),
      ...defined({ identityID }),
    },
  };
}

/** The custom properties an Image is written with (create, snapshot publish). */
export function imageWriteProperties(image: Image): Record<string, string> {
  const props: Record<string, string> = {
    ...imageCreateProperties(image.architecture),
    [ImageProperty.architecture]: image.architecture,
    [ImageProperty.osKernel]: image.os.kernel,
    [ImageProperty.osFamily]: image.os.family,
    [ImageProperty.osDistro]: image.os.distro,
    [ImageProperty.osVersion]: image.os.version,
    [ImageProperty.virtualization]: image.virtualization,
  };
  if (image.os.variant !== undefined) props[ImageProperty.osVariant] = image.os.variant;
  if (image.os.codename !== undefined) props[ImageProperty.osCodename] = image.os.codename;
  if (image.gpu !== undefined) {
    props[ImageProperty.gpuVendor] = image.gpu.vendor;
    props[ImageProperty.gpuModels] = image.gpu.models.join(',');
    props[ImageProperty.gpuDriverVersion] = image.gpu.driver;
  }
  for (const [name, version] of Object.entries(image.packages ?? {})) props[imagePackageProperty(name)] = version;
  for (const [key, value] of Object.entries(image.tags)) props[imageTagProperty(key)] = value;
  if (image.organizationID !== undefined) props[ImageProperty.organizationID] = image.organizationID;
  if (image.identityID !== undefined) props[ImageProperty.identityID] = image.identityID;
  return props;
}

function packagesOf(props: Readonly<Record<string, string>>): Record<string, string> {
  const legacy = props[ImageProperty.legacyKubernetesVersion];
  // The namespaced key wins over the legacy one when both are present.
  return { ...(legacy ? { kubernetes: legacy } : {}), ...prefixed(props, parseImagePackageProperty) };
}

function gpuOf(props: Readonly<Record<string, string>>): ImageGPU | undefined {
  const vendor = props[ImageProperty.gpuVendor];
  if (vendor === undefined) return undefined;
  const models = (props[ImageProperty.gpuModels] ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  return { vendor: vendor as ImageGPU['vendor'], driver: props[ImageProperty.gpuDriverVersion] ?? '', models };
}

function prefixed(
  props: Readonly<Record<string, string>>,
  parse: (key: string) => string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(props)) {
    const name = parse(key);
    if (name !== undefined) out[name] = value;
  }
  return out;
}

const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> =>
  value ? ({ [key]: value } as Record<K, string>) : {};
