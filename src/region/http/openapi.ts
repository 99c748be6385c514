/**
 * What makes /openapi.json a document a client generator takes (docs/adr/0042-openapi-for-client-generators.md):
 * an `operationId` on every operation, upstream's where the route is upstream's, and the named schemas of
 * `schemas/` published once under `components.schemas` and referenced by `$ref` everywhere else. Only the document
 * changes: each route still validates against its own (inline) TypeBox schema.
 */
import { STATUS_CODES } from 'node:http';
import * as common from './schemas/common.ts';
import * as identity from './schemas/identity.ts';
import * as inventory from './schemas/inventory.ts';
import * as loadBalancer from './schemas/load-balancer.ts';
import * as networkV1 from './schemas/network-v1.ts';
import * as network from './schemas/network.ts';
import * as region from './schemas/region.ts';
import * as securityGroupV1 from './schemas/security-group-v1.ts';
import * as securityGroup from './schemas/security-group.ts';
import * as serverV1 from './schemas/server-v1.ts';
import * as server from './schemas/server.ts';
import { defined } from '../../util/defined.ts';

type Json = Record<string, unknown>;

/** oapi-codegen's word separators (its ToCamelCase). */
const SEPARATORS = new Set(['.', '-', '+', ':', ';', '_', '~', ' ', '(', ')', '{', '}', '[', ']']);

/**
 * The name upstream's generated server and clients give an operation: its document has no operationIds, so
 * oapi-codegen derives one from the method and the path (`GET /api/v2/networks/{networkID}` →
 * `GetApiV2NetworksNetworkID`, the `ServerInterface` method upstream's handlers implement).
 */
export function upstreamOperationID(method: string, path: string): string {
  const words = [method.toLowerCase(), ...path.split('/').filter((part) => part !== '')].join('-');
  let id = '';
  let capitalize = true;
  for (const c of words) {
    if (/[A-Z0-9]/.test(c)) id += c;
    else if (/[a-z]/.test(c)) id += capitalize ? c.toUpperCase() : c;
    capitalize = SEPARATORS.has(c);
  }
  return id;
}

/** The operations upstream's document does not have: openregion's own names, a verb and the resource. */
const OWN_OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /api/v2/volumes': 'listVolumes',
  'POST /api/v2/volumes': 'createVolume',
  'GET /api/v2/volumes/{volumeID}': 'getVolume',
  'PUT /api/v2/volumes/{volumeID}': 'updateVolume',
  'DELETE /api/v2/volumes/{volumeID}': 'deleteVolume',
  'GET /api/v2/regions/{regionID}/flavors': 'listRegionFlavors',
  'GET /api/v2/regions/{regionID}/externalnetworks': 'listRegionExternalNetworks',
  'GET /api/v2/regions/{regionID}/volumeclasses': 'listRegionVolumeClasses',
  'GET /api/v2/networks/{networkID}/events': 'listNetworkEvents',
  'GET /api/v2/securitygroups/{securityGroupID}/events': 'listSecurityGroupEvents',
  'GET /api/v2/servers/{serverID}/events': 'listServerEvents',
  'GET /api/v2/loadbalancers/{loadBalancerID}/events': 'listLoadBalancerEvents',
  'GET /api/v2/volumes/{volumeID}/events': 'listVolumeEvents',
  'GET /api/v2/watch': 'watchCollections',
};

/** `/api/v2/networks/:networkID` → `/api/v2/networks/{networkID}`. */
export const openapiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** An operation's id: ours where the route is ours, upstream's derived name for every other. */
function operationIDOf(method: string, url: string): string {
  const path = openapiPath(url);
  return OWN_OPERATION_IDS[`${method.toUpperCase()} ${path}`] ?? upstreamOperationID(method, path);
}

/** Every schema `schemas/` exports, by its exported name: the names clients see. */
function schemaNames(): Map<object, string> {
  const names = new Map<object, string>();
  const modules = [
    common,
    identity,
    inventory,
    loadBalancer,
    networkV1,
    network,
    region,
    securityGroupV1,
    securityGroup,
    serverV1,
    server,
  ];
  for (const module of modules) {
    for (const [name, value] of Object.entries(module) as [string, unknown][]) {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || names.has(value)) continue;
      names.set(value, name);
    }
  }
  return names;
}

/** Keywords whose value is a map of name → schema, a schema, or a list of schemas (JSON Schema 2020-12). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_ONE = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

const isSchema = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const SCHEMA_REF_PREFIX = '#/components/schemas/';

/**
 * The shared schemas of a set of route schemas, and each route schema with them referenced. A schema is shared
 * when it is one `schemas/` exports (or the strict copy of one, as every request body is: routes/kit.ts `doc`);
 * a name that would stand for two different schemas is an error, not a silent pick.
 */
export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};
  private readonly names = schemaNames();
  private readonly texts = new Map<string, string>();

  private nameOf(node: Json): string | undefined {
    const own = this.names.get(node);
    if (own !== undefined) return own;
    const origin = common.strictOrigin(node);
    return origin === undefined ? undefined : this.names.get(origin);
  }

  /** A copy of a shared schema with its own description (`{ ...ProblemDocument, description }`): its name. */
  private redescribed(node: Json): [Json, string] | undefined {
    const keys = Object.keys(node).filter((key) => key !== 'description');
    for (const [schema, name] of this.names) {
      const own = Object.keys(schema).filter((key) => key !== 'description');
      if (own.length === keys.length && keys.every((key) => (schema as Json)[key] === node[key])) {
        return [schema as Json, name];
      }
    }
    return undefined;
  }

  /**
   * A response's body: a shared schema (or a re-described one) is referenced, its description kept beside the
   * `$ref` (the response's description). An empty answer (`type: null`) stays as it is: it has no content.
   */
  response(node: unknown): unknown {
    if (!isSchema(node) || node['type'] === 'null') return this.reference(node, true);
    const own = this.nameOf(node);
    const [shared, name] = own === undefined ? (this.redescribed(node) ?? [node, undefined]) : [node, own];
    if (name === undefined) return this.inside(node);
    const ref = this.named(name, shared);
    return typeof node['description'] === 'string' ? { ...ref, description: node['description'] } : ref;
  }

  /** `node` with every shared schema in it (itself included unless `inline`) replaced by a `$ref`. */
  reference(node: unknown, inline = false): unknown {
    if (!isSchema(node)) return node;
    const name = inline ? undefined : this.nameOf(node);
    return name === undefined ? this.inside(node) : this.named(name, node);
  }

  private named(name: string, node: Json): Json {
    const content = this.inside(node);
    const text = JSON.stringify(content);
    const known = this.texts.get(name);
    if (known === undefined) {
      this.texts.set(name, text);
      this.schemas[name] = content;
    } else if (known !== text) {
      throw new Error(`schema ${name} stands for two different schemas in the API; give one its own name`);
    }
    return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
  }

  private inside(node: Json): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (SCHEMA_MAPS.has(key) && isSchema(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.reference(v)]));
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        out[key] = value.map((v) => this.reference(v));
      } else if (SCHEMA_ONE.has(key)) {
        out[key] = Array.isArray(value) ? value.map((v) => this.reference(v)) : this.reference(value);
      } else {
        out[key] = value;
      }
    }
    return out;
  }
}

interface RouteSchema {
  readonly operationId?: string;
  readonly body?: unknown;
  readonly response?: unknown;
}

/**
 * A route's schema as the document shows it: its operationId, and its body and responses referencing the shared
 * schemas. Path and query parameters stay inline (each property is a parameter of its own). A response that is a
 * shared schema re-described (the problem document of each error status) references it and keeps its description.
 */
export function documentedSchema(
  components: SchemaComponents,
  method: string,
  url: string,
  schema: RouteSchema,
): RouteSchema {
  const response = !isSchema(schema.response)
    ? undefined
    : Object.fromEntries(Object.entries(schema.response).map(([status, body]) => [status, components.response(body)]));
  return {
    ...schema,
    operationId: operationIDOf(method, url),
    ...(schema.body === undefined ? {} : { body: components.reference(schema.body) }),
    ...defined({ response }),
  };
}

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `Payload Too Large` → `PayloadTooLarge`. */
const responseName = (status: string): string =>
  (STATUS_CODES[Number(status)] ?? `Status ${status}`).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) =>
    (c ?? '').toUpperCase(),
  );

/**
 * The error answers every operation documents alike (the problem document with the same description per status)
 * published once under `components.responses`, as upstream's document does (`unauthorizedResponse`, ...), and
 * referenced from each operation. Per status, the wording most operations share is the shared one.
 */
export function shareErrorResponses<D extends object>(document: D): D {
  const doc = document as Json;
  const operations: Record<string, unknown>[] = [];
  for (const item of Object.values((doc['paths'] ?? {}) as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (OPERATION_METHODS.has(method) && isSchema(operation) && isSchema(operation['responses'])) {
        operations.push(operation['responses']);
      }
    }
  }
  const counts = new Map<string, Map<string, number>>();
  for (const responses of operations) {
    for (const [status, response] of Object.entries(responses)) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const texts = counts.get(status) ?? new Map<string, number>();
      const text = JSON.stringify(response);
      texts.set(text, (texts.get(text) ?? 0) + 1);
      counts.set(status, texts);
    }
  }
  const shared = new Map<string, string>();
  const components = (doc['components'] ?? {}) as Json;
  const published: Json = { ...((components['responses'] ?? {}) as Json) };
  for (const [status, texts] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    const [text, count] = [...texts].sort(([, a], [, b]) => b - a)[0] ?? ['', 0];
    if (count < 2) continue;
    const name = responseName(status);
    shared.set(status, text);
    published[name] = JSON.parse(text) as unknown;
  }
  for (const responses of operations) {
    for (const [status, response] of Object.entries(responses)) {
      if (shared.get(status) === JSON.stringify(response)) {
        responses[status] = { $ref: `#/components/responses/${responseName(status)}` };
      }
    }
  }
  return { ...doc, components: { ...components, responses: published } } as D;
}
