/**
 * `openregion region register --dry-run -o yaml` against a real kube-apiserver 1.20: the printed Secret and
 * Region apply cleanly (server-side apply, twice) once the region CRDs are installed, and read back as printed.
 * Skipped loudly when the binary is not built, outside CI.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { regionCommand } from '../../src/cli/region.ts';
import { customResourceDefinition } from '../../src/kube/crd.ts';
import { isKubeAlreadyExists } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { regionKinds, regionType, type Region } from '../../src/region/apis/index.ts';
import { SECRET_KEYS } from '../../src/region/registration/credentials.ts';
import { renderEnvFile, writeEnvFile } from '../../src/region/registration/env-file.ts';
import { applyManifests } from '../../src/region/registration/register.ts';
import { eventually } from './fixtures.ts';
import { withRealApiServer } from './real-apiserver.ts';

const namespace = `region-register-${String(process.pid)}`;
const regionID = '0b7e4f3a-2c1d-4e5f-8a9b-0c1d2e3f4a5b';

await withRealApiServer('test/kube/region-register.test.ts', (apiserver) => {
  describe('region register --dry-run -o yaml on kube-apiserver 1.20', () => {
    let client: KubernetesClient;
    const envFile = join(mkdtempSync(join(tmpdir(), 'region-register-')), 'region.env');

    before(async () => {
      client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      const kind = regionKinds.find((k) => k.type.kind === 'Region') ?? assert.fail('no Region kind');
      try {
        // Create, not apply: 1.20's apply refuses x-kubernetes-validations (test/kube/region-crds.test.ts).
        await client.create(builtin.customResourceDefinition, customResourceDefinition(kind));
      } catch (error) {
        if (!isKubeAlreadyExists(error)) throw error;
      }
      await eventually('Region to be served', () => client.list(regionType));
      await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      writeEnvFile(
        envFile,
        renderEnvFile(
          {
            authUrl: 'http://127.0.0.1:5000/v3',
            regionName: 'RegionOne',
            domainID: 'd1',
            domainName: 'openregion',
            projectID: 'p1',
            projectName: 'openregion-region',
            userID: 'u1',
            userName: 'openregion-region',
            password: 'pw-1',
          },
          'test',
        ),
      );
    });

    after(async () => {
      await client.delete(builtin.namespace, undefined, namespace).catch(() => undefined);
      client.close();
    });

    it('applies cleanly, twice, and reads back as printed', async () => {
      let out = '';
      const command = regionCommand({ write: (t: string) => (out += t) }, { write: () => true });
      command.exitOverride();
      await command.parseAsync(
        [
          'register',
          '--provider-env',
          envFile,
          '--no-discover',
          '--name',
          'dev-1',
          '--region-id',
          regionID,
          '--namespace',
          namespace,
          '--physical-network',
          'physnet1',
          '--vlan-range',
          '100-199',
          '--create-secret',
          '--dry-run',
          '--store',
          join(tmpdir(), 'openregion-absent', 'store.db'),
          '-o',
          'yaml',
        ],
        { from: 'user' },
      );
      const objects = parseAllDocuments(out).map((d) => d.toJS() as KubeObject);
      assert.deepEqual(
        objects.map((o) => o.kind),
        ['Secret', 'Region'],
      );
      for (let i = 0; i < 2; i++) await applyManifests(client, objects);
      const region = await client.get(regionType, namespace, regionID);
      assert.equal(region.metadata.labels?.['unikorn-cloud.org/name'], 'dev-1');
      // As printed, plus the CRD's default.
      const printed = objects[1]?.spec as Region['spec'];
      assert.deepEqual(region.spec, { ...printed, openstack: { ...printed.openstack, defaultArchitecture: 'x86_64' } });
      const secret = await client.get(builtin.secret, namespace, `${regionID}-openstack`);
      assert.deepEqual(Object.keys(secret.data as object).sort(), [...SECRET_KEYS].sort());
    });

    it('register twice by name with --kubeconfig: one Region, the second run says it updated it', async () => {
      const run = async (args: string[]) => {
        let out = '';
        const command = regionCommand({ write: (t: string) => (out += t) }, { write: () => true });
        command.exitOverride();
        await command.parseAsync(
          [
            'register',
            '--provider-env',
            envFile,
            '--no-discover',
            '--kubeconfig',
            await apiserver.kubeconfigPath(),
            '--namespace',
            namespace,
            '--create-secret',
            '--name',
            'twice',
            ...args,
          ],
          { from: 'user' },
        );
        return out;
      };
      const first = await run([]);
      const [, id] = /region ([0-9a-f-]{36}) \(twice\) created/.exec(first) ?? assert.fail(first);
      assert.match(await run(['--organization-id', 'org-2']), new RegExp(`region ${id ?? ''} \\(twice\\) updated`));
      const { items } = await client.list<Region>(regionType, {
        namespace,
        labelSelector: 'unikorn-cloud.org/name=twice',
      });
      assert.deepEqual(
        items.map((r) => [r.metadata.name, r.spec.security?.organizations?.map((o) => o.id)]),
        [[id, ['org-2']]],
      );
    });
  });
});
