/**
 * Test support: an in-memory writer that admits objects exactly as the embedded store prepares a custom resource
 * (defaults, pruning, structural validation, CEL), except that root rules also see `self.metadata` as they do in
 * kube-apiserver. It lets the schemas' metadata rules be tested before the store binds metadata itself.
 */
import { AlreadyExistsError, InvalidError, NotFoundError, type StatusCause } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { evaluateRules } from '../../kube/schema/cel.ts';
import { checkCrd, servedVersion } from '../../kube/schema/crd.ts';
import { applyDefaults, prune, validateValue } from '../../kube/schema/structural.ts';
import type { OrderWriter } from './admission-corpus.ts';

/** An in-memory writer over one CRD's schema, binding metadata.name for root rules as kube-apiserver does. */
export function schemaWriter(crd: KubeObject): OrderWriter {
  const { spec, causes } = checkCrd(crd);
  if (causes.length > 0) throw new Error(`invalid CRD ${crd.metadata.name}: ${JSON.stringify(causes)}`);
  const schema = servedVersion(spec, spec.versions[0]?.name ?? '')?.schema;
  if (schema === undefined) throw new Error(`CRD ${crd.metadata.name} serves no schema`);
  const stored = new Map<string, KubeObject>();
  const celView = (o: KubeObject): Record<string, unknown> => {
    const { apiVersion: _a, kind: _k, metadata, ...body } = o;
    return { ...body, metadata: { name: metadata.name, generateName: metadata.generateName ?? '' } };
  };
  const admit = <T extends KubeObject>(object: T, old: KubeObject | undefined): T => {
    const defaulted = prune(applyDefaults(object, schema), schema, true) as T;
    const { apiVersion: _a, kind: _k, metadata: _m, ...body } = defaulted;
    const found: StatusCause[] = validateValue(body, schema, '');
    if (found.length === 0) found.push(...evaluateRules(celView(defaulted), old && celView(old), schema, ''));
    if (found.length > 0) {
      throw new InvalidError(
        'invalid',
        found.map((c) => ({ ...c, field: c.field === '' ? '<root>' : c.field })),
      );
    }
    return defaulted;
  };
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  let version_ = 0;
  return {
    create: async <T extends KubeObject>(_t: ResourceType, object: T): Promise<T> => {
      await Promise.resolve();
      if (stored.has(key(object))) throw new AlreadyExistsError(key(object));
      const out = admit(object, undefined);
      const saved = { ...out, metadata: { ...out.metadata, resourceVersion: String(++version_) } };
      stored.set(key(object), saved);
      return saved;
    },
    update: async <T extends KubeObject>(_t: ResourceType, object: T): Promise<T> => {
      await Promise.resolve();
      const old = stored.get(key(object));
      if (old === undefined) throw new NotFoundError(key(object));
      const out = admit(object, old);
      stored.set(key(object), out);
      return out;
    },
  };
}
