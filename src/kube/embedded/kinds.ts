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

/** What Kinds needs of the watch hub (watch.ts), named here since the hub already imports this module. */
interface ChangeFeed {
  add(listener: {
    change(c: { readonly resource: string; readonly object: KubeObject }): void;
    gone(): void;
  }): () => void;
}

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
  /**
   * Parsed CRDs by name, dropped when the change log delivers a change of theirs: every store call resolves its
   * kind, and this costs it no statement (ADR 0049). This process's own CRD writes reach here before they are
   * acknowledged; another process's within the hub's poll interval, as an API server's CRD informer would.
   */
  readonly #cache = new Map<string, CrdSpec>();

  constructor(private readonly db: Db) {}

  /** Keeps the cache true to the change log (call once, when the hub exists). */
  follow(hub: ChangeFeed): void {
    hub.add({
      change: (c) => {
        if (c.resource === CRD_RESOURCE) this.#cache.delete(c.object.metadata.name);
      },
      gone: () => {
        this.#cache.clear();
      },
    });
  }

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

  private crd(name: string): CrdSpec | undefined {
    const cached = this.#cache.get(name);
    if (cached !== undefined) return cached;
    const row = this.db.get(CRD_RESOURCE, '', name);
    if (row === undefined) return undefined;
    const spec = storedCrdSpec(JSON.parse(row.body) as KubeObject);
    // A transaction that wrote CRDs may yet roll back: what it reads of them is not kept.
    if (!this.db.writing(CRD_RESOURCE)) this.#cache.set(name, spec);
    return spec;
  }
}
