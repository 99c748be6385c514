/**
 * The bundled K-ORC (User, Domain) and ESO (PushSecret, SecretStore) actuators as one unit, for a cluster that runs
 * neither project: `openregion up`, and `openregion serve --bundled-actuators`. Their stand-in CRDs go in only
 * through `installBundledActuatorCrds`, which never replaces a CRD it did not install, so on a cluster that does run
 * the real K-ORC or ESO their CRDs stay as they are (and the stand-in actuators would then compete with the real
 * controllers: the flag is not for such clusters).
 */
import type { Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import type { Manager } from '../../runtime/manager.ts';
import { delay, type Scheduler } from '../../runtime/scheduler.ts';
import type { Clock } from '../../util/clock.ts';
import type { SecretStore } from '../apis/eso.ts';
import { discoverStoreType } from '../apis/store-versions.ts';
import { bundledActuatorCrds, c5c3StandInCrds, installBundledActuatorCrds, installC5c3StandInCrds } from './crds.ts';
import { registerEsoActuator } from './eso/controller.ts';
import type { CloudCredentials } from './korc/credentials.ts';
import { registerKorcActuators } from './korc/register.ts';

/** How long a freshly created CRD may take to be served (kube-apiserver establishes one in well under a second). */
const SERVED_TIMEOUT_MS = 60_000;
const SERVED_POLL_MS = 250;

interface PreparedActuators {
  /** The SecretStore type the cluster serves (the stand-in's v1, or a real ESO's version). */
  readonly storeType: ResourceType<SecretStore> | undefined;
  readonly installed: readonly string[];
  /** CRDs of c5c3, K-ORC or ESO kinds the cluster already held and that were left as they were. */
  readonly kept: readonly string[];
}

/** Installs the stand-in CRDs (never replacing another's) and waits until the cluster serves each of them. */
export async function prepareBundledActuators(client: Client, scheduler: Scheduler): Promise<PreparedActuators> {
  // The c5c3 operator's kinds too, where absent: a cluster without K-ORC and ESO rarely runs the c5c3 operator.
  const c5c3 = await installC5c3StandInCrds(client);
  const actuators = await installBundledActuatorCrds(client);
  for (const crd of [...c5c3StandInCrds(), ...bundledActuatorCrds()]) await untilServed(client, crd, scheduler);
  return {
    storeType: await discoverStoreType(client, 'SecretStore'),
    installed: [...c5c3.installed, ...actuators.installed],
    kept: [...c5c3.kept, ...actuators.kept],
  };
}

async function untilServed(client: Client, crd: KubeObject, scheduler: Scheduler): Promise<void> {
  const spec = crd['spec'] as { group: string; names: { plural: string } };
  const deadline = scheduler.clock.now() + SERVED_TIMEOUT_MS;
  while ((await client.servedVersions(spec.group, spec.names.plural)).length === 0) {
    if (scheduler.clock.now() >= deadline) {
      throw new Error(`${crd.metadata.name} is not served ${String(SERVED_TIMEOUT_MS / 1000)} s after its install`);
    }
    await delay(scheduler, SERVED_POLL_MS);
  }
}

export interface BundledActuators {
  readonly running: readonly string[];
  /** Closes the bundled K-ORC's Keystone sessions; after the manager stopped. */
  close(): Promise<void>;
}

/** Registers the bundled K-ORC actuators, and the ESO ones when a SecretStore type is served. */
export function registerBundledActuators(
  manager: Manager,
  options: { readonly storeType: ResourceType<SecretStore> | undefined; readonly clock: Clock },
): BundledActuators {
  const credentials: CloudCredentials | undefined = registerKorcActuators(manager, {
    enabled: true,
    clock: options.clock,
  });
  const { storeType } = options;
  if (storeType !== undefined) registerEsoActuator(manager, { enabled: true, storeType });
  return {
    running: ['K-ORC (bundled)', ...(storeType === undefined ? [] : ['ESO (bundled)'])],
    close: async () => credentials?.close(),
  };
}
