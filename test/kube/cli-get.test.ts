/**
 * `openregion get` prints what `kubectl get` prints: the same objects, applied by kubectl to the real kube-apiserver
 * 1.20 and by `openregion apply` to an embedded store, read back by kubectl and by openregion from both. Covered:
 * printer columns (a condition filter, an escaped-dot label key, a wide-only column, an age), -o wide, -o name,
 * -o jsonpath with range, -o custom-columns, -l, -A, one object by name, the messages of apply and delete, and
 * `describe` (kubectl's layout, not its exact text: the same from both backends).
 * Skipped loudly without kubectl or the kube-apiserver binary; a failure under CI.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { describeCommand } from '../../src/cli/describe.ts';
import { kubeCommands } from '../../src/cli/kube.ts';
import { kubectl, kubectlPresent } from './deploy-fixture.ts';
import { withRealApiServer } from './real-apiserver.ts';

const inCI = process.env.CI === 'true';
const run = randomBytes(3).toString('hex');
const GROUP = `cli${run}.openregion.dev`;
const NS = `cli-get-${run}`;

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.${GROUP}}
spec:
  group: ${GROUP}
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets, singular: gadget, shortNames: [gd]}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
      additionalPrinterColumns:
        - {name: display name, type: string, jsonPath: '.metadata.labels.example\\.org/name'}
        - {name: status, type: string, jsonPath: '.status.conditions[?(@.type=="Available")].reason'}
        - {name: size, type: integer, jsonPath: .spec.size}
        - {name: address, type: string, jsonPath: .status.address, priority: 1}
        - {name: age, type: date, jsonPath: .metadata.creationTimestamp}
`;
const gadget = (name: string, tier: string, status: string) => `
apiVersion: ${GROUP}/v1
kind: Gadget
metadata:
  name: ${name}
  namespace: ${NS}
  labels: {tier: ${tier}, example.org/name: ${name}-display}
spec: {size: ${String(name.length)}}
${status}`;
const objects = [
  `\napiVersion: v1\nkind: Namespace\nmetadata: {name: ${NS}}\n`,
  gadget(
    'alpha',
    'web',
    'status: {address: 10.0.0.7, conditions: [{type: Available, status: "True", reason: Provisioned}]}',
  ),
  gadget('beta-long-name', 'db', 'status: {}'),
].join('\n---\n');

/** Ages differ by the second between two commands: the comparison reads them as "an age". */
const ageless = (text: string) => text.replace(/\b\d+(s|m\d+s|m)\b/g, '<age>');

const hasKubectl = await kubectlPresent();
if (!hasKubectl) {
  if (inCI) void it('kubectl is installed', () => assert.fail('CI=true and kubectl is not on the PATH'));
  else {
    process.stderr.write('\n*** SKIPPING test/kube/cli-get.test.ts: kubectl is not on the PATH.\n\n');
    void it('openregion get against kubectl', { skip: 'kubectl is not on the PATH' });
  }
} else {
  await withRealApiServer('test/kube/cli-get.test.ts', (apiserver) => {
    describe('openregion get prints what kubectl get prints, from kube-apiserver and from the embedded store', () => {
      const dir = mkdtempSync(join(tmpdir(), 'openregion-cli-get-'));
      const store = join(dir, 'store.db');
      const manifest = join(dir, 'objects.yaml');
      let kubeconfig = '';

      /** `openregion ARGS` in this process, against --kubeconfig or the embedded store. */
      async function openregion(target: 'kube' | 'store', ...args: string[]) {
        let out = '';
        let err = '';
        const program = new Command('openregion').exitOverride();
        const sink = (write: (t: string) => void) => ({ write });
        for (const c of kubeCommands(
          sink((t) => (out += t)),
          sink((t) => (err += t)),
        ))
          program.addCommand(c);
        const where = target === 'kube' ? ['--kubeconfig', kubeconfig] : ['--store', store];
        await program.parseAsync(['node', 'openregion', ...args, ...where]);
        process.exitCode = undefined;
        return { out, err };
      }

      before(async () => {
        kubeconfig = await apiserver.kubeconfigPath();
        writeFileSync(join(dir, 'crd.yaml'), crd);
        writeFileSync(manifest, objects);
        await kubectl(kubeconfig, ['apply', '--server-side', '-f', join(dir, 'crd.yaml')]);
        await kubectl(kubeconfig, ['wait', '--for', 'condition=Established', `crd/gadgets.${GROUP}`]);
        await kubectl(kubeconfig, ['apply', '--server-side', '-f', manifest]);
        for (const file of [join(dir, 'crd.yaml'), manifest]) {
          const applied = await openregion('store', 'apply', '-f', file);
          assert.equal(applied.err, '', 'openregion apply to the embedded store');
        }
      });

      after(async () => {
        await kubectl(kubeconfig, ['delete', 'namespace', NS, '--wait=false']).catch(() => '');
        await kubectl(kubeconfig, ['delete', 'crd', `gadgets.${GROUP}`, '--wait=false']).catch(() => '');
        rmSync(dir, { recursive: true, force: true });
      });

      const cases: [string, string[]][] = [
        ['the printer columns across namespaces', ['get', 'gadgets', '-A']],
        ['the printer columns in one namespace', ['get', 'gd', '-n', NS]],
        ['-o wide', ['get', 'gadgets', '-n', NS, '-o', 'wide']],
        ['-o name', ['get', `gadgets.${GROUP}`, '-n', NS, '-o', 'name']],
        [
          '-o jsonpath with range',
          [
            'get',
            'gadgets',
            '-n',
            NS,
            '-o',
            'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.spec.size}{"\\n"}{end}',
          ],
        ],
        [
          '-o custom-columns',
          [
            'get',
            'gadgets',
            '-n',
            NS,
            '-o',
            'custom-columns=NAME:.metadata.name,TIER:.metadata.labels.tier,IP:.status.address',
          ],
        ],
        ['-l', ['get', 'gadgets', '-n', NS, '-l', 'tier=web']],
        ['one object by name', ['get', 'gadget', 'beta-long-name', '-n', NS]],
        ['one object as jsonpath', ['get', 'gadget', 'alpha', '-n', NS, '-o', 'jsonpath={.metadata.labels.tier}']],
      ];
      for (const [what, args] of cases) {
        it(what, async () => {
          const expected = ageless(await kubectl(kubeconfig, args));
          assert.ok(expected.length > 0);
          assert.equal(ageless((await openregion('kube', ...args)).out), expected, 'from kube-apiserver');
          assert.equal(ageless((await openregion('store', ...args)).out), expected, 'from the embedded store');
        });
      }

      it('describe reads the same from both backends: labels, spec, the conditions table, the rest of the status', async () => {
        const describe = async (target: 'kube' | 'store') => {
          const program = new Command('openregion').exitOverride();
          let out = '';
          program.addCommand(describeCommand({ write: (t: string) => (out += t) }));
          const where = target === 'kube' ? ['--kubeconfig', kubeconfig] : ['--store', store];
          await program.parseAsync(['node', 'openregion', 'describe', 'gadget', 'alpha', '-n', NS, ...where]);
          return ageless(out).replace(/\d{4}-\d\d-\d\dT[\d:]+Z/g, '<time>');
        };
        const fromKube = await describe('kube');
        assert.match(fromKube, /^Labels: {7}example\.org\/name=alpha-display$/m);
        assert.match(fromKube, /^ {2}Available {2}True {4}Provisioned {2}<unknown>\s*$/m);
        assert.match(fromKube, /^Status:\n {2}address: 10\.0\.0\.7$/m);
        assert.equal(await describe('store'), fromKube);
      });

      it('--context picks a context from $KUBECONFIG as kubectl does', async () => {
        const admin = parse(readFileSync(kubeconfig, 'utf8')) as {
          clusters: { name: string; cluster: Record<string, unknown> }[];
          users: { name: string; user: unknown }[];
        };
        const [cluster, user] = [admin.clusters[0], admin.users[0]];
        assert.ok(cluster !== undefined && user !== undefined);
        const merged = join(dir, 'contexts');
        writeFileSync(
          merged,
          stringify({
            apiVersion: 'v1',
            kind: 'Config',
            'current-context': 'nowhere',
            clusters: [
              { name: 'real', cluster: cluster.cluster },
              { name: 'nowhere', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } },
            ],
            users: [{ name: 'admin', user: user.user }],
            contexts: [
              { name: 'real', context: { cluster: 'real', user: 'admin' } },
              { name: 'nowhere', context: { cluster: 'nowhere', user: 'admin' } },
            ],
          }),
          { mode: 0o600 },
        );
        const args = ['get', 'gadgets', '-n', NS, '-o', 'name'];
        const expected = await kubectl(merged, [...args, '--context', 'real']);
        const saved = process.env['KUBECONFIG'];
        process.env['KUBECONFIG'] = merged;
        try {
          let out = '';
          const program = new Command('openregion').exitOverride();
          for (const c of kubeCommands({ write: (t: string) => (out += t) })) program.addCommand(c);
          await program.parseAsync(['node', 'openregion', ...args, '--context', 'real']);
          assert.equal(out, expected);
        } finally {
          if (saved === undefined) delete process.env['KUBECONFIG'];
          else process.env['KUBECONFIG'] = saved;
        }
      });

      it('says what apply and delete did in kubectl’s words', async () => {
        const again = await openregion('kube', 'apply', '-f', manifest);
        const expected = await kubectl(kubeconfig, ['apply', '--server-side', '-f', manifest]);
        assert.equal(again.out, expected);
        const deleted = await openregion('store', 'delete', 'gadget', 'alpha', '-n', NS);
        assert.equal(deleted.out, await kubectl(kubeconfig, ['delete', 'gadget', 'alpha', '-n', NS]));
      });
    });
  });
}
