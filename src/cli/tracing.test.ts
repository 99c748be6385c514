/**
 * Traces end to end through the SDK startTracing registers, into an OTLP/HTTP receiver the test runs: a REST create
 * continues the caller's trace and stamps it on the object, a reconcile of that object continues it, and an
 * OpenStack call is a client span under whatever is active; no attribute carries a token.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Transport } from '../openstack/transport.ts';
import { networkType } from '../region/apis/index.ts';
import { apiFixture, ORG_A, PROJECT_A, REGION_ID, type ApiFixture } from '../region/http/testing/api.ts';
import { causeOf } from '../runtime/controller.ts';
import { ManualClock } from '../util/clock.ts';
import { TRACEPARENT_ANNOTATION, withSpan } from '../util/tracing.ts';
import { startTracing, tracesEndpoint, type Tracing } from './tracing.ts';

interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: readonly { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP JSON receiver: every span posted to /v1/traces, and every body as text. */
async function otlpReceiver(): Promise<{ url: string; spans: ExportedSpan[]; bodies: string[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        bodies.push(body);
        const parsed = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[];
        };
        for (const r of parsed.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}`, spans, bodies, server };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('tracing', () => {
  it('is off unless the OTEL_* environment asks for it', () => {
    assert.equal(tracesEndpoint({}), undefined);
    assert.equal(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }), 'http://c:4318/v1/traces');
    assert.equal(tracesEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/t' }), 'http://c/t');
    assert.equal(tracesEndpoint({ OTEL_TRACES_EXPORTER: 'otlp' }), 'http://localhost:4318/v1/traces');
    assert.equal(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' }), undefined);
    assert.equal(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' }), undefined);
  });

  describe('with an OTLP receiver', () => {
    let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
    let tracing: Tracing | undefined;
    let f: ApiFixture;
    let cloud: Server;
    before(async () => {
      receiver = await otlpReceiver();
      tracing = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' }, '9.9.9');
      f = await apiFixture();
      cloud = createServer((_request, response) => response.writeHead(202).end('{}'));
      await new Promise<void>((resolve) => cloud.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
      await tracing?.shutdown();
      await f.close();
      cloud.close();
      receiver.server.close();
    });

    it('a create, the reconcile it causes and its OpenStack call are one trace; no token in it', async () => {
      const answer = await f.api.inject({
        method: 'POST',
        url: '/api/v2/networks',
        headers: { authorization: `Bearer ${f.tokens.a}`, traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
        payload: {
          metadata: { name: 'traced' },
          spec: {
            organizationId: ORG_A,
            projectId: PROJECT_A,
            regionId: REGION_ID,
            prefix: '10.0.0.0/24',
            dnsNameservers: [],
          },
        },
      });
      assert.equal(answer.statusCode, 201);
      const id = answer.json<{ metadata: { id: string } }>().metadata.id;
      const stored = await f.store.get(networkType, 'unikorn-region', id).catch(async () => {
        const { items } = await f.store.list(networkType, {});
        return items.find((n) => n.metadata.name === id) ?? assert.fail('the network is stored');
      });
      const traceparent = stored.metadata.annotations?.[TRACEPARENT_ANNOTATION];
      assert.match(String(traceparent), new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`), 'the create’s trace on it');

      // What the controller does for a pass of this object: its span under the create's, an OpenStack call inside.
      const { port } = cloud.address() as AddressInfo;
      const transport = new Transport({ clock: new ManualClock(), random: () => 0 });
      await withSpan('reconcile network', { parent: causeOf(stored) }, () =>
        transport.send({
          site: { serviceType: 'network', method: 'POST', urlTemplate: '/v2.0/networks' },
          url: `http://127.0.0.1:${String(port)}/v2.0/networks`,
          headers: { 'x-auth-token': 'gAAAA-secret-token' },
          body: '{"network":{}}',
        }),
      );
      await transport.close();
      await tracing?.shutdown();
      tracing = undefined;

      const byName = (name: string) =>
        receiver.spans.find((s) => s.name === name) ??
        assert.fail(`${name} in ${receiver.spans.map((s) => s.name).join(', ')}`);
      const rest = byName('POST /api/v2/networks');
      const reconcile = byName('reconcile network');
      const nova = byName('network POST /v2.0/networks');
      assert.equal(rest.traceId, TRACE_ID);
      assert.equal(rest.parentSpanId, CALLER_SPAN, 'the caller’s span is the parent');
      assert.equal(rest.kind, 2, 'SERVER');
      assert.equal(String(traceparent).split('-')[2], rest.spanId, 'the annotation names the REST span');
      assert.equal(reconcile.traceId, TRACE_ID);
      assert.equal(reconcile.parentSpanId, rest.spanId);
      assert.equal(nova.parentSpanId, reconcile.spanId);
      assert.equal(nova.kind, 3, 'CLIENT');
      const status = nova.attributes.find((a) => a.key === 'http.response.status_code');
      assert.deepEqual(status?.value, { intValue: 202 });
      const exported = receiver.bodies.join('');
      assert.ok(!exported.includes(f.tokens.a), 'no bearer token');
      assert.ok(!exported.includes('gAAAA-secret-token'), 'no OpenStack token');
    });
  });
});
