/**
 * Turns a kind's TypeBox schema into an apiextensions.k8s.io/v1 CustomResourceDefinition with one served storage
 * version: the schema becomes a structural openAPIV3Schema (Kubernetes' JSONSchemaProps subset), with status
 * subresource, printer columns, categories and short names. Anything the converter does not understand throws, so a
 * schema construct Kubernetes cannot express fails generation instead of being silently dropped. Each product keeps
 * its own list of kinds (region/apis, keystone/apis); this module knows none of them.
 */
import type { TSchema } from 'typebox';
import type { KubeObject } from './object.ts';
import { qualifiedResource, type ResourceType } from './resource-type.ts';
import type { JSONSchemaProps } from './schema/types.ts';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

export interface KindDefinition {
  readonly type: ResourceType;
  /** The whole object's schema: spec, status and any root `x-kubernetes-validations`. */
  readonly schema: TSchema;
  /** Serve `/status` separately (default true). */
  readonly statusSubresource?: boolean;
  readonly printerColumns: readonly PrinterColumn[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

/** Keys copied as they are; everything else is either converted below or dropped (TypeBox bookkeeping). */
const PASSTHROUGH = [
  'type',
  'description',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
] as const;

/** Keys that are TypeBox's own, or JSON Schema Kubernetes has no use for. */
const IGNORED = new Set(['$id', '$schema', 'examples', 'title']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function jsonType(values: readonly unknown[], at: string): JSONSchemaProps['type'] {
  const types = new Set(values.map((v) => (typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v)));
  const [only] = types;
  if (types.size !== 1 || (only !== 'string' && only !== 'integer' && only !== 'boolean')) {
    throw new Error(`${at}: enum values must share one scalar type`);
  }
  return only;
}

/** A TypeBox (JSON Schema) node as a structural Kubernetes schema node. */
export function toJSONSchemaProps(schema: unknown, at = '<root>'): JSONSchemaProps {
  if (!isRecord(schema)) throw new Error(`${at}: not a schema`);
  const out: Record<string, unknown> = {};
  for (const key of PASSTHROUGH) if (schema[key] !== undefined) out[key] = schema[key];
  for (const [key, value] of Object.entries(schema)) {
    if (PASSTHROUGH.includes(key as (typeof PASSTHROUGH)[number]) || IGNORED.has(key)) continue;
    switch (key) {
      case 'properties':
        if (!isRecord(value)) throw new Error(`${at}.properties: not an object`);
        if (Object.keys(value).length === 0) break;
        out.properties = Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, toJSONSchemaProps(v, `${at}.${k}`)]),
        );
        break;
      case 'required':
        if (Array.isArray(value) && value.length > 0) out.required = value;
        break;
      case 'items':
        out.items = toJSONSchemaProps(value, `${at}[]`);
        break;
      case 'patternProperties': {
        // Type.Record(Type.String(), V) is a map: Kubernetes spells it additionalProperties.
        const entries = isRecord(value) ? Object.entries(value) : [];
        const [first] = entries;
        if (entries.length !== 1 || first === undefined || first[0] !== '^.*$') {
          throw new Error(`${at}: only string-keyed maps are supported`);
        }
        out.additionalProperties = toJSONSchemaProps(first[1], `${at}{}`);
        break;
      }
      case 'enum':
        if (!Array.isArray(value)) throw new Error(`${at}.enum: not a list`);
        out.enum = value;
        out.type ??= jsonType(value, at);
        break;
      case 'const':
        out.enum = [value];
        out.type ??= jsonType([value], at);
        break;
      case 'anyOf': {
        // A union of literals (Type.Union([Type.Literal('a'), …])) is an enum; other unions are not structural.
        const branches = Array.isArray(value) ? value : [];
        const consts = branches.map((b) => (isRecord(b) && 'const' in b ? b.const : undefined));
        if (branches.length === 0 || consts.some((c) => c === undefined)) {
          throw new Error(`${at}: anyOf is only supported as a union of literals`);
        }
        out.enum = consts;
        out.type ??= jsonType(consts, at);
        break;
      }
      case 'additionalProperties':
        if (value === true || value === false) break; // objects are closed by pruning anyway
        out.additionalProperties = toJSONSchemaProps(value, `${at}{}`);
        break;
      default:
        throw new Error(`${at}: ${key} has no structural-schema equivalent`);
    }
  }
  return out;
}

/** The CustomResourceDefinition for a kind, ready to apply or write out. */
export function customResourceDefinition(kind: KindDefinition): KubeObject {
  const { type } = kind;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: qualifiedResource(type) },
    spec: {
      group: type.group,
      scope: type.namespaced ? 'Namespaced' : 'Cluster',
      names: {
        plural: type.plural,
        singular: type.kind.toLowerCase(),
        kind: type.kind,
        listKind: `${type.kind}List`,
        ...(kind.categories === undefined ? {} : { categories: [...kind.categories] }),
        ...(kind.shortNames === undefined ? {} : { shortNames: [...kind.shortNames] }),
      },
      versions: [
        {
          name: type.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: toJSONSchemaProps(kind.schema) },
          ...(kind.statusSubresource === false ? {} : { subresources: { status: {} } }),
          additionalPrinterColumns: kind.printerColumns.map((c) => ({ ...c })),
        },
      ],
    },
  };
}

/** The key Kubernetes spells a schema node's CEL rules with. */
const CEL_RULES = 'x-kubernetes-validations';

/**
 * The same CRD for Kubernetes before 1.25 (ADR 0022): every CEL rule removed, nothing else changed. 1.20–1.22 do
 * not know the field (kubectl's validation refuses it; the API server drops it, so every re-apply reports drift),
 * and 1.23–1.24 drop it while their CEL feature gate is off, its default. Those clusters never enforced the rules.
 */
export function withoutCelRules(crd: KubeObject): KubeObject {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!isRecord(value)) return value;
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (k === CEL_RULES ? [] : [[k, strip(v)]])));
  };
  return { ...crd, spec: strip(crd['spec']) };
}
