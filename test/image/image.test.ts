/**
 * The OCI image (`bash scripts/image.sh build`), run the way a pod runs it: its own non-root user, a read-only
 * root filesystem, host networking (scripts/image.sh run). It prints its version and holds the CA bundle; with the
 * region service overlay applied to the real kube-apiserver 1.20 and only a token minted for its ServiceAccount,
 * `openregion serve` in it takes the Lease, syncs its caches, answers /healthz, /readyz, /metrics and the API,
 * and stops cleanly on SIGTERM. Skipped loudly when podman or the image is absent, and a failure under CI (.ci/run builds it
 * first).
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isKubeAlreadyExists } from '../../src/kube/errors.ts';
import { customResourceDefinition } from '../../src/kube/crd.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { regionKinds } from '../../src/region/apis/index.ts';
import { freePort, kubectl, mintToken, render, tokenKubeconfig, type Rendered } from '../kube/deploy-fixture.ts';
import { eventually } from '../kube/fixtures.ts';
import { withRealApiServer } from '../kube/real-apiserver.ts';

const execute = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/image.sh', import.meta.url));
const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const inCI = process.env.CI === 'true';

/** `openregion ARGS` in the image; `podmanFlags` go to `podman run` (e.g. a mount, another entrypoint). */
function image(args: readonly string[], podmanFlags = ''): Promise<{ stdout: string; stderr: string }> {
  return execute('bash', [script, 'run', ...args], {
    env: { ...process.env, OPENREGION_PODMAN_FLAGS: podmanFlags },
    timeout: 120_000,
  });
}

async function imagePresent(): Promise<string | undefined> {
  try {
    const { stdout } = await execute('bash', [script, 'name']);
    await execute('podman', ['image', 'exists', stdout.trim()]);
    return stdout.trim();
  } catch {
    return undefined;
  }
}

const name = await imagePresent();
const howTo = 'build it first: bash scripts/image.sh build';
if (name === undefined) {
  if (inCI) {
    void it('the image is built (CI runs test/image against it)', () => {
      assert.fail(`CI=true and there is no image; ${howTo}`);
    });
  } else {
    process.stderr.write(`\n*** SKIPPING test/image: podman or the openregion image is absent.\n*** ${howTo}\n\n`);
    void it('the openregion image', { skip: `no image; ${howTo}` });
  }
} else {
  describe(`the image ${name}`, () => {
    it('runs `openregion --version` from its entrypoint', async () => {
      const { stdout } = await image(['--version']);
      assert.equal(stdout, `${version}\n`);
    });

    it('declares a numeric non-root user, the openregion entrypoint and the API and probe ports', async () => {
      const { stdout } = await execute('podman', ['image', 'inspect', name, '--format', '{{json .Config}}']);
      const config = JSON.parse(stdout) as { User: string; Entrypoint: string[]; ExposedPorts: object };
      assert.equal(config.User, '65532:65532');
      assert.deepEqual(config.Entrypoint, ['openregion']);
      assert.deepEqual(Object.keys(config.ExposedPorts).sort(), ['8080/tcp', '8081/tcp']);
    });

    it('runs as uid 65532 on a read-only root filesystem with a writable /tmp and the CA bundle', async () => {
      const probe = `
        const fs = require('node:fs');
        const tryWrite = (p) => { try { fs.writeFileSync(p, 'x'); return 'writable'; } catch (e) { return e.code; } };
        console.log(JSON.stringify({
          uid: process.getuid(), gid: process.getgid(),
          root: tryWrite('/openregion-probe'), app: tryWrite('/app/probe'), tmp: tryWrite('/tmp/probe'),
          certificates: fs.readFileSync(process.env.NODE_EXTRA_CA_CERTS, 'utf8').split('BEGIN CERTIFICATE').length - 1,
        }));`;
      const { stdout } = await image(['-e', probe], '--entrypoint node');
      const seen = JSON.parse(stdout) as Record<string, unknown>;
      assert.equal(seen['uid'], 65532);
      assert.equal(seen['gid'], 65532);
      assert.equal(seen['root'], 'EROFS');
      assert.equal(seen['app'], 'EROFS');
      assert.equal(seen['tmp'], 'writable');
      assert.ok((seen['certificates'] as number) > 50, 'the CA bundle is there');
    });
  });

  await withRealApiServer('test/image/image.test.ts', (apiserver) => {
    describe("openregion serve in the image, with only the region service overlay's token, on kube-apiserver 1.20", () => {
      const dir = mkdtempSync(join(tmpdir(), 'openregion-image-'));
      const container = `openregion-image-test-${String(process.pid)}`;
      const suffix = `i${String(process.pid)}`;
      const namespace = `image-test-${suffix}`;
      let adminPath = '';
      let rendered: Rendered | undefined;
      const createdCrds: string[] = [];
      let serve: ChildProcess | undefined;
      let output = '';
      let health = '';
      let api = '';

      before(async () => {
        const kubeconfig = await apiserver.kubeconfig();
        adminPath = join(dir, 'admin-kubeconfig');
        writeFileSync(adminPath, kubeconfig, { mode: 0o600 });
        const client = kubeClientFrom({ kubeconfig });
        try {
          for (const kind of regionKinds) {
            // Create, not apply: 1.20 refuses x-kubernetes-validations in an apply (ADR 0009).
            const crd = customResourceDefinition(kind);
            await client.create(builtin.customResourceDefinition, crd).then(
              () => createdCrds.push(crd.metadata.name),
              (e: unknown) => {
                if (!isKubeAlreadyExists(e)) throw e;
              },
            );
          }
          for (const kind of regionKinds) await eventually(`${kind.type.kind} served`, () => client.list(kind.type));
        } finally {
          client.close();
        }
        // The shipped overlay, as an operator applies it; the image then runs with its ServiceAccount's token alone.
        rendered = await render('overlays/region-service', namespace, suffix);
        await kubectl(
          adminPath,
          ['apply', '--server-side', '--field-manager=openregion-image-test', '-f', '-'],
          rendered.yaml,
        );
        const token = await mintToken(kubeconfig, namespace, rendered.name('openregion'));
        // The container's user reads the mounts.
        writeFileSync(join(dir, 'kubeconfig'), tokenKubeconfig(kubeconfig, token, namespace), { mode: 0o644 });
        const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        writeFileSync(join(dir, 'public.pem'), publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
        const [healthPort, apiPort] = [await freePort(), await freePort()];
        health = `http://127.0.0.1:${String(healthPort)}`;
        api = `http://127.0.0.1:${String(apiPort)}`;
        serve = spawn(
          'bash',
          [
            script,
            'run',
            'serve',
            '--kubeconfig=/kube/config',
            '--leader-election',
            `--namespace=${namespace}`,
            `--health=127.0.0.1:${String(healthPort)}`,
            '--controllers=identities,networks,servers,loadbalancers,volumes,monitor',
            `--api=127.0.0.1:${String(apiPort)}`,
            '--public-key-file=/kube/public.pem',
            '--issuer=https://issuer.test',
            '--audience=openregion',
          ],
          {
            env: {
              ...process.env,
              OPENREGION_PODMAN_FLAGS: `--name ${container} -v ${dir}/kubeconfig:/kube/config:ro -v ${dir}/public.pem:/kube/public.pem:ro`,
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        serve.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      });

      after(async () => {
        if (serve?.exitCode === null) await execute('podman', ['rm', '-f', container]).catch(() => undefined);
        if (rendered !== undefined) {
          const rest = rendered.objects.filter((o) => o.kind !== 'Namespace');
          const yaml = rest.map((o) => `---\n${JSON.stringify(o)}\n`).join('');
          await kubectl(adminPath, ['delete', '--ignore-not-found', '--wait=false', '-f', '-'], yaml).catch(() => '');
        }
        // Only the CRDs this suite installed: other suites expect to install their own.
        for (const name of createdCrds)
          await kubectl(adminPath, ['delete', 'crd', name, '--ignore-not-found', '--wait=false']).catch(() => '');
        rmSync(dir, { recursive: true, force: true });
      });

      const get = async (base: string, path: string) => {
        const response = await fetch(`${base}${path}`);
        return { status: response.status, text: await response.text() };
      };

      it('answers /healthz and /livez, then /readyz once its caches have synced', async () => {
        await eventually(
          `/healthz (output so far: ${output})`,
          async () => ((await get(health, '/healthz').catch(() => undefined))?.status === 200 ? true : undefined),
          60_000,
        );
        assert.equal((await get(health, '/livez')).status, 200);
        await eventually(
          '/readyz',
          async () => ((await get(health, '/readyz')).status === 200 ? true : undefined),
          30_000,
        );
      });

      it("takes the Lease with the overlay's RBAC and serves the runtime metrics in the Prometheus text format", async () => {
        await eventually(
          `leadership (output so far: ${output})`,
          async () =>
            /^leader_election_master_status\{name="openregion-controllers"\} 1$/m.test(
              (await get(health, '/metrics')).text,
            )
              ? true
              : undefined,
          30_000,
        );
        const { status, text } = await get(health, '/metrics');
        assert.equal(status, 200);
        assert.match(text, /^# TYPE controller_runtime_reconcile_total counter$/m);
        assert.match(text, /^workqueue_depth\{name="[^"]+"\} 0$/m);
        assert.match(text, /^process_resident_memory_bytes \d+/m);
      });

      it('serves the REST API, which refuses a request without a token', async () => {
        assert.equal((await get(api, '/openapi.json')).status, 200);
        assert.equal((await get(api, '/api/v2/networks')).status, 401);
      });

      it('stops cleanly on SIGTERM, having been refused nothing', async () => {
        const process = serve;
        assert.ok(process !== undefined);
        const exited = once(process, 'exit');
        await execute('podman', ['stop', '--time', '20', container]);
        const [code] = (await exited) as [number | null];
        assert.equal(code, 0, output);
        assert.match(output, /openregion serve started/);
        assert.doesNotMatch(output, /forbidden/i);
      });
    });
  });
}
