/**
 * Test support: stores holding the real K-ORC and ESO CRDs (test/fixtures/third-party-crds), so the bundled
 * actuators and the reconciler are exercised against the schemas the real controllers serve, and the clouds.yaml
 * Secret a cloudCredentialsRef names.
 */
import type { Client } from '../../../kube/client.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../../kube/embedded/store.ts';
import type { KubeObject } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import type { Clock } from '../../../util/clock.ts';
import { esoCrds, korcCrds, type EsoLine } from '../../../../test/fixtures/third-party-crds/index.ts';
import { keystoneCrds } from '../../apis/index.ts';
import { c5c3StandInCrds } from '../crds.ts';

interface RealCrdsOptions {
  /** The ESO line whose CRDs to install; none when absent. */
  readonly eso?: EsoLine | undefined;
  /** ClusterSecretStore is the largest CRD by far: left out unless a test reads one. */
  readonly clusterSecretStores?: boolean;
}

/**
 * openregion's own Keystone CRD, the c5c3 stand-ins (the real ControlPlane CRD at the fixture's revision has no
 * spec.namespaceAssignments, so no order could be admitted through it), the real K-ORC CRDs, and the real ESO CRDs
 * of one line.
 */
export function realCrds(options: RealCrdsOptions = {}): KubeObject[] {
  const eso =
    options.eso === undefined
      ? []
      : esoCrds(options.eso).filter(
          (c) => options.clusterSecretStores === true || c.metadata.name !== 'clustersecretstores.external-secrets.io',
        );
  return [...keystoneCrds(), ...c5c3StandInCrds(), ...korcCrds(), ...eso];
}

export async function installCrds(client: Client, crds: readonly KubeObject[]): Promise<void> {
  for (const crd of crds) await client.create(builtin.customResourceDefinition, crd);
}

/** An in-memory embedded store with the real CRDs installed. */
export async function storeWithRealCrds(clock: Clock, options: RealCrdsOptions = {}): Promise<EmbeddedStore> {
  const store = openEmbeddedStore(':memory:', { clock, garbageCollection: false });
  await installCrds(store, realCrds(options));
  return store;
}

/** The Secret a cloudCredentialsRef names: `clouds.yaml` holding the cloud. */
export function cloudsSecret(namespace: string, name: string, cloudsYaml: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: { 'clouds.yaml': Buffer.from(cloudsYaml).toString('base64') },
  };
}
