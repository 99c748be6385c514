/**
 * CustomResourceDefinitions: checking a CRD when it is written, and preparing a custom resource for storage under
 * its version's schema (defaults, pruning, validation, CEL rules), all failures as KubeInvalidError with field causes.
 */
import { KubeInvalidError, type StatusCause } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import type { ResourceType } from '../resource-type.ts';
import { evaluateRules, ruleErrors } from './cel.ts';
import { applyDefaults, prune, structuralErrors, validateValue } from './structural.ts';
import type { CrdSpec, CrdVersion, JSONSchemaProps } from './types.ts';

export type { CrdSpec, CrdVersion, JSONSchemaProps } from './types.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface ServedVersion {
  readonly type: ResourceType;
  readonly schema: JSONSchemaProps | undefined;
  readonly statusSubresource: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The CRD's spec, or the causes that make it invalid (including rules that do not compile). */
export function checkCrd(crd: KubeObject): { spec: CrdSpec; causes: StatusCause[] } {
  const spec = (isRecord(crd.spec) ? crd.spec : {}) as Partial<CrdSpec>;
  const causes: StatusCause[] = [];
  const req = (field: string): void => {
    causes.push({ field, reason: 'FieldValueRequired', message: 'Required value' });
  };
  const group = spec.group ?? '';
  const names = spec.names;
  if (group === '' || !DNS_SUBDOMAIN.test(group) || !group.includes('.')) {
    causes.push({
      field: 'spec.group',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${group}": should be a domain with at least one dot`,
    });
  }
  if (!names?.plural || !DNS_LABEL.test(names.plural)) req('spec.names.plural');
  if (!names?.kind) req('spec.names.kind');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({
      field: 'spec.scope',
      reason: 'FieldValueNotSupported',
      message: 'Unsupported value: supported values: "Cluster", "Namespaced"',
    });
  }
  if (names?.plural && crd.metadata.name !== `${names.plural}.${group}`) {
    causes.push({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`,
    });
  }
  const versions = spec.versions ?? [];
  if (versions.length === 0) req('spec.versions');
  if (versions.filter((v) => v.storage).length !== 1) {
    causes.push({
      field: 'spec.versions',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: must have exactly one version marked as storage version',
    });
  }
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}].schema.openAPIV3Schema`;
    const schema = v.schema?.openAPIV3Schema;
    if (schema === undefined) {
      req(path);
      return;
    }
    causes.push(...structuralErrors(schema, path), ...ruleErrors(schema, path));
  });
  return { spec: spec as CrdSpec, causes };
}

/**
 * A stored CRD's spec, read without checking it again: every CRD was checked when it was written, and checking
 * compiles each CEL rule, the bulk of a short command's start-up when every kind it touches is resolved.
 */
export const storedCrdSpec = (crd: KubeObject): CrdSpec => crd.spec as CrdSpec;

/** The resource type a served version of a CRD answers to, or undefined when `version` is not served. */
export function servedVersion(spec: CrdSpec, version: string): ServedVersion | undefined {
  const v: CrdVersion | undefined = spec.versions.find((x) => x.name === version && x.served);
  if (v === undefined) return undefined;
  return {
    type: {
      group: spec.group,
      version: v.name,
      kind: spec.names.kind,
      plural: spec.names.plural,
      namespaced: spec.scope === 'Namespaced',
    },
    schema: v.schema?.openAPIV3Schema,
    statusSubresource: v.subresources?.status !== undefined,
  };
}

/**
 * The object as it will be stored: defaulted and pruned, then validated against the schema and its rules.
 * `old` is the stored object on update, so transition rules see `oldSelf`.
 */
export function prepareCustomResource(
  object: KubeObject,
  old: KubeObject | undefined,
  served: ServedVersion,
): KubeObject {
  const schema = served.schema;
  if (schema === undefined) return object;
  const defaulted = prune(applyDefaults(object, schema), schema, true) as KubeObject;
  const body = bodyOf(defaulted);
  const causes = validateValue(body, schema, '', old === undefined ? undefined : bodyOf(old));
  if (causes.length === 0)
    causes.push(...evaluateRules(celView(defaulted), old === undefined ? undefined : celView(old), schema, ''));
  if (causes.length > 0) {
    const kind = served.type.kind;
    throw new KubeInvalidError(
      `${kind} "${object.metadata.name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`,
      causes.map((c) => ({ ...c, field: c.field === '' ? '<root>' : c.field })),
    );
  }
  return defaulted;
}

/** What the schema governs: everything but apiVersion, kind and metadata, which the server validates itself. */
function bodyOf(object: KubeObject): Record<string, unknown> {
  const body: Record<string, unknown> = { ...object };
  delete body.metadata;
  delete body.apiVersion;
  delete body.kind;
  return body;
}

function celView(o: KubeObject): Record<string, unknown> {
  return { ...bodyOf(o), metadata: { name: o.metadata.name, generateName: o.metadata.generateName ?? '' } };
}
