/**
 * `openregion region register`: the Region (and optionally its Secret) into the embedded store or Kubernetes.
 * Idempotent by name and id (registerTarget): a second run updates the Region the first made, and says so.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { getOptional, type Client } from '../kube/client.ts';
import { customResourceDefinition } from '../kube/crd.ts';
import { KubeAlreadyExistsError } from '../kube/errors.ts';
import { openEmbeddedStore } from '../kube/embedded/store.ts';
import { kubeClientFrom } from '../kube/kubernetes/connect.ts';
import { builtin } from '../kube/resource-type.ts';
import { Transport } from '../openstack/transport.ts';
import { regionKinds, regionType } from '../region/apis/index.ts';
import { deregisterRegion } from '../region/registration/deregister.ts';
import { discoverInventory, renderInventory } from '../region/registration/discover.ts';
import type { RegionCredentials } from '../region/registration/credentials.ts';
import { readEnvFile } from '../region/registration/env-file.ts';
import { formatShow, type FormatFlags } from './formatter.ts';
import {
  applyManifests,
  namespaceManifest,
  regionExists,
  regionsNamed,
  registerTarget,
  registrationManifests,
  renderManifests,
  type RegisterPlan,
  type ServiceConfig,
} from '../region/registration/register.ts';
import { projectSession, RegistrationError } from '../region/registration/sessions.ts';
import { systemClock } from '../util/clock.ts';
import { DEFAULT_STORE } from './connect.ts';
import type { Out } from './target.ts';
import { storeEncryption } from './store-encryption.ts';
import { defined } from '../util/defined.ts';

export interface RegisterOptions {
  providerEnv: string;
  regionId?: string;
  name: string;
  namespace: string;
  secretName?: string;
  secretNamespace?: string;
  organizationId?: string[];
  config?: string;
  physicalNetwork?: string;
  vlanRange?: string[];
  externalNetwork?: string[];
  flavor?: string[];
  volumeType?: string[];
  createSecret?: boolean;
  dryRun?: boolean;
  output: string;
  store?: string;
  kubeconfig?: string;
  discover: boolean;
  /** `-f`: the registration as one OpenStack-CLI record; without it, kubectl-like lines. */
  format?: FormatFlags['format'];
  column: readonly string[];
}

export async function register(options: RegisterOptions, out: Out, err: Out): Promise<void> {
  const credentials = readEnvFile(options.providerEnv);
  if (credentials === undefined) throw new RegistrationError(`${options.providerEnv} does not exist`);
  if (options.output !== 'yaml' && options.output !== 'json') throw new RegistrationError('-o must be yaml or json');
  if (options.store !== undefined && options.kubeconfig !== undefined) {
    throw new RegistrationError('--store and --kubeconfig exclude each other');
  }
  if (options.format !== undefined && options.dryRun === true) {
    throw new RegistrationError('-f formats a registration; a --dry-run prints manifests (-o yaml|json)');
  }
  const record = options.format === undefined ? undefined : { format: options.format, column: options.column };
  // A dry run reads what is there (to print the id a real run would use) but creates nothing.
  const target = openTarget(options, options.dryRun !== true);
  try {
    const client = target?.client;
    // Refused before any side effect: a cluster must serve Regions (the embedded store is given the CRD below).
    if (client !== undefined && target?.embedded === false && options.dryRun !== true) {
      if ((await client.servedVersions(regionType.group, regionType.plural)).length === 0) {
        throw new RegistrationError(
          'the cluster does not serve Regions: install the CRDs first (openregion crds --out DIR; kubectl apply -f DIR)',
        );
      }
    }
    const requested =
      options.regionId === undefined
        ? undefined
        : {
            id: options.regionId,
            exists: client !== undefined && (await regionExists(client, options.namespace, options.regionId)),
          };
    const sameName = client === undefined ? [] : await regionsNamed(client, options.namespace, options.name);
    const { id: regionID, exists } = registerTarget(options.name, requested, sameName, randomUUID);
    const plan: RegisterPlan = {
      regionID,
      displayName: options.name,
      namespace: options.namespace,
      secret: {
        namespace: options.secretNamespace ?? options.namespace,
        name: options.secretName ?? `${regionID}-openstack`,
      },
      endpoint: credentials.authUrl,
      organizationIDs: options.organizationId ?? [],
      services: serviceConfig(options),
    };
    const manifests = registrationManifests(plan, options.createSecret === true ? credentials : undefined);
    // Notes go to stderr on a dry run or with -f, so stdout is exactly the manifests or the record.
    const notes = options.dryRun === true || record !== undefined ? err : out;
    if (options.discover) await discover(credentials, regionID, notes);
    if (options.dryRun === true || client === undefined) {
      out.write(renderManifests(manifests, options.output));
      return;
    }
    if (target?.embedded === true) await ensureRegionCrd(client);
    for (const name of new Set([plan.namespace, plan.secret.namespace])) {
      if (await ensureNamespace(client, name)) notes.write(`namespace/${name} created\n`);
    }
    if (options.createSecret !== true) {
      if ((await getOptional(client, builtin.secret, plan.secret.namespace, plan.secret.name)) === undefined) {
        err.write(
          `warning: Secret ${plan.secret.namespace}/${plan.secret.name} does not exist yet; the Region references ` +
            'it (keys domain-id, project-id, user-id, password), or rerun with --create-secret\n',
        );
      }
    }
    for (const line of await applyManifests(client, manifests)) notes.write(`${line}\n`);
    if (record !== undefined) {
      out.write(
        formatShow(
          {
            id: regionID,
            name: plan.displayName,
            namespace: plan.namespace,
            provider: 'openstack',
            endpoint: plan.endpoint,
            secret: `${plan.secret.namespace}/${plan.secret.name}`,
            organizations: plan.organizationIDs,
            result: exists ? 'updated' : 'created',
          },
          record,
        ),
      );
      return;
    }
    out.write(
      `region ${regionID} (${plan.displayName}) ${exists ? 'updated' : 'created'}: provider openstack, ` +
        `endpoint ${plan.endpoint}\n`,
    );
  } finally {
    await target?.close();
  }
}

export interface DeregisterOptions {
  name?: string;
  regionId?: string;
  namespace: string;
  store?: string;
  kubeconfig?: string;
  force?: boolean;
}

/** `region deregister`: the Region by --region-id or by --name; a Region already gone is nothing to do. */
export async function deregister(options: DeregisterOptions, out: Out): Promise<void> {
  if ((options.name === undefined) === (options.regionId === undefined)) {
    throw new RegistrationError('give exactly one of --name and --region-id');
  }
  if (options.store !== undefined && options.kubeconfig !== undefined) {
    throw new RegistrationError('--store and --kubeconfig exclude each other');
  }
  const target = openTarget({ ...options }, false);
  if (target === undefined) {
    out.write('nothing to deregister: the store does not exist\n');
    return;
  }
  try {
    let regionID = options.regionId;
    if (options.name !== undefined) {
      const named = await regionsNamed(target.client, options.namespace, options.name);
      if (named.length > 1) {
        throw new RegistrationError(
          `${String(named.length)} Regions are named "${options.name}" (${named.join(', ')}): pass --region-id`,
        );
      }
      regionID = named[0];
    }
    const changes =
      regionID === undefined
        ? []
        : await deregisterRegion(target.client, {
            namespace: options.namespace,
            regionID,
            force: options.force === true,
          });
    for (const change of changes) out.write(`${change}\n`);
    if (changes.length === 0) out.write(`nothing to deregister: no such Region in ${options.namespace}\n`);
  } finally {
    await target.close();
  }
}

/** Prints what the region exports, read with its own credential. */
async function discover(credentials: RegionCredentials, regionID: string, notes: Out): Promise<void> {
  const transport = new Transport({ clock: systemClock, random: Math.random });
  try {
    const inventory = await discoverInventory(projectSession(credentials, { transport, clock: systemClock }));
    notes.write(renderInventory(inventory));
    // Entries for the region service's own test environment (upstream's register-region prints them too).
    const flavor = inventory.flavors[0];
    notes.write(
      `test environment:\n  REGION_PROVIDER=openstack\n  REGION_ID=${regionID}\n` +
        (flavor === undefined ? '' : `  FLAVOR_ID=${flavor.id}\n`),
    );
  } finally {
    await transport.close();
  }
}

function serviceConfig(options: RegisterOptions): ServiceConfig {
  const fromFile =
    options.config === undefined ? {} : (parseYaml(readFileSync(options.config, 'utf8')) as ServiceConfig);
  const services: Record<string, unknown> = { ...fromFile };
  const merge = (key: string, value: Record<string, unknown>) => {
    services[key] = { ...(services[key] as Record<string, unknown> | undefined), ...value };
  };
  const ids = (values: string[] | undefined) =>
    values && values.length > 0 ? { selector: { ids: values } } : undefined;
  const flavors = ids(options.flavor);
  if (flavors) merge('compute', { flavors });
  const external = ids(options.externalNetwork);
  const segments = (options.vlanRange ?? []).map(vlanSegment);
  const provider =
    options.physicalNetwork !== undefined || segments.length > 0
      ? {
          ...defined({ physicalNetwork: options.physicalNetwork }),
          ...(segments.length > 0 ? { vlan: { segments } } : {}),
        }
      : undefined;
  if (external || provider) {
    merge('network', {
      ...(external ? { externalNetworks: external } : {}),
      ...(provider ? { providerNetworks: provider } : {}),
    });
  }
  const volumeClasses = ids(options.volumeType);
  if (volumeClasses) merge('blockStorage', { volumeClasses });
  return services;
}

function vlanSegment(range: string): { startId: number; endId: number } {
  const match = /^(\d+)-(\d+)$/.exec(range);
  if (match === null) throw new RegistrationError(`--vlan-range ${range}: expected start-end, e.g. 100-199`);
  return { startId: Number(match[1]), endId: Number(match[2]) };
}

interface RegisterClient {
  readonly client: Client;
  readonly embedded: boolean;
  close(): Promise<void>;
}

/**
 * The embedded store (default) or the kubeconfig's cluster. The store is the operator's own: the Region CRD is
 * created there when missing; a cluster must serve it already (deploy/crds/). Namespaces are created where missing,
 * labelled as register's (deregister removes them). Without
 * `create`, a store file that does not exist is not made (undefined).
 */
function openTarget(
  options: Pick<RegisterOptions, 'store' | 'kubeconfig'>,
  create: boolean,
): RegisterClient | undefined {
  if (options.kubeconfig !== undefined) {
    const client = kubeClientFrom({ kubeconfig: readFileSync(options.kubeconfig, 'utf8') });
    return {
      client,
      embedded: false,
      close: () => {
        client.close();
        return Promise.resolve();
      },
    };
  }
  const path = options.store ?? DEFAULT_STORE;
  if (!create && !existsSync(path)) return undefined;
  const encryption = storeEncryption(path, { clock: systemClock });
  const store = openEmbeddedStore(path, {
    clock: systemClock,
    garbageCollection: false,
    encryption,
  });
  return { client: store, embedded: true, close: () => store.close() };
}

/** Creates the namespace when it is missing (labelled, so `deregister` knows it made it); true when it did. */
async function ensureNamespace(client: Client, name: string): Promise<boolean> {
  const existing = await getOptional(client, builtin.namespace, undefined, name);
  if (existing?.metadata.deletionTimestamp !== undefined) {
    throw new RegistrationError(`namespace ${name} is being deleted: wait until it is gone, then register again`);
  }
  if (existing !== undefined) return false;
  try {
    await client.create(builtin.namespace, namespaceManifest(name));
  } catch (error) {
    if (error instanceof KubeAlreadyExistsError) return false;
    throw error;
  }
  return true;
}

/** The embedded store serves a kind once its CRD is stored: install the Region's when it is missing. */
async function ensureRegionCrd(client: Client): Promise<void> {
  const kind = regionKinds.find((k) => k.type.kind === regionType.kind);
  if (kind === undefined) return;
  const crd = customResourceDefinition(kind);
  if ((await getOptional(client, builtin.customResourceDefinition, undefined, crd.metadata.name)) === undefined) {
    await client.create(builtin.customResourceDefinition, crd);
  }
}
