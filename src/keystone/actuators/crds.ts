/**
 * The stand-in CRDs openregion installs only where the real ones are absent, and never over them:
 * - the bundled K-ORC and ESO actuators' kinds (`openstack.k-orc.cloud` User and Domain, `external-secrets.io`
 *   PushSecret and SecretStore), the fields openregion writes and reads (a subset of the real CRDs, which the tests
 *   check);
 * - the c5c3 operator's kinds a KeystoneUser reads (ControlPlane, KeystoneRoleAssignment,
 *   KeystoneApplicationCredential): the c5c3 operator owns those CRDs, so they are not in deploy/crds either.
 * Only a cluster without those projects needs them (`openregion up`, `serve --bundled-actuators`), and
 * `installStandInCrds` never replaces a CRD it did not install itself, so the real projects' CRDs stay untouched
 * wherever they are.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import { isKubeAlreadyExists } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { controlPlaneCrd } from '../apis/controlplane.ts';
import { pushSecretCrd, secretStoreCrd } from '../apis/eso.ts';
import { korcDomainCrd, korcUserCrd } from '../apis/korc.ts';
import { keystoneApplicationCredentialCrd, keystoneRoleAssignmentCrd } from '../apis/orders.ts';
import { defined } from '../../util/defined.ts';

/** Marks a CRD as a bundled stand-in: the installer may update only a CRD carrying it. */
export const BUNDLED_CRD_LABEL = 'openregion.dev/bundled-actuators';
const FIELD_MANAGER = 'openregion-bundled-actuators';

const labelled = (crds: readonly KubeObject[]): KubeObject[] =>
  crds.map((crd) => ({
    ...crd,
    metadata: { ...crd.metadata, labels: { ...crd.metadata.labels, [BUNDLED_CRD_LABEL]: 'true' } },
  }));

/** The K-ORC and ESO stand-in CRDs, labelled as openregion's. */
export function bundledActuatorCrds(): KubeObject[] {
  return labelled([korcUserCrd(), korcDomainCrd(), pushSecretCrd(), secretStoreCrd()]);
}

/** The c5c3 operator's kinds an order reads, as stand-ins labelled as openregion's: the ControlPlane first. */
export function c5c3StandInCrds(): KubeObject[] {
  return labelled([controlPlaneCrd(), keystoneRoleAssignmentCrd(), keystoneApplicationCredentialCrd()]);
}

/** Applied by `openregion up` before the stand-ins carried the label: an existing ./.openregion store holds these. */
const EARLIER_UP_FIELD_MANAGER = 'openregion-up';

/** A stand-in openregion put there: labelled, or applied by an earlier `up`. A real K-ORC, ESO or c5c3 CRD is neither. */
function isBundled(crd: KubeObject): boolean {
  return (
    crd.metadata.labels?.[BUNDLED_CRD_LABEL] === 'true' ||
    (crd.metadata.managedFields ?? []).some((f) => f.manager === EARLIER_UP_FIELD_MANAGER)
  );
}

interface BundledCrdsReport {
  /** Created, or updated from an earlier run's stand-in. */
  readonly installed: readonly string[];
  /** A CRD of the name that is not openregion's (the real K-ORC's, ESO's or c5c3's): left exactly as it was. */
  readonly kept: readonly string[];
}

/** Installs the K-ORC and ESO stand-ins (installStandInCrds). */
export function installBundledActuatorCrds(client: Client): Promise<BundledCrdsReport> {
  return installStandInCrds(client, bundledActuatorCrds());
}

/** Installs the c5c3 stand-ins where the c5c3 operator's CRDs are absent (installStandInCrds). */
export function installC5c3StandInCrds(client: Client): Promise<BundledCrdsReport> {
  return installStandInCrds(client, c5c3StandInCrds());
}

/** Installs stand-ins, creating each absent CRD and updating only openregion's own; never replacing another. */
async function installStandInCrds(client: Client, crds: readonly KubeObject[]): Promise<BundledCrdsReport> {
  const installed: string[] = [];
  const kept: string[] = [];
  for (const crd of crds) {
    const name = crd.metadata.name;
    const live = await getOptional(client, builtin.customResourceDefinition, undefined, name);
    if (live !== undefined && !isBundled(live)) {
      kept.push(name);
      continue;
    }
    if (live === undefined) {
      try {
        await client.create(builtin.customResourceDefinition, crd);
        installed.push(name);
        continue;
      } catch (error) {
        // Created by someone else since the read: theirs, and kept.
        if (!isKubeAlreadyExists(error)) throw error;
        kept.push(name);
        continue;
      }
    }
    // An update carrying the read resourceVersion: a CRD replaced since the read is a conflict, never overwritten.
    const { resourceVersion } = live.metadata;
    const metadata = { ...crd.metadata, ...defined({ resourceVersion }) };
    await client.update(builtin.customResourceDefinition, { ...crd, metadata }, { fieldManager: FIELD_MANAGER });
    installed.push(name);
  }
  return { installed, kept };
}
