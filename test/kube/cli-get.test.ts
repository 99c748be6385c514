/**
 * `openregion get` prints what `kubectl get` prints: the same objects, applied by kubectl to the real kube-apiserver
 * 1.20 and by `openregion apply` to an embedded store, read back by kubectl and by openregion from both. Covered:
 * printer columns (a condition filter, an escaped-dot label key, a wide-only column, an age), -o wide, -o name,
 * -o jsonpath with range, -o custom-columns, -l, -A, one object by name, the context's namespace, the messages of
 * apply and delete, completion of object names (kubectl's `__complete`), `wait`'s exit codes, and `describe`: its
 * conditions hold what kubectl describe's do (kubectl has no conditions table for a custom resource, so the
 * comparison is by content), and the rest reads the same from both backends.
 * Skipped loudly without kubectl or the kube-apiserver binary; a failure under CI.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { completions } from '../../src/cli/complete.ts';
import { describeCommand } from '../../src/cli/describe.ts';
import { kubeCommands } from '../../src/cli/kube.ts';
import { waitCommand } from '../../src/cli/wait.ts';
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
    'status: {address: 10.0.0.7, conditions: [{type: Available, status: "True", reason: Provisioned, message: up and serving}, {type: Degraded, status: "False", reason: Healthy}]}',
  ),
  gadget('beta-long-name', 'db', 'status: {}'),
].join('\n---\n');

/** `kubectl ARGS`'s exit code (and how long it took), where a failure is the point. */
async function kubectlExit(kubeconfig: string, args: readonly string[]): Promise<number> {
  const child = spawn('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], { stdio: 'ignore' });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code ?? -1;
}

/** The conditions kubectl's generic describer prints under Status (one `Key:  value` block each, Type last). */
function kubectlConditions(text: string): Record<string, string>[] {
  const lines = text.split('\n');
  const start = lines.indexOf('  Conditions:');
  const records: Record<string, string>[] = [];
  let record: Record<string, string> = {};
  for (const line of lines.slice(start + 1)) {
    const field = /^ {4}([A-Z][\w ]*):\s*(.*)$/.exec(line);
    if (field?.[1] === undefined) break;
    record[field[1]] = field[2] ?? '';
    if (field[1] === 'Type') {
      records.push(record);
      record = {};
    }
  }
  return records.map((r) => ({
    type: r['Type'] ?? '',
    status: r['Status'] ?? '',
    reason: r['Reason'] ?? '',
    message: r['Message'] ?? '',
  }));
}

/** The rows of openregion describe's conditions table, cut at its headings' columns. */
function tableConditions(text: string): Record<string, string>[] {
  const lines = text.split('\n');
  const header = lines[lines.indexOf('Conditions:') + 1] ?? '';
  const starts = ['Type', 'Status', 'Reason', 'Age', 'Message'].map((h) => header.indexOf(h));
  const rows = [];
  for (const line of lines.slice(lines.indexOf('Conditions:') + 3)) {
    if (!line.startsWith('  ')) break;
    const cell = (i: number) => line.slice(starts[i], starts[i + 1]).trim();
    rows.push({ type: cell(0), status: cell(1), reason: cell(2), message: cell(4) });
  }
  return rows;
}

/**
 * Ages differ by the second between two commands: the comparison reads them as "an age". What each server sets on
 * its own (uid, resourceVersion, creationTimestamp) is read as "a value".
 */
const ageless = (text: string) =>
  text
    .replace(/\b\d+(s|m\d+s|m)\b/g, '<age>')
    .replace(/^(\s*"?(?:uid|resourceVersion|creationTimestamp)"?: ).*$/gm, '$1<server-set>');

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
        const [stdout, stderr] = [sink((t) => (out += t)), sink((t) => (err += t))];
        for (const c of [...kubeCommands(stdout, stderr), waitCommand(stdout, stderr)]) program.addCommand(c);
        const where = target === 'kube' ? ['--kubeconfig', kubeconfig] : ['--store', store];
        await program.parseAsync(['node', 'openregion', ...args, ...where]);
        const code = Number(process.exitCode ?? 0);
        process.exitCode = undefined;
        return { out, err, code };
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
        ['one object as YAML', ['get', 'gadget', 'alpha', '-n', NS, '-o', 'yaml']],
        ['one object as JSON', ['get', 'gadget', 'alpha', '-n', NS, '-o', 'json']],
      ];
      for (const [what, args] of cases) {
        it(what, async () => {
          const expected = ageless(await kubectl(kubeconfig, args));
          assert.ok(expected.length > 0);
          assert.equal(ageless((await openregion('kube', ...args)).out), expected, 'from kube-apiserver');
          assert.equal(ageless((await openregion('store', ...args)).out), expected, 'from the embedded store');
        });
      }

      it('completes the names of a kind’s objects as kubectl’s __complete does, from both backends', async () => {
        const words = ['get', 'gadgets', '-n', NS, ''];
        const fromKubectl = (await kubectl(kubeconfig, ['__complete', ...words]))
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith(':'));
        assert.deepEqual(fromKubectl, ['alpha', 'beta-long-name']);
        const at = (where: string[]) => completions([...words.slice(0, -1), ...where, ''], {});
        assert.deepEqual(await at(['--kubeconfig', kubeconfig]), fromKubectl, 'from kube-apiserver');
        assert.deepEqual(await at(['--store', store]), fromKubectl, 'from the embedded store');
      });

      it('wait exits as kubectl wait does: met 0, timed out 1, not found 1 at once, awaited deletion of nothing 0', async () => {
        const cases: [string, string[]][] = [
          [
            'a condition met',
            ['wait', 'gadget', 'alpha', '-n', NS, '--for', 'condition=Available', '--timeout', '20s'],
          ],
          ['a condition=False met', ['wait', 'gadget', 'alpha', '-n', NS, '--for', 'condition=Degraded=False']],
          ['a jsonpath value met', ['wait', 'gadget', 'alpha', '-n', NS, '--for', 'jsonpath={.spec.size}=5']],
          [
            'a condition not met in time',
            ['wait', 'gadget', 'beta-long-name', '-n', NS, '--for', 'condition=Available', '--timeout', '1s'],
          ],
          [
            'an object that is not there',
            ['wait', 'gadget', 'nonesuch', '-n', NS, '--for', 'condition=Available', '--timeout', '5m'],
          ],
          [
            'the deletion of an object not there',
            ['wait', 'gadget', 'nonesuch', '-n', NS, '--for', 'delete', '--timeout', '5s'],
          ],
        ];
        for (const [what, args] of cases) {
          const started = Date.now();
          const expected = await kubectlExit(kubeconfig, args);
          for (const target of ['kube', 'store'] as const) {
            assert.equal((await openregion(target, ...args)).code, expected, `${what}, from ${target}`);
          }
          // A missing object is an error at once (within a minute of a five-minute timeout), as kubectl's.
          assert.ok(Date.now() - started < 60_000, `${what}: returned before its timeout`);
        }
      });

      it('describe’s conditions are kubectl describe’s: the same conditions, types, statuses, reasons and messages', async () => {
        const fromKubectl = kubectlConditions(await kubectl(kubeconfig, ['describe', 'gadget', 'alpha', '-n', NS]));
        assert.deepEqual(fromKubectl, [
          { type: 'Available', status: 'True', reason: 'Provisioned', message: 'up and serving' },
          { type: 'Degraded', status: 'False', reason: 'Healthy', message: '' },
        ]);
        for (const target of ['kube', 'store'] as const) {
          const program = new Command('openregion').exitOverride();
          let out = '';
          program.addCommand(describeCommand({ write: (t: string) => (out += t) }));
          const where = target === 'kube' ? ['--kubeconfig', kubeconfig] : ['--store', store];
          await program.parseAsync(['node', 'openregion', 'describe', 'gadget', 'alpha', '-n', NS, ...where]);
          assert.match(out, /^Conditions:\n {2}Type +Status +Reason +Age +Message\n {2}---- +------ /m, target);
          assert.deepEqual(tableConditions(out), fromKubectl, `from ${target}`);
        }
      });

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
        assert.match(fromKube, /^ {2}Available {2}True {4}Provisioned {2}<unknown> {2}up and serving$/m);
        assert.match(fromKube, /^Status:\n {2}address: 10\.0\.0\.7$/m);
        assert.equal(await describe('store'), fromKube);
      });

      it('--context picks a context (and its namespace) from $KUBECONFIG as kubectl does', async () => {
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
              { name: 'real', context: { cluster: 'real', user: 'admin', namespace: NS } },
              { name: 'nowhere', context: { cluster: 'nowhere', user: 'admin' } },
            ],
          }),
          { mode: 0o600 },
        );
        // No -n: the context's namespace, as kubectl's.
        const args = ['get', 'gadgets', '-o', 'name'];
        const expected = await kubectl(merged, [...args, '--context', 'real']);
        assert.match(expected, /gadget\.[^/]+\/alpha\n/);
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

      it('apply says what kubectl apply says, dry runs, directories and kustomizations included, on both backends', async () => {
        const fresh = (name: string) => gadget(name, 'new', 'status: {}');
        writeFileSync(join(dir, 'fresh.yaml'), fresh('gamma'));
        writeFileSync(join(dir, 'kz-gadgets.yaml'), [fresh('zeta'), fresh('delta')].join('\n---\n'));
        writeFileSync(
          join(dir, 'kustomization.yaml'),
          `namespace: ${NS}\nnamePrefix: k-\nresources: [kz-gadgets.yaml]\n`,
        );
        mkdirSync(join(dir, 'tree', 'sub'), { recursive: true });
        writeFileSync(join(dir, 'tree', 'b.yaml'), fresh('eta'));
        writeFileSync(join(dir, 'tree', 'sub', 'a.yaml'), fresh('theta'));
        const cases: string[][] = [
          ['apply', '-f', join(dir, 'fresh.yaml'), '--dry-run=client'],
          ['apply', '-R', '-f', join(dir, 'tree'), '--dry-run=server'],
          ['apply', '-f', join(dir, 'fresh.yaml'), '--dry-run=server'],
          ['apply', '--server-side', '-f', manifest, '--dry-run=server'],
          ['apply', '-k', dir, '--dry-run=server'],
        ];
        for (const args of cases) {
          const expected = await kubectl(kubeconfig, args);
          assert.match(expected, /dry run\)\n$/);
          assert.equal((await openregion('kube', ...args)).out, expected, `${args.join(' ')} on kube-apiserver`);
          assert.equal((await openregion('store', ...args)).out, expected, `${args.join(' ')} on the embedded store`);
        }
        assert.equal((await openregion('kube', 'get', 'gadget', 'k-delta', '-n', NS)).code, 1, 'nothing written');
      });

      it('says what apply and delete did in kubectl’s words', async () => {
        const again = await openregion('kube', 'apply', '--server-side', '-f', manifest);
        const expected = await kubectl(kubeconfig, ['apply', '--server-side', '-f', manifest]);
        assert.equal(again.out, expected);
        const deleted = await openregion('store', 'delete', 'gadget', 'alpha', '-n', NS);
        assert.equal(deleted.out, await kubectl(kubeconfig, ['delete', 'gadget', 'alpha', '-n', NS]));
      });
    });
  });
}
