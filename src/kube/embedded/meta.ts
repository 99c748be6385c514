/** Per-kind preparation and metadata validation, as kube-apiserver's registry strategies do them on write. */
import { KubeInvalidError, type StatusCause } from '../errors.ts';
import type { KubeObject, ObjectMeta } from '../object.ts';
import { prepareCustomResource, checkCrd } from '../schema/crd.ts';
import { parseLabelSelector } from '../selector.ts';
import { asObject, isPlainObject } from './json.ts';
import type { Kind } from './kinds.ts';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** apimachinery's IsValidLabelValue: empty, or alphanumerics with '-', '_', '.' inside. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function invalid(kind: Kind, name: string, causes: readonly StatusCause[]): KubeInvalidError {
  return new KubeInvalidError(
    `${kind.type.kind} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`,
    causes,
  );
}

/** Labels already judged, `key=value` to valid: every write of an object checks the same few again. */
const judgedLabels = new Map<string, boolean>();

function validLabel(key: string, value: string): boolean {
  const text = `${key}=${value}`;
  let valid = judgedLabels.get(text);
  if (valid === undefined) {
    try {
      parseLabelSelector(text);
      // The selector parser skips whitespace around a value; kube-apiserver's label check does not ("x\n").
      valid = LABEL_VALUE.test(value) && value.length <= 63;
    } catch {
      valid = false;
    }
    // Bounded: a store with more distinct labels than this judges them afresh.
    if (judgedLabels.size >= 10_000) judgedLabels.clear();
    judgedLabels.set(text, valid);
  }
  return valid;
}

export function validateMetadata(kind: Kind, meta: ObjectMeta, old: ObjectMeta | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const dnsLabel = kind.resource === 'namespaces';
  const ok = dnsLabel
    ? DNS_LABEL.test(meta.name) && meta.name.length <= 63
    : DNS_SUBDOMAIN.test(meta.name) && meta.name.length <= 253;
  if (meta.name === '')
    causes.push({
      field: 'metadata.name',
      reason: 'FieldValueRequired',
      message: 'Required value: name or generateName is required',
    });
  else if (!ok) {
    causes.push({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${meta.name}": a lowercase RFC 1123 ${dnsLabel ? 'label' : 'subdomain'} must consist of lower case alphanumeric characters, '-' or '.'`,
    });
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    if (!validLabel(key, value)) {
      causes.push({
        field: `metadata.labels`,
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${key}=${value}": not a valid label`,
      });
    }
  }
  const refs = meta.ownerReferences ?? [];
  refs.forEach((ref, i) => {
    for (const f of ['apiVersion', 'kind', 'name', 'uid'] as const) {
      if (!ref[f])
        causes.push({
          field: `metadata.ownerReferences[${i}].${f}`,
          reason: 'FieldValueRequired',
          message: 'Required value',
        });
    }
  });
  if (refs.filter((r) => r.controller === true).length > 1) {
    causes.push({
      field: 'metadata.ownerReferences',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: Only one reference can have Controller set to true',
    });
  }
  if (old?.deletionTimestamp !== undefined) {
    const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
    if (added.length > 0) {
      causes.push({
        field: 'metadata.finalizers',
        reason: 'FieldValueForbidden',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      });
    }
  }
  return causes;
}

/** Kind-specific normalisation and validation; throws KubeInvalidError. */
export function prepareForKind(kind: Kind, next: KubeObject, old: KubeObject | undefined): KubeObject {
  if (kind.custom) return prepareCustomResource(next, old, kind.custom);
  switch (kind.resource) {
    case 'secrets':
      return prepareSecret(kind, next);
    case 'namespaces': {
      const spec = old ? asObject(old.spec) : { finalizers: ['kubernetes'] };
      const status = old ? asObject(old.status) : { phase: 'Active' };
      return { ...next, spec, status };
    }
    case 'customresourcedefinitions.apiextensions.k8s.io': {
      const { spec, causes } = checkCrd(next);
      if (causes.length > 0) throw invalid(kind, next.metadata.name, causes);
      const names = {
        ...spec.names,
        singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
        listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      };
      const status = {
        acceptedNames: names,
        conditions: [
          { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
          {
            type: 'Established',
            status: 'True',
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
          },
        ],
        storedVersions: spec.versions.filter((v) => v.storage).map((v) => v.name),
      };
      return { ...next, status };
    }
    default:
      return next;
  }
}

function prepareSecret(kind: Kind, next: KubeObject): KubeObject {
  const data: Record<string, unknown> = { ...asObject(next.data) };
  const stringData = next.stringData;
  if (isPlainObject(stringData)) {
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) {
      causes.push({
        field: `data[${k}]`,
        reason: 'FieldValueInvalid',
        message: 'Invalid value: must be base64-encoded',
      });
    }
  }
  if (causes.length > 0) throw invalid(kind, next.metadata.name, causes);
  const out: Record<string, unknown> = { ...next, type: typeof next.type === 'string' ? next.type : 'Opaque' };
  delete out.stringData;
  if (Object.keys(data).length > 0 || next.data !== undefined) out.data = data;
  return out as KubeObject;
}
