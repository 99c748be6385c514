/**
 * The CRDs the bundled K-ORC and ESO actuators serve: openregion's own stand-ins of `openstack.k-orc.cloud` User
 * and Domain and `external-secrets.io` PushSecret and SecretStore, the fields openregion writes and reads (a subset
 * of the real CRDs, which the tests check). They are not in deploy/crds: only a store without the real K-ORC and ESO
 * needs them (`openregion up`), and they are installed by `installBundledActuatorCrds`, which never replaces a CRD
 * it did not install itself, so the real projects' CRDs stay untouched wherever they are.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import { isKubeAlreadyExists } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { pushSecretCrd, secretStoreCrd } from '../apis/eso.ts';
import { korcDomainCrd, korcUserCrd } from '../apis/korc.ts';

/** Marks a CRD as a bundled stand-in: the installer may update only a CRD carrying it. */
export const BUNDLED_CRD_LABEL = 'openregion.dev/bundled-actuators';
const FIELD_MANAGER = 'openregion-bundled-actuators';

/** The stand-in CRDs, labelled as openregion's. */
export function bundledActuatorCrds(): KubeObject[] {
  return [korcUserCrd(), korcDomainCrd(), pushSecretCrd(), secretStoreCrd()].map((crd) => ({
    ...crd,
    metadata: { ...crd.metadata, labels: { ...crd.metadata.labels, [BUNDLED_CRD_LABEL]: 'true' } },
  }));
}

/** Applied by `openregion up` before the stand-ins carried the label: an existing ./.openregion store holds these. */
const EARLIER_UP_FIELD_MANAGER = 'openregion-up';

/** A stand-in openregion put there: labelled, or applied by an earlier `up`. A real K-ORC or ESO CRD is neither. */
function isBundled(crd: KubeObject): boolean {
  return (
    crd.metadata.labels?.[BUNDLED_CRD_LABEL] === 'true' ||
    (crd.metadata.managedFields ?? []).some((f) => f.manager === EARLIER_UP_FIELD_MANAGER)
  );
}

interface BundledCrdsReport {
  /** Created, or updated from an earlier run's stand-in. */
  readonly installed: readonly string[];
  /** A CRD of the name that is not openregion's (the real K-ORC's or ESO's): left exactly as it was. */
  readonly kept: readonly string[];
}

/** Installs the stand-ins, creating each absent CRD and updating only openregion's own; never replacing another. */
export async function installBundledActuatorCrds(client: Client): Promise<BundledCrdsReport> {
  const installed: string[] = [];
  const kept: string[] = [];
  for (const crd of bundledActuatorCrds()) {
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
    const metadata = { ...crd.metadata, ...(resourceVersion === undefined ? {} : { resourceVersion }) };
    await client.update(builtin.customResourceDefinition, { ...crd, metadata }, { fieldManager: FIELD_MANAGER });
    installed.push(name);
  }
  return { installed, kept };
}
