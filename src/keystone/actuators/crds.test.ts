/**
 * The bundled stand-in CRDs against the real ones (test/fixtures/third-party-crds): every field a stand-in declares
 * exists in the real CRD with the same type, in both ESO lines, so what openregion reads and writes through them is
 * what K-ORC and ESO serve; and the installer never replaces a CRD that is not openregion's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openEmbeddedStore } from '../../kube/embedded/store.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import type { JSONSchemaProps } from '../../kube/schema/types.ts';
import { ManualClock } from '../../util/clock.ts';
import {
  c5c3ControlPlaneCrd,
  crdNamed,
  ESO_LINES,
  ESO_STORE_VERSION,
  esoCrds,
  korcCrds,
} from '../../../test/fixtures/third-party-crds/index.ts';
import {
  BUNDLED_CRD_LABEL,
  bundledActuatorCrds,
  c5c3StandInCrds,
  installBundledActuatorCrds,
  installC5c3StandInCrds,
} from './crds.ts';
import { installCrds } from './testing/real-crds.ts';

function schemaOf(crd: KubeObject, version: string): JSONSchemaProps {
  const versions = (crd.spec as { versions: { name: string; schema: { openAPIV3Schema: JSONSchemaProps } }[] })
    .versions;
  const found = versions.find((v) => v.name === version);
  assert.ok(found, `${crd.metadata.name} has no version ${version}`);
  return found.schema.openAPIV3Schema;
}

/** Paths the stand-in declares that the real schema lacks or types differently. */
function missingIn(real: JSONSchemaProps | undefined, ours: JSONSchemaProps, path: string): string[] {
  if (real === undefined) return [`${path}: absent`];
  if (real['x-kubernetes-preserve-unknown-fields'] === true && real.properties === undefined) return [];
  const gaps =
    ours.type !== undefined && real.type !== undefined && ours.type !== real.type
      ? [`${path}: ${ours.type} is ${real.type}`]
      : [];
  const realMap = typeof real.additionalProperties === 'object' ? real.additionalProperties : undefined;
  for (const [key, sub] of Object.entries(ours.properties ?? {})) {
    gaps.push(...missingIn(real.properties?.[key] ?? realMap, sub, `${path}.${key}`));
  }
  if (ours.items !== undefined) gaps.push(...missingIn(real.items, ours.items, `${path}[]`));
  if (typeof ours.additionalProperties === 'object')
    gaps.push(...missingIn(realMap, ours.additionalProperties, `${path}{}`));
  return gaps;
}

const bundled = (name: string) => crdNamed(bundledActuatorCrds(), name);

describe('the bundled stand-in CRDs are a subset of the real ones', () => {
  const pairs: [string, string, KubeObject, string][] = [
    ['K-ORC', 'users.openstack.k-orc.cloud', crdNamed(korcCrds(), 'users.openstack.k-orc.cloud'), 'v1alpha1'],
    ['K-ORC', 'domains.openstack.k-orc.cloud', crdNamed(korcCrds(), 'domains.openstack.k-orc.cloud'), 'v1alpha1'],
    ...ESO_LINES.flatMap((line): [string, string, KubeObject, string][] => [
      [
        `ESO ${line}`,
        'pushsecrets.external-secrets.io',
        crdNamed(esoCrds(line), 'pushsecrets.external-secrets.io'),
        'v1alpha1',
      ],
      [
        `ESO ${line}`,
        'secretstores.external-secrets.io',
        crdNamed(esoCrds(line), 'secretstores.external-secrets.io'),
        ESO_STORE_VERSION[line],
      ],
    ]),
  ];
  for (const [project, name, real, version] of pairs) {
    it(`${name}: every field declared exists in ${project}'s CRD at ${version}, with the same type`, () => {
      const ours = bundled(name);
      const oursVersion = (ours.spec as { versions: { name: string }[] }).versions[0]?.name ?? '';
      assert.deepEqual(missingIn(schemaOf(real, version), schemaOf(ours, oursVersion), ''), []);
    });
  }
});

describe('installBundledActuatorCrds', () => {
  it('installs the stand-ins into a store that has none, and updates only its own on a second run', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    try {
      const first = await installBundledActuatorCrds(store);
      assert.deepEqual(first.kept, []);
      assert.equal(first.installed.length, 4);
      const second = await installBundledActuatorCrds(store);
      assert.deepEqual(second, first);
      for (const name of first.installed) {
        const crd = await store.get(builtin.customResourceDefinition, undefined, name);
        assert.equal(crd.metadata.labels?.[BUNDLED_CRD_LABEL], 'true');
      }
    } finally {
      await store.close();
    }
  });

  it('takes over the unlabelled stand-ins an earlier openregion up applied, and labels them', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    try {
      for (const crd of bundledActuatorCrds()) {
        const { [BUNDLED_CRD_LABEL]: _, ...labels } = crd.metadata.labels ?? {};
        await store.apply(
          builtin.customResourceDefinition,
          { ...crd, metadata: { ...crd.metadata, labels } },
          {
            fieldManager: 'openregion-up',
            force: true,
          },
        );
      }
      const report = await installBundledActuatorCrds(store);
      assert.deepEqual(report.kept, []);
      for (const name of report.installed) {
        const crd = await store.get(builtin.customResourceDefinition, undefined, name);
        assert.equal(crd.metadata.labels?.[BUNDLED_CRD_LABEL], 'true');
      }
    } finally {
      await store.close();
    }
  });

  for (const line of ESO_LINES) {
    it(`never replaces the real K-ORC and ESO ${line} CRDs: they are kept exactly as they were`, async () => {
      const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
      try {
        await installCrds(store, [
          ...korcCrds(),
          ...esoCrds(line).filter((c) => !c.metadata.name.startsWith('cluster')),
        ]);
        const before = await store.list(builtin.customResourceDefinition);
        const report = await installBundledActuatorCrds(store);
        assert.deepEqual(report.installed, []);
        assert.deepEqual(
          [...report.kept].sort(),
          bundledActuatorCrds()
            .map((c) => c.metadata.name)
            .sort(),
        );
        assert.deepEqual(await store.list(builtin.customResourceDefinition), before);
      } finally {
        await store.close();
      }
    });
  }
});

describe("the c5c3 operator's CRDs: read from the installed real ones, stand-ins only where absent", () => {
  it('the ControlPlane stand-in declares what the real CRD does, but for the namespace assignments it lacks', () => {
    const ours = crdNamed(c5c3StandInCrds(), 'controlplanes.c5c3.io');
    // The real CRD at the fixture's revision (d5ac8f378350) has no namespaceAssignments, which the assignment
    // gate reads: a real apiserver prunes them, so an order against that revision reads NamespaceNotAssigned.
    assert.deepEqual(missingIn(schemaOf(c5c3ControlPlaneCrd(), 'v1alpha1'), schemaOf(ours, 'v1alpha1'), ''), [
      '.spec.namespaceAssignments: absent',
      '.status.namespaceAssignments: absent',
    ]);
  });

  it('installed first, the real ControlPlane CRD is kept exactly; only the absent kinds get stand-ins', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    try {
      await installCrds(store, [c5c3ControlPlaneCrd()]);
      const before = await store.get(builtin.customResourceDefinition, undefined, 'controlplanes.c5c3.io');
      const report = await installC5c3StandInCrds(store);
      assert.deepEqual(report.kept, ['controlplanes.c5c3.io']);
      assert.deepEqual([...report.installed].sort(), [
        'keystoneapplicationcredentials.c5c3.io',
        'keystoneroleassignments.c5c3.io',
      ]);
      assert.deepEqual(await store.get(builtin.customResourceDefinition, undefined, 'controlplanes.c5c3.io'), before);
      // A second run (a restart) changes nothing either.
      assert.deepEqual((await installC5c3StandInCrds(store)).kept, ['controlplanes.c5c3.io']);
      assert.deepEqual(await store.get(builtin.customResourceDefinition, undefined, 'controlplanes.c5c3.io'), before);
    } finally {
      await store.close();
    }
  });
});
