/**
 * The names of one kind's objects in one namespace, per organization (its label), kept from an informer's events: what
 * the API's limits count a create against (limits.ts). A create's count is then a set's size, where reading the
 * organization's objects out of the informer's index was a pass over all of them, twice a create: quadratic in a
 * 10,000-server wave in one organization (docs/adr/0048-reconcile-reads-from-informer-caches.md).
 */
import type { KubeObject } from '../../kube/object.ts';
import { labels } from '../apis/index.ts';

const NONE: ReadonlySet<string> = new Set();

export class OrganizationNames {
  readonly #namespace: string;
  readonly #byOrganization = new Map<string, Set<string>>();

  constructor(namespace: string) {
    this.#namespace = namespace;
  }

  /** Its handlers for the informer (what it holds already comes first, as adds). */
  readonly handlers = {
    add: (object: KubeObject): void => {
      this.#add(object);
    },
    update: (old: KubeObject, object: KubeObject): void => {
      this.#remove(old);
      this.#add(object);
    },
    delete: (object: KubeObject): void => {
      this.#remove(object);
    },
  };

  /** The names the organization holds, as the informer shows them now (a live view: do not keep it across awaits). */
  of(organization: string): ReadonlySet<string> {
    return this.#byOrganization.get(organization) ?? NONE;
  }

  #add(object: KubeObject): void {
    const organization = this.#organizationOf(object);
    if (organization === undefined) return;
    const names = this.#byOrganization.get(organization) ?? new Set<string>();
    names.add(object.metadata.name);
    this.#byOrganization.set(organization, names);
  }

  #remove(object: KubeObject): void {
    const organization = this.#organizationOf(object);
    if (organization === undefined) return;
    const names = this.#byOrganization.get(organization);
    names?.delete(object.metadata.name);
    if (names?.size === 0) this.#byOrganization.delete(organization);
  }

  #organizationOf(object: KubeObject): string | undefined {
    if (object.metadata.namespace !== this.#namespace) return undefined;
    const organization = object.metadata.labels?.[labels.organization];
    return organization === undefined || organization === '' ? undefined : organization;
  }
}
