/**
 * Which kinds the store serves: the built-ins, plus every version a stored CustomResourceDefinition serves. A kind
 * nobody registered answers NotFound, as a real server's discovery does.
 */
import { KubeNotFoundError } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { builtin, compareVersionPriority, qualifiedResource, type ResourceType } from '../resource-type.ts';
import { servedVersion, storedCrdSpec, type ServedVersion } from '../schema/crd.ts';
import type { CrdSpec } from '../schema/types.ts';
import type { Db } from './db.ts';

export interface Kind {
  /** The change log and objects table key: `plural.group`, or `plural` for the core group. */
  readonly resource: string;
  readonly type: ResourceType;
  readonly statusSubresource: boolean;
  /** Present for custom resources: the schema to prepare objects with. */
  readonly custom: ServedVersion | undefined;
}

export const CRD_RESOURCE = qualifiedResource(builtin.customResourceDefinition);

const BUILTINS: readonly ResourceType[] = Object.values(builtin);

export class Kinds {
  readonly #cache = new Map<string, { rv: number; spec: CrdSpec }>();

  constructor(private readonly db: Db) {}

  resolve(type: ResourceType): Kind {
    const b = BUILTINS.find((t) => t.group === type.group && t.plural === type.plural && t.version === type.version);
    if (b) return { resource: qualifiedResource(b), type: b, statusSubresource: false, custom: undefined };
    const spec = this.crd(qualifiedResource(type));
    const served = spec ? servedVersion(spec, type.version) : undefined;
    if (served === undefined) {
      throw new KubeNotFoundError(
        `the server could not find the requested resource (${qualifiedResource(type)}/${type.version})`,
      );
    }
    return {
      resource: qualifiedResource(type),
      type: served.type,
      statusSubresource: served.statusSubresource,
      custom: served,
    };
  }

  /** The versions a stored CRD serves for `plural.group` (the built-ins for the core group), preferred first. */
  servedVersions(group: string, plural: string): string[] {
    if (BUILTINS.some((t) => t.group === group && t.plural === plural)) {
      return BUILTINS.filter((t) => t.group === group && t.plural === plural).map((t) => t.version);
    }
    const spec = this.crd(qualifiedResource({ group, plural }));
    if (spec === undefined) return [];
    return spec.versions
      .filter((v) => v.served)
      .map((v) => v.name)
      .sort(compareVersionPriority);
  }

  /** Every kind a stored CRD serves, with the built-ins: what the CLI resolves names against. */
  all(): { type: ResourceType; shortNames: readonly string[]; singular: string }[] {
    const out = BUILTINS.map((t) => ({ type: t, shortNames: [] as readonly string[], singular: t.kind.toLowerCase() }));
    for (const row of this.db.list(CRD_RESOURCE, '')) {
      const spec = storedCrdSpec(JSON.parse(row.body) as KubeObject);
      for (const v of spec.versions) {
        const served = servedVersion(spec, v.name);
        if (served) {
          out.push({
            type: served.type,
            shortNames: spec.names.shortNames ?? [],
            singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
          });
        }
      }
    }
    return out;
  }

  #parse(row: { rv: number; body: string }): CrdSpec {
    return storedCrdSpec(JSON.parse(row.body) as KubeObject);
  }

  /** Every store call resolves its kind: a cached CRD costs a resourceVersion lookup, not its (large) body. */
  private crd(name: string): CrdSpec | undefined {
    const cached = this.#cache.get(name);
    if (cached !== undefined && cached.rv === this.db.rvOf(CRD_RESOURCE, '', name)) return cached.spec;
    const row = this.db.get(CRD_RESOURCE, '', name);
    if (row === undefined) return undefined;
    const spec = this.#parse(row);
    this.#cache.set(name, { rv: row.rv, spec });
    return spec;
  }
}
