/**
 * `region register`: the Region resource (and, only when asked, its credentials Secret) for one region of a
 * configured deployment. Building the manifests is pure; applying them takes any kube Client (the embedded store
 * or a real API server), so `--dry-run -o yaml` prints exactly what would be applied.
 */
import Value from 'typebox/value';
import { stringify } from 'yaml';
import type { Client } from '../../kube/client.ts';
import { isKubeNotFound } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import { API_VERSION, labels, regionType, RegionSpec, type RegionOpenstack } from '../apis/index.ts';
import { secretData, type RegionCredentials } from './credentials.ts';
import { RegistrationError } from './sessions.ts';

/** What the per-service flags and `--config` may set: everything in spec.openstack but the endpoint and Secret. */
export type ServiceConfig = Omit<RegionOpenstack, 'endpoint' | 'serviceAccountSecret'>;

export interface RegisterPlan {
  /** A UUID: the Region's name. */
  readonly regionID: string;
  /** The `unikorn-cloud.org/name` label. */
  readonly displayName: string;
  readonly namespace: string;
  readonly secret: { readonly namespace: string; readonly name: string };
  /** The Keystone URL. */
  readonly endpoint: string;
  /** When not empty, only these organizations see the region. */
  readonly organizationIDs: readonly string[];
  readonly services: ServiceConfig;
}

/** The label `register` puts on what it creates (a namespace, a Secret), so `deregister` removes only that. */
export const CREATED_BY_LABEL = 'app.kubernetes.io/created-by';
export const CREATED_BY = 'openregion-region-register';

/** The roles each identity's user is granted (reference: region-registration.md, step 2). */
export const DEFAULT_CLUSTER_ROLES = ['member', 'load-balancer_member'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A Kubernetes label value. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function regionManifest(plan: RegisterPlan): KubeObject {
  if (!UUID.test(plan.regionID)) throw new RegistrationError(`--region-id must be a lowercase UUID`);
  if (plan.displayName.length > 63 || !LABEL_VALUE.test(plan.displayName)) {
    throw new RegistrationError('--name must be a label value: up to 63 letters, digits, `-`, `_` or `.`');
  }
  for (const [flag, value] of [
    ['--namespace', plan.namespace],
    ['--secret-namespace', plan.secret.namespace],
  ] as const) {
    if (value.length > 63 || !DNS_LABEL.test(value)) throw new RegistrationError(`${flag} must be a DNS label`);
  }
  const spec = {
    provider: 'openstack',
    ...(plan.organizationIDs.length > 0
      ? { security: { organizations: plan.organizationIDs.map((id) => ({ id })) } }
      : {}),
    openstack: {
      ...plan.services,
      endpoint: plan.endpoint,
      serviceAccountSecret: { namespace: plan.secret.namespace, name: plan.secret.name },
      identity: { clusterRoles: [...DEFAULT_CLUSTER_ROLES], ...plan.services.identity },
    },
  };
  const error = Value.Errors(RegionSpec, spec)[0];
  if (error !== undefined) {
    throw new RegistrationError(`the Region's spec${error.instancePath.replaceAll('/', '.')} ${error.message}`);
  }
  return {
    apiVersion: API_VERSION,
    kind: regionType.kind,
    metadata: { name: plan.regionID, namespace: plan.namespace, labels: { [labels.name]: plan.displayName } },
    spec,
  };
}

/** The credentials Secret, with exactly the keys the provider reads. */
function secretManifest(plan: RegisterPlan, credentials: RegionCredentials): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: plan.secret.name,
      namespace: plan.secret.namespace,
      labels: { [CREATED_BY_LABEL]: CREATED_BY, [labels.regionID]: plan.regionID },
    },
    type: 'Opaque',
    stringData: secretData(credentials),
  };
}

/** The Secret first (when created here), so the Region never references one that does not exist yet. */
export function registrationManifests(plan: RegisterPlan, secretFrom: RegionCredentials | undefined): KubeObject[] {
  const region = regionManifest(plan);
  return secretFrom === undefined ? [region] : [secretManifest(plan, secretFrom), region];
}

export function renderManifests(objects: readonly KubeObject[], format: 'yaml' | 'json'): string {
  if (format === 'json') {
    const list = { apiVersion: 'v1', kind: 'List', items: objects };
    return JSON.stringify(list, null, 2) + '\n';
  }
  return objects.map((o) => stringify(o)).join('---\n');
}

/** Which Region a `register` run writes, and whether it is there already (the run updates it) or not (creates it). */
interface RegisterTarget {
  readonly id: string;
  readonly exists: boolean;
}

/**
 * `register` is idempotent by name and id: `--region-id` names the Region (refused when another Region already has
 * the display name); without it the Region with that display name is updated, a new id is made only when none has
 * it, and two that share it are ambiguous.
 */
export function registerTarget(
  displayName: string,
  requested: { readonly id: string; readonly exists: boolean } | undefined,
  sameName: readonly string[],
  newID: () => string,
): RegisterTarget {
  if (requested !== undefined) {
    const others = sameName.filter((id) => id !== requested.id);
    if (others.length > 0) {
      throw new RegistrationError(
        `a Region named "${displayName}" already exists (${others.join(', ')}): pass that --region-id to update ` +
          'it, or choose another --name',
      );
    }
    return requested;
  }
  if (sameName.length > 1) {
    throw new RegistrationError(
      `${String(sameName.length)} Regions are named "${displayName}" (${sameName.join(', ')}): pass --region-id to choose one`,
    );
  }
  const [existing] = sameName;
  return existing === undefined ? { id: newID(), exists: false } : { id: existing, exists: true };
}

/** The ids of the Regions in `namespace` labelled with `displayName`; none when the Region kind is not served yet. */
export async function regionsNamed(client: Client, namespace: string, displayName: string): Promise<string[]> {
  try {
    const { items } = await client.list(regionType, {
      namespace,
      labelSelector: `${labels.name}=${displayName}`,
    });
    return items.map((r) => r.metadata.name).sort();
  } catch (error) {
    if (isKubeNotFound(error)) return [];
    throw error;
  }
}

/** Whether the Region `id` exists in `namespace`. */
export async function regionExists(client: Client, namespace: string, id: string): Promise<boolean> {
  try {
    await client.get(regionType, namespace, id);
    return true;
  } catch (error) {
    if (isKubeNotFound(error)) return false;
    throw error;
  }
}

const FIELD_MANAGER = 'openregion-region-register';

const typeOf = (object: KubeObject): ResourceType => (object.kind === 'Secret' ? builtin.secret : regionType);

/** The namespace `register` makes when it is missing, labelled so `deregister` removes it again. */
export function namespaceManifest(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [CREATED_BY_LABEL]: CREATED_BY } } };
}

/** Server-side applies each object (creates or updates); returns `kind/name` lines for the operator. */
export async function applyManifests(client: Client, objects: readonly KubeObject[]): Promise<string[]> {
  const out: string[] = [];
  for (const object of objects) {
    await client.apply(typeOf(object), object, { fieldManager: FIELD_MANAGER, force: true });
    out.push(`${object.kind.toLowerCase()}/${object.metadata.name} applied in ${object.metadata.namespace ?? ''}`);
  }
  return out;
}
