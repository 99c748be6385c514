/**
 * The Keystone operator's least privilege on the management cluster, on kube-apiserver 1.20: the shipped overlay
 * (deploy/overlays/keystone-operator) configured to watch the ControlPlane's namespace and one orders namespace,
 * applied as an operator applies it, and `serve` run with the Deployment's args and only the token TokenRequest
 * mints for its ServiceAccount (keystone-operator-fixture.ts). An order in a watched namespace goes to Ready and is
 * torn down; an order in an unwatched namespace is never touched; a pass over a Ready order that changes nothing
 * writes nothing (no resourceVersion of the order or a child moves: ADR 0047); the token reads no Secret outside the watched
 * namespaces (a 403, found in the API server's audit log too); a standby that takes over from a SIGKILLed leader
 * re-reads every Ready order without one Keystone or KV write (bench/keystone-failover.ts times it at 1,000 orders);
 * and a replica whose caches cannot list still answers its liveness probe while reporting not Ready. Skipped loudly without the binary or kubectl; a failure under CI.
 */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { keystoneUserType, korcUserType, pushSecretType, type KeystoneUser } from '../../src/keystone/apis/index.ts';
import { KubeForbiddenError, isKubeNotFound } from '../../src/kube/errors.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { kubectlPresent } from './deploy-fixture.ts';
import { eventually } from './fixtures.ts';
import {
  CP_NS,
  identityOf,
  keystonePasses,
  killLeader,
  logged,
  startNamespacedOperator,
  type NamespacedOperator,
  type ServeProcess,
} from './keystone-operator-fixture.ts';
import { withRealApiServer } from './real-apiserver.ts';

const inCI = process.env.CI === 'true';
const WATCHED = 'tenant-a';
const UNWATCHED = 'tenant-z';
const CONVERGE_MS = 120_000;

const condition = (o: KeystoneUser, type: string) => o.status?.conditions?.find((c) => c.type === type);

interface AuditEvent {
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
}

const hasKubectl = await kubectlPresent();
if (!hasKubectl) {
  if (inCI) {
    void it('kubectl is installed (CI renders deploy/ with kubectl kustomize)', () => {
      assert.fail('CI=true and kubectl is not on the PATH');
    });
  } else {
    process.stderr.write('\n*** SKIPPING test/kube/keystone-namespaced.test.ts: kubectl is not on the PATH.\n\n');
    void it('the namespaced Keystone operator', { skip: 'kubectl is not on the PATH' });
  }
} else {
  await withRealApiServer('test/kube/keystone-namespaced.test.ts', () => {
    describe('the Keystone operator overlay, namespaced by default, with its ServiceAccount token on kube-apiserver 1.20', () => {
      let cluster: NamespacedOperator;
      let serve: ServeProcess;
      const order = (namespace: string, name: string): KeystoneUser => ({
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name, namespace },
        spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
      });
      const failure = (error: unknown) =>
        new Error(`${String(error)}; serve's output: ${serve.output().slice(-4_000)}`);

      before(async () => {
        cluster = await startNamespacedOperator({
          name: `keystone-ns-${String(process.pid)}`,
          watched: [CP_NS, WATCHED],
          namespaces: [UNWATCHED],
          // The ControlPlane assigns both: only RBAC and the watches keep the operator out of the second.
          assigned: [WATCHED, UNWATCHED],
        });
        await cluster.admin.create(builtin.secret, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'tenant-secret', namespace: UNWATCHED },
          stringData: { password: 'not for the operator' },
        });
        serve = await cluster.serve(['--leader-election-profile=fast']);
      });

      after(async () => {
        await cluster.close();
      });

      it('runs the Deployment’s args: --watch-namespaces from the ConfigMap, and becomes Ready', async () => {
        const deployment = cluster.rendered.objects.find((o) => o.kind === 'Deployment');
        assert.match(JSON.stringify(deployment), /--watch-namespaces=\$\(WATCH_NAMESPACES\)/);
        assert.match(serve.child.spawnargs.join(' '), new RegExp(`--watch-namespaces=${CP_NS},${WATCHED}( |$)`));
        await eventually('serve Ready', async () => ((await serve.ready()) ? true : undefined), 90_000).catch(
          (error: unknown) => {
            throw failure(error);
          },
        );
      });

      it('an order in a watched namespace reaches Ready, its Secret delivered, and is torn down', async () => {
        await cluster.admin.create(keystoneUserType, order(WATCHED, 'alice'));
        const ready = await eventually(
          'alice Ready',
          async () => {
            const o = await cluster.admin.get(keystoneUserType, WATCHED, 'alice');
            return condition(o, 'Ready')?.status === 'True' ? o : undefined;
          },
          CONVERGE_MS,
        ).catch((error: unknown) => {
          throw failure(error);
        });
        assert.equal(condition(ready, 'DeliveryReady')?.reason, 'Delivered');
        await cluster.admin.get(builtin.secret, WATCHED, 'alice-credentials');
        await cluster.admin.delete(keystoneUserType, WATCHED, 'alice');
        await eventually(
          'alice deleted',
          () =>
            cluster.admin.get(keystoneUserType, WATCHED, 'alice').then(
              () => undefined,
              (error: unknown) => (isKubeNotFound(error) ? true : undefined),
            ),
          CONVERGE_MS,
        ).catch((error: unknown) => {
          throw failure(error);
        });
        assert.doesNotMatch(serve.output(), /forbidden/i, 'no call the overlay does not grant');
      });

      it('an order in an unwatched namespace is never touched', async () => {
        await cluster.admin.create(keystoneUserType, order(UNWATCHED, 'mallory'));
        await cluster.admin.create(keystoneUserType, order(WATCHED, 'bob'));
        // bob's Ready shows the operator ran passes after mallory was created.
        await eventually(
          'bob Ready',
          async () =>
            condition(await cluster.admin.get(keystoneUserType, WATCHED, 'bob'), 'Ready')?.status === 'True'
              ? true
              : undefined,
          CONVERGE_MS,
        ).catch((error: unknown) => {
          throw failure(error);
        });
        const untouched = await cluster.admin.get(keystoneUserType, UNWATCHED, 'mallory');
        assert.deepEqual(untouched.metadata.finalizers ?? [], []);
        assert.equal(untouched.status, undefined);
      });

      it('a Ready order goes quiet: a pass over it writes nothing, to the order or any child', async () => {
        const passes = async () => {
          const figures = await keystonePasses(serve);
          if (figures === undefined) throw failure(new Error('no /metrics'));
          return figures.passes;
        };
        /** The pass count once it has not grown over 3 polls a second apart (at most 120 polls). */
        const settled = async (what: string) => {
          let [last, still] = [await passes(), 0];
          for (let poll = 0; still < 3; poll++) {
            if (poll >= 120) throw failure(new Error(`${what}: the passes never stopped (${String(last)})`));
            await new Promise((resolve) => setTimeout(resolve, 1_000));
            const now = await passes();
            [last, still] = [now, now === last ? still + 1 : 0];
          }
          return last;
        };
        const versions = async () => {
          const seen = new Map<string, string | undefined>();
          for (const type of [keystoneUserType, pushSecretType, korcUserType, builtin.secret])
            for (const namespace of [CP_NS, WATCHED])
              for (const o of (await cluster.admin.list(type, { namespace })).items)
                seen.set(`${type.kind} ${namespace}/${o.metadata.name}`, o.metadata.resourceVersion);
          return seen;
        };
        const quiet = await settled('passes over bob stop');
        const before = await versions();
        assert.ok(
          [...before.keys()].some((k) => k.startsWith('PushSecret ')),
          'bob has its PushSecret',
        );
        // Past the second of every write so far: kube-apiserver 1.20 stamps managedFields to the second, and a pass
        // that applies a child it would change (a default the apply leaves out) then shows as a write (ADR 0047).
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const nudged = await cluster.admin.patch(keystoneUserType, WATCHED, 'bob', {
          type: 'merge',
          patch: { metadata: { annotations: { 'test.openregion.io/nudge': '1' } } },
        });
        await eventually(
          'a pass over bob after the nudge',
          async () => ((await passes()) > quiet ? true : undefined),
          60_000,
        );
        const settledAfter = await settled('passes over bob stop after the nudge');
        const changed = [...(await versions())].filter(([key, version]) =>
          key === `KeystoneUser ${WATCHED}/bob`
            ? version !== nudged.metadata.resourceVersion
            : version !== before.get(key),
        );
        assert.deepEqual(changed, [], `no write from the ${String(settledAfter - quiet)} passes the nudge caused`);
      });

      it('its token reads no Secret outside the watched namespaces: 403, and the audit log records the refusal', async () => {
        await assert.rejects(
          cluster.operator.get(builtin.secret, UNWATCHED, 'tenant-secret'),
          (error: unknown) =>
            error instanceof KubeForbiddenError && /secrets "tenant-secret" is forbidden/.test(error.message),
        );
        await assert.rejects(cluster.operator.list(builtin.secret), KubeForbiddenError, 'no cluster-wide list');
        await assert.rejects(cluster.operator.list(builtin.secret, { namespace: 'kube-system' }), KubeForbiddenError);
        await cluster.operator.list(builtin.secret, { namespace: WATCHED }); // where it works, it may
        const account = `system:serviceaccount:${cluster.rendered.namespace}:openregion`;
        const denial = await eventually('the denial in the audit log', () => {
          const events = readFileSync(cluster.server.auditLog, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as AuditEvent);
          return Promise.resolve(
            events.find(
              (e) =>
                e.user.username === account &&
                e.verb === 'get' &&
                e.objectRef?.resource === 'secrets' &&
                e.objectRef.namespace === UNWATCHED &&
                e.objectRef.name === 'tenant-secret',
            ),
          );
        });
        assert.equal(denial.responseStatus?.code, 403);
      });

      it('fail-over: a standby takes the Lease and re-reads every Ready order, with no Keystone or KV write', async () => {
        for (const name of ['carol', 'dave']) await cluster.admin.create(keystoneUserType, order(WATCHED, name));
        const readyOrders = async () =>
          (await cluster.admin.list<KeystoneUser>(keystoneUserType, { namespace: WATCHED })).items.filter(
            (o) => condition(o, 'Ready')?.status === 'True',
          ).length;
        await eventually(
          'bob, carol and dave Ready',
          async () => ((await readyOrders()) === 3 ? true : undefined),
          CONVERGE_MS,
        );
        const standby = await cluster.serve(['--leader-election-profile=fast', '--log-level=debug']);
        await eventually('the standby Ready', async () => ((await standby.ready()) ? true : undefined), 90_000);
        await eventually('the standby stands', () => Promise.resolve(identityOf(standby)), 30_000);
        // Every call the emulator (in this process) receives from the kill on, by method and path.
        const seen: string[] = [];
        const port = Number(new URL(cluster.emulator.url).port);
        const listener = (message: unknown) => {
          const request = (message as { request: IncomingMessage }).request;
          if (request.socket.localPort === port) seen.push(`${request.method ?? ''} ${request.url ?? ''}`);
        };
        subscribe('http.server.request.start', listener);
        try {
          const figures = await killLeader(cluster.admin, serve, standby, 3, cluster.rendered.namespace);
          assert.ok(figures.passes >= 3);
          const became = logged(standby, 'became leader')[0];
          assert.equal(became?.['previousHolder'], identityOf(serve), 'the new leader names the one it replaced');
          // Settle: a write the re-read caused would come within a pass or two.
          await new Promise((resolve) => setTimeout(resolve, 5_000));
          const writes = seen.filter(
            (call) => /^(?:POST|PUT|PATCH|DELETE) /.test(call) && !call.includes('/auth/tokens'),
          );
          assert.deepEqual(writes, [], 'the re-read writes nothing to Keystone or the KV');
          assert.equal(await readyOrders(), 3);
        } finally {
          unsubscribe('http.server.request.start', listener);
        }
        serve = standby;
      });

      it('a replica whose caches cannot list (an ungranted watched namespace) is live but not Ready', async () => {
        const blocked = await cluster.serve([`--watch-namespaces=${CP_NS},${UNWATCHED}`]);
        try {
          const live = await eventually(
            'the probe port answers while the caches are refused',
            async () => {
              const response = await fetch(`${blocked.health}/healthz`).catch(() => undefined);
              return response?.status === 200 ? response : undefined;
            },
            60_000,
          ).catch((error: unknown) => {
            throw new Error(`${String(error)}; its output: ${blocked.output().slice(-4_000)}`);
          });
          assert.equal(live.status, 200);
          const ready = await fetch(`${blocked.health}/readyz`);
          assert.equal(ready.status, 500);
          assert.match(await ready.text(), /\[-\]caches failed/);
        } finally {
          await blocked.stop();
        }
      });
    });
  });
}
