/**
 * openregion's CLI beside the real kubectl (the machine's), on kube-apiserver 1.20 with openregion's own CRDs: for
 * each region kind, `openregion get` prints the columns and rows `kubectl get` prints for the same objects (the
 * CRDs' printer columns, -o wide's priority columns, short names, categories, `all`, TYPE.GROUP/NAME), from the
 * cluster and from an embedded store holding the same objects; `api-resources` and `get events` likewise; and
 * every verb both have accepts kubectl's spelling of it (the same command line succeeds with both).
 * Skipped loudly without kubectl or the kube-apiserver binary; a failure under CI.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { stringify } from 'yaml';
import { allCrds } from '../../src/cli/crds.ts';
import { describeCommand } from '../../src/cli/describe.ts';
import { apiResourcesCommand, explainCommand } from '../../src/cli/discovery.ts';
import { kubeCommands } from '../../src/cli/kube.ts';
import { waitCommand } from '../../src/cli/wait.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { regionKinds } from '../../src/region/apis/index.ts';
import { validSamples } from '../../src/region/apis/testing/samples.ts';
import { kubectl, kubectlPresent } from './deploy-fixture.ts';
import { installRegionCrds } from './fixtures.ts';
import { withRealApiServer } from './real-apiserver.ts';

const inCI = process.env.CI === 'true';
const run = randomBytes(3).toString('hex');
const NS = `cli-parity-${run}`;
const GROUP = 'region.unikorn-cloud.org';

/** Each kind's valid sample in the test's namespace, with a display name and the owner labels -o wide shows. */
const samples: KubeObject[] = Object.values(validSamples).map((sample) => ({
  ...sample,
  metadata: {
    name: sample.metadata.name,
    namespace: NS,
    labels: {
      ...sample.metadata.labels,
      'unikorn-cloud.org/organization': `org-${run}`,
      'unikorn-cloud.org/project': 'proj-1',
    },
  },
}));
const nameOf = (kind: string) => samples.find((s) => s.kind === kind)?.metadata.name ?? assert.fail(kind);
const event: KubeObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: `${nameOf('Server')}.${run}`, namespace: NS },
  involvedObject: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Server', name: nameOf('Server'), namespace: NS },
  type: 'Warning',
  reason: 'Unhealthy',
  message: 'the server stopped answering',
  count: 3,
  firstTimestamp: new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
  lastTimestamp: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
  source: { component: 'region-monitor' },
};

/** Tables a blank line apart, and lines, in a stable order. */
const byTable = (text: string) => text.trimEnd().split('\n\n').sort().join('\n\n');
const byLine = (text: string) => text.split('\n').sort().join('\n');

/** Ages differ by the second between two commands: read as "an age". */
const ageless = (text: string) => text.replace(/\b\d+(s|m\d+s|m|h|h\d+m)\b/g, '<age>');

const hasKubectl = await kubectlPresent();
if (!hasKubectl) {
  if (inCI) void it('kubectl is installed', () => assert.fail('CI=true and kubectl is not on the PATH'));
  else {
    process.stderr.write('\n*** SKIPPING test/kube/cli-parity.test.ts: kubectl is not on the PATH.\n\n');
    void it('openregion beside kubectl', { skip: 'kubectl is not on the PATH' });
  }
} else {
  await withRealApiServer('test/kube/cli-parity.test.ts', (apiserver) => {
    describe('openregion and kubectl agree on the region kinds, on kube-apiserver and from the embedded store', () => {
      const dir = mkdtempSync(join(tmpdir(), 'openregion-cli-parity-'));
      const store = join(dir, 'store.db');
      const manifest = join(dir, 'objects.yaml');
      /** The samples alone (no namespace, no event): what `delete -f` deletes. */
      const kindsOnly = join(dir, 'samples.yaml');
      /** The Event alone, for apply: kubectl's client-side check of 1.20's schemas refuses a defaulted-away field. */
      const eventOnly = join(dir, 'event.yaml');
      let kubeconfig = '';

      async function openregion(target: 'kube' | 'store', ...args: string[]) {
        let out = '';
        let err = '';
        const program = new Command('openregion').exitOverride();
        const sink = (write: (t: string) => void) => ({ write });
        const [o, e] = [sink((t) => (out += t)), sink((t) => (err += t))];
        for (const c of [
          ...kubeCommands(o, e),
          describeCommand(o, e),
          waitCommand(o, e),
          apiResourcesCommand(o, e),
          explainCommand(o, e),
        ]) {
          program.addCommand(c);
        }
        const where = target === 'kube' ? ['--kubeconfig', kubeconfig] : ['--store', store];
        await program.parseAsync(['node', 'openregion', ...args, ...where]);
        const code = Number(process.exitCode ?? 0);
        process.exitCode = undefined;
        return { out, err, code };
      }

      before(async () => {
        kubeconfig = await apiserver.kubeconfigPath();
        const client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
        try {
          await installRegionCrds(client);
        } finally {
          client.close();
        }
        const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } };
        const docs = [namespace, ...samples, event].map((d) => `---\n${stringify(d)}`).join('');
        writeFileSync(manifest, docs);
        writeFileSync(kindsOnly, samples.map((d) => `---\n${stringify(d)}`).join(''));
        writeFileSync(eventOnly, stringify(event));
        await kubectl(kubeconfig, ['apply', '--server-side', '--validate=false', '-f', manifest]);
        writeFileSync(
          join(dir, 'crds.yaml'),
          allCrds()
            .map((d) => `---\n${stringify(d)}`)
            .join(''),
        );
        for (const file of [join(dir, 'crds.yaml'), manifest]) {
          const applied = await openregion('store', 'apply', '-f', file);
          assert.equal(applied.err, '', 'openregion apply to the embedded store');
        }
      });

      after(async () => {
        await kubectl(kubeconfig, ['delete', 'namespace', NS, '--wait=false']).catch(() => '');
        rmSync(dir, { recursive: true, force: true });
      });

      /** kubectl's output, and openregion's from the cluster and from the store, equal (ages aside). */
      async function agree(args: string[], read: (text: string) => string = (text) => text) {
        const expected = read(ageless(await kubectl(kubeconfig, args)));
        assert.ok(expected.length > 0, `kubectl ${args.join(' ')} printed something`);
        assert.equal(read(ageless((await openregion('kube', ...args)).out)), expected, 'from kube-apiserver');
        assert.equal(read(ageless((await openregion('store', ...args)).out)), expected, 'from the embedded store');
      }

      for (const { type, shortNames = [] } of regionKinds) {
        it(`${type.plural}: the same columns and rows, by plural, short name and TYPE.GROUP/NAME, and -o wide`, async () => {
          await agree(['get', type.plural, '-n', NS]);
          await agree(['get', type.plural, '-n', NS, '-o', 'wide']);
          for (const short of shortNames) await agree(['get', short, '-n', NS]);
          const named = `${type.kind.toLowerCase()}.${GROUP}/${nameOf(type.kind)}`;
          await agree(['get', named, '-n', NS, '-o', 'name']);
          await agree(['get', named, '-n', NS]);
        });
      }

      it('several kinds, all and the unikorn category: a table per kind, rows named kind.group/name', async () => {
        await agree(['get', 'srv,net,vol', '-n', NS]);
        // A category's kinds come in the API server's discovery order, which follows no rule (its CRD cache's):
        // the same tables, in any order.
        await agree(['get', 'all', '-n', NS], byTable);
        await agree(['get', 'unikorn', '-n', NS], byTable);
        await agree(['get', 'unikorn', '-n', NS, '-o', 'name'], byLine);
      });

      it('get events: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE', async () => {
        await agree(['get', 'events', '-n', NS]);
      });

      it('api-resources lists the region kinds as kubectl does', async () => {
        const args = ['api-resources', `--api-group=${GROUP}`];
        const expected = await kubectl(kubeconfig, args);
        assert.equal((await openregion('kube', ...args)).out, expected);
        assert.equal((await openregion('store', ...args)).out, expected);
      });

      it("every verb both have accepts kubectl's spelling of it", async () => {
        const server = nameOf('Server');
        const lines: string[][] = [
          ['get', 'servers', '-n', NS, '-o', 'wide', '--show-kind'],
          ['get', `server/${server}`, '-n', NS, '-o', 'jsonpath={.spec.flavorID}'],
          ['get', 'srv', server, '-n', NS, '-o', 'yaml'],
          ['get', 'servers', '-n', NS, '-l', `unikorn-cloud.org/name=sample-server`],
          ['describe', `server.${GROUP}/${server}`, '-n', NS],
          ['describe', 'servers', '-n', NS, '-l', 'unikorn-cloud.org/project=proj-1'],
          ['wait', `server/${server}`, '-n', NS, '--for=jsonpath={.spec.flavorID}=f1', '--timeout=20s'],
          ['api-resources', '-o', 'wide', '--namespaced=true'],
          ['explain', 'servers.spec'],
          ['apply', '--server-side', '--dry-run=server', '-f', eventOnly],
        ];
        for (const line of lines) {
          await kubectl(kubeconfig, line); // kubectl accepts it (it throws otherwise)
          const ours = await openregion('kube', ...line);
          assert.equal(ours.code, 0, `openregion ${line.join(' ')}: ${ours.err}`);
        }
        // The deletions last, each on its own copy: kubectl's on the cluster, openregion's on the store and cluster.
        const volume = nameOf('Volume');
        const deletions = [
          ['delete', 'volumes', volume, '-n', NS, '--cascade=foreground', '--wait=false'],
          ['delete', '-f', kindsOnly, '--ignore-not-found', '--wait=false', '--cascade=orphan'],
        ];
        for (const line of deletions) {
          await kubectl(kubeconfig, ['apply', '--server-side', '--validate=false', '-f', manifest]);
          await kubectl(kubeconfig, line);
          await kubectl(kubeconfig, ['apply', '--server-side', '--validate=false', '-f', manifest]);
          const ours = await openregion('kube', ...line);
          assert.equal(ours.code, 0, `openregion ${line.join(' ')}: ${ours.err}`);
          const local = await openregion('store', ...line);
          assert.equal(local.code, 0, `openregion ${line.join(' ')} on the store: ${local.err}`);
        }
      });
    });
  });
}
