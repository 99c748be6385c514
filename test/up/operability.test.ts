/**
 * What an operator sees of one server's create-to-Available under `openregion up` (issue 36's Done means), as a
 * child process exporting traces to a receiver this test runs: a log line naming the server's reconcile, the request
 * and OpenStack metrics on /metrics, an Event `describe` shows with the row that decided it, and one trace from
 * the REST create through the server's reconcile to the Nova call.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseDevEnv } from '../../src/cli/up/files.ts';
import { REPO, restClient, startChildUp, type ChildUp } from './child.ts';

/** Bounds on waiting, not assertions about speed. */
const CONVERGE_MS = 240_000;
const POLL_MS = 250;

interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
}

const until = async (what: string, probe: () => Promise<boolean> | boolean): Promise<void> => {
  const deadline = Date.now() + CONVERGE_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${String(CONVERGE_MS)} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};

describe('up: a log line, a metric, an Event and a trace for one server’s create-to-Available', () => {
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  const root = mkdtempSync(join(REPO, '.cache', 'operability-'));
  const dir = join(root, '.openregion');
  const spans: ExportedSpan[] = [];
  const exported: string[] = [];
  let receiver: Server;
  let up: ChildUp;
  const rest = restClient(dir, () => up.api);

  before(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        exported.push(body);
        const parsed = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
        for (const r of parsed.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    up = await startChildUp(dir, ['--log-level', 'debug', '--organization-limit', 'servers=7'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${String(port)}`,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
  });
  after(async () => {
    await up.stop('SIGKILL');
    receiver.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('shows the server’s provisioning in the logs, /metrics, its Events and one trace', async () => {
    const env = parseDevEnv(readFileSync(join(dir, 'dev.env'), 'utf8'));
    const region = env['OPENREGION_REGION_ID'] ?? '';
    const first = async (path: string) =>
      ((await rest('GET', path)).json as { metadata: { id: string } }[])[0]?.metadata.id;
    const [image, flavor] = [
      await first(`/api/v2/regions/${region}/images`),
      await first(`/api/v2/regions/${region}/flavors`),
    ];
    const network = await rest('POST', '/api/v2/networks', {
      metadata: { name: 'ops-net' },
      spec: {
        organizationId: env['OPENREGION_ORGANIZATION_ID'],
        projectId: env['OPENREGION_PROJECT_ID'],
        regionId: region,
        prefix: '192.168.20.0/24',
        dnsNameservers: [],
      },
    });
    assert.equal(network.status, 201);
    const networkID = (network.json as { metadata: { id: string } }).metadata.id;
    const created = await rest('POST', '/api/v2/servers', {
      metadata: { name: 'ops-1' },
      spec: { networkId: networkID, flavorId: flavor, imageId: image },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = (created.json as { metadata: { id: string } }).metadata.id;
    await until('the server provisioned', async () => {
      const { json } = await rest('GET', `/api/v2/servers/${id}`);
      return (json as { metadata: { provisioningStatus: string } }).metadata.provisioningStatus === 'provisioned';
    });

    // A log line: the server's reconcile, its object as fields, a string level and an ISO-8601 time.
    const line = up.logs.find((l) => l.controller === 'region-server' && l.name === id && l.msg === 'pass decided');
    assert.ok(line, 'a log line of the server’s reconcile');
    assert.equal(line.kind, 'Server');
    assert.equal(typeof line.level, 'string');
    assert.match(String(line.reconcileID), /^[0-9a-f-]{36}$/);
    assert.match(String(line.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const access = up.logs.find((l) => l.msg === 'request' && l.method === 'POST' && l.route === '/api/v2/servers');
    assert.equal(access?.status, 201, 'the create’s access log line');

    // Metrics: the create by route template, the Nova create by operation, the build.
    const metrics = await (await fetch(`${up.api}/metrics`)).text();
    assert.match(metrics, /^http_requests_total\{method="POST",route="\/api\/v2\/servers",status="201"\} 1$/m);
    assert.match(
      metrics,
      /^openregion_openstack_requests_total\{service="compute",operation="POST \/servers",status="202"\} [1-9]/m,
    );
    // The organization's usage against its limit, the limit the flag set (docs/adr/0041-organization-limits.md).
    const organization = env['OPENREGION_ORGANIZATION_ID'] ?? '';
    assert.match(
      metrics,
      new RegExp(`^openregion_organization_usage\\{organization="${organization}",kind="servers"\\} [1-7]$`, 'm'),
    );
    assert.match(
      metrics,
      new RegExp(`^openregion_organization_limit\\{organization="${organization}",kind="servers"\\} 7$`, 'm'),
    );
    assert.match(metrics, /^openregion_build_info\{version="[^"]+",node_version="v[^"]+"\} 1$/m);
    assert.match(
      metrics,
      /^openregion_objects\{kind="Server",condition="Available",status="True",reason="Provisioned"\} [1-9]/m,
    );

    // An Event, as `openregion describe` shows it: Provisioned, with the row that decided it.
    const describeOut = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'describe', 'server', id, '-n', 'unikorn-region'],
        { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, NODE_OPTIONS: '' } },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      void once(child, 'exit').then(([code]) => {
        if (code === 0) resolve(out);
        else reject(new Error(`describe: ${err}`));
      });
    });
    assert.match(describeOut, /Normal\s+Provisioned\s+.*the resource is provisioned \(row done\)/);

    // One trace: the REST create, the server's reconcile under it, the Nova create under that.
    await until('the spans exported', () => spans.some((s) => s.name === 'compute POST /servers'));
    const rest201 = spans.find((s) => s.name === 'POST /api/v2/servers');
    assert.ok(rest201, `the create's span in ${[...new Set(spans.map((s) => s.name))].join(', ')}`);
    const reconciles = spans.filter((s) => s.name === 'reconcile region-server' && s.parentSpanId === rest201.spanId);
    assert.ok(reconciles.length > 0, 'the server’s reconciles continue the create’s trace');
    const nova = spans.find((s) => s.name === 'compute POST /servers');
    assert.ok(nova && reconciles.some((r) => r.spanId === nova.parentSpanId), 'the Nova create inside one');
    assert.equal(nova.traceId, rest201.traceId);
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    assert.ok(!exported.join('').includes(token), 'no token in any span');
  });
});
