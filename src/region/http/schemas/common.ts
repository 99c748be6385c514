/**
 * The shapes every v2 resource shares (upstream core's `common.spec.yaml`): write metadata, read metadata with the
 * provisioning and health axes, tags, and the problem document. Each schema is written once: it validates requests,
 * types the handlers and is what /openapi.json publishes.
 */
import Type, { type TSchema } from 'typebox';

import { LABEL_VALUE_PATTERN } from '../../apis/shared.ts';

// Addresses and prefixes follow the same rules in the API as in the CRDs.
export { IPv4Address as Ipv4Address, IPv4Prefix as Ipv4Prefix } from '../../apis/shared.ts';
export const PortNumber = (description: string) => Type.Integer({ minimum: 1, maximum: 65535, description });
export const ID = (description: string) => Type.String({ minLength: 1, maxLength: 253, description });

/** What `format: uuid` means (RFC 9562 text form): the ids this service mints, regions' and images' ids. */
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const Uuid = (description: string) => Type.String({ pattern: UUID_PATTERN, description });

/** A Kubernetes label value: what a resource name is stored as. */
const KubernetesLabelValue = Type.String({
  pattern: LABEL_VALUE_PATTERN,
  maxLength: 63,
  description: 'A valid Kubernetes label value, used for resource names.',
});

/**
 * An organization or project id a request names: stored as a label value, so it is checked as one here, where the
 * refusal can name the field (`spec.projectId`), rather than by the store (which could only name `spec`).
 */
export const TenancyID = (description: string) =>
  Type.String({ pattern: LABEL_VALUE_PATTERN, minLength: 1, maxLength: 63, description });

const Tag = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: 'A unique tag name.' }),
    value: Type.String({ maxLength: 255, description: 'The value of the tag.' }),
  },
  { additionalProperties: false },
);
const TagList = Type.Array(Tag, { maxItems: 64, description: 'A list of tags.' });

export const ResourceWriteMetadata = Type.Object(
  {
    name: KubernetesLabelValue,
    description: Type.Optional(Type.String({ maxLength: 1024, description: 'Augments the name with context.' })),
    tags: Type.Optional(TagList),
  },
  // Strict, as every request body (strict() below): an echoed read field (id, organizationId) is refused, named.
  { description: 'Metadata required for all API resource writes.' },
);
export type ResourceWriteMetadata = Type.Static<typeof ResourceWriteMetadata>;

export const ProvisioningStatus = Type.Enum(['pending', 'provisioning', 'provisioned', 'deprovisioning', 'error'], {
  description: 'The provisioning state of a resource.',
});
export type ProvisioningStatus = Type.Static<typeof ProvisioningStatus>;

export const HealthStatus = Type.Enum(['unknown', 'healthy', 'degraded', 'error'], {
  description: 'The health state of a resource.',
});
export type HealthStatus = Type.Static<typeof HealthStatus>;

/** The Available reasons a resource's provisioning detail may show. */
export const PROVISIONING_DETAIL_REASONS = [
  'Provisioning',
  'Provisioned',
  'Errored',
  'Deprovisioning',
  'Deprovisioned',
  'DependencyNotReady',
  'DependencyFailed',
  'DependencyNotFound',
] as const;

const ProvisioningStatusDetail = Type.Object({
  reason: Type.Enum(PROVISIONING_DETAIL_REASONS),
  message: Type.String({ description: 'A user-safe description of the provisioning state.' }),
});

const HealthStatusDetail = Type.Object({
  reason: Type.Enum(['Healthy', 'Degraded', 'Unknown']),
  message: Type.String({ description: 'A user-safe description of the health state.' }),
});

const staticProperties = {
  name: Type.String(),
  description: Type.Optional(Type.String()),
  tags: Type.Optional(TagList),
  id: Type.String({ description: 'The unique resource ID.' }),
  creationTime: Type.String({ format: 'date-time', description: 'When the resource was created.' }),
  createdBy: Type.Optional(Type.String({ description: 'Who created the resource.' })),
  modifiedTime: Type.Optional(Type.String({ format: 'date-time' })),
  modifiedBy: Type.Optional(Type.String()),
};

/** Metadata of things that just exist (images, flavors): no provisioning or health. */
export const StaticResourceMetadata = Type.Object(staticProperties);

const readProperties = {
  ...staticProperties,
  deletionTime: Type.Optional(Type.String({ format: 'date-time', description: 'When deletion started.' })),
  provisioningStatus: ProvisioningStatus,
  provisioningStatusDetail: Type.Optional(ProvisioningStatusDetail),
  healthStatus: HealthStatus,
  healthStatusDetail: Type.Optional(HealthStatusDetail),
};

/** Metadata of a resource read that belongs to no project (a region). */
export const ResourceReadMetadata = Type.Object(readProperties);
export type ResourceReadMetadata = Type.Static<typeof ResourceReadMetadata>;

export const ProjectScopedResourceReadMetadata = Type.Object({
  ...readProperties,
  organizationId: Type.String({ description: 'The organization the resource belongs to.' }),
  projectId: Type.String({ description: 'The project the resource belongs to.' }),
});
export type ProjectScopedResourceReadMetadata = Type.Static<typeof ProjectScopedResourceReadMetadata>;

const FieldViolation = Type.Object({
  pointer: Type.String({ description: 'A JSON pointer into the request.' }),
  field: Type.String({ description: 'The field, dotted.' }),
  rule: Type.String({ description: 'The rule the value broke.' }),
  message: Type.String(),
});

export const ProblemDocument = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(FieldViolation)),
    error: Type.String({ description: 'The upstream (OAuth 2.0 style) error code.' }),
    error_description: Type.String({ description: 'The upstream error description; equals detail.' }),
  },
  { description: 'An RFC 9457 problem document.' },
);

/** Query filters the list routes take (organizationId, projectId, regionId, networkId), each repeatable. */
export const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())]);

/** Upstream's tag selector: `?tag=name=value`, repeatable; a resource matches when it carries every one. */
export const TagSelector = Type.Union(
  [Type.String({ pattern: '^[^=]+=' }), Type.Array(Type.String({ pattern: '^[^=]+=' }))],
  { description: 'Tags to match, each "name=value"; all must match.' },
);

export const Accepted = Type.Null({ description: 'Accepted; the change happens asynchronously.' });

/** A copy of a schema node that keeps TypeBox's own (non-enumerable) markers: optional, refinements. */
function copyOf(schema: object): Record<string, unknown> {
  return Object.defineProperties(
    Object.create(Object.getPrototypeOf(schema) as object | null) as Record<string, unknown>,
    Object.getOwnPropertyDescriptors(schema),
  );
}

/** Each strict copy's original, so the OpenAPI document names a request body as its schema (http/openapi.ts). */
const origins = new WeakMap<object, object>();

/** The schema `strict()` copied `schema` from; undefined for a schema that is no strict copy. */
export const strictOrigin = (schema: object): object | undefined => origins.get(schema);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema with every object in it closed (`additionalProperties: false`) unless it says otherwise (a map):
 * kubectl's `fieldValidation=Strict`, so a typo in an optional field or an injected `metadata.id` is a 400 that
 * names the field instead of being dropped. Applied to every request body in one place (routes/kit.ts `doc`), so
 * /openapi.json says so too. Upstream's server accepts and drops unknown fields (kin-openapi's request filter with a
 * document that leaves objects open, then Go's json decoding); its generated clients send only known fields, so
 * no lenient switch is kept (docs/adr/0036-trust-boundaries.md).
 */
export function strict<T extends TSchema>(schema: T): T {
  const node = schema as unknown as Record<string, unknown>;
  const out = copyOf(node);
  if (isRecord(node['properties'])) {
    out['properties'] = Object.fromEntries(
      Object.entries(node['properties']).map(([name, property]) => [name, strict(property as TSchema)]),
    );
    const open = 'additionalProperties' in node || 'patternProperties' in node;
    if (node['type'] === 'object' && !open) out['additionalProperties'] = false;
  }
  const items = node['items'];
  if (Array.isArray(items)) out['items'] = items.map((item) => strict(item as TSchema));
  else if (isRecord(items)) out['items'] = strict(items as unknown as TSchema);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches)) out[key] = branches.map((branch) => strict(branch as TSchema));
  }
  origins.set(out, node);
  return out as unknown as T;
}
