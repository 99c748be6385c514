/**
 * The Kubernetes backend against a scripted plain-HTTP server: what goes on the wire (paths, query, content types,
 * bodies, credentials) and how answers come back (objects, errors, watch streams). The real-server run is in
 * test/kube/kubernetes.test.ts.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WatchEvent } from '../client.ts';
import { KubeConflictError, KubeGoneError, KubeInvalidError, KubeNotFoundError } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { builtin, type ResourceType } from '../resource-type.ts';
import type { KubernetesClient } from './client.ts';
import { userAgent } from '../../util/version.ts';
import { kubeClientFrom } from './connect.ts';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  authorization: string | undefined;
  userAgent: string | undefined;
  body: unknown;
}

type Handler = (req: Seen, res: http.ServerResponse) => void;

const widget: ResourceType = {
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

const json = (res: http.ServerResponse, code: number, body: unknown) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const status = (code: number, reason: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: `${reason} says the server`,
  reason,
  code,
  ...extra,
});

describe('KubernetesClient on the wire', () => {
  let server: http.Server;
  let client: KubernetesClient;
  let seen: Seen[] = [];
  let handler: Handler = (_req, res) => {
    json(res, 500, {});
  };

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const text = Buffer.concat(chunks).toString();
        const s: Seen = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          contentType: req.headers['content-type'],
          authorization: req.headers.authorization,
          userAgent: req.headers['user-agent'],
          body: text === '' ? undefined : (JSON.parse(text) as unknown),
        };
        seen.push(s);
        handler(s, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Plain http needs insecure-skip-tls-verify with client-node (docs/spec/client-node.md §Pitfall 6).
    client = kubeClientFrom({
      kubeconfig: `
apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { token: s3cret } }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: team-a } }]
current-context: x
`,
    });
  });

  after(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen = [];
  });

  const at = (i: number): Seen => {
    const s = seen[i];
    assert.ok(s, `request ${i} was not made`);
    return s;
  };

  it('gets with the kubeconfig token and fills in apiVersion and kind', async () => {
    handler = (_req, res) => {
      json(res, 200, { metadata: { name: 'w1', namespace: 'n1' }, spec: { size: 1 } });
    };
    const w = await client.get(widget, 'n1', 'w1');
    assert.deepEqual(w, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'n1' },
      spec: { size: 1 },
    });
    assert.equal(at(0).path, '/apis/example.com/v1/namespaces/n1/widgets/w1');
    assert.equal(at(0).authorization, 'Bearer s3cret');
    assert.equal(at(0).userAgent, userAgent(), 'the API server sees who calls');
    assert.match(at(0).userAgent ?? '', /^openregion\/\d+\.\d+\.\d+/);
  });

  it("defaults a namespaced kind to the context's namespace", async () => {
    handler = (_req, res) => {
      json(res, 200, { metadata: { name: 's', namespace: 'team-a' } });
    };
    await client.get(builtin.secret, undefined, 's');
    await client.create(builtin.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    assert.deepEqual(
      seen.map((s) => s.path),
      ['/api/v1/namespaces/team-a/secrets/s', '/api/v1/namespaces/team-a/secrets'],
    );
  });

  it('lists page by page, with selectors, keeping the first page’s resourceVersion', async () => {
    handler = (req, res) => {
      const second = req.query.get('continue') === 'tok';
      json(res, 200, {
        metadata: second ? { resourceVersion: '99' } : { resourceVersion: '42', continue: 'tok' },
        items: [{ metadata: { name: second ? 'b' : 'a', namespace: 'n1' } }],
      });
    };
    const list = await client.list(widget, { namespace: 'n1', labelSelector: 'a=b', fieldSelector: 'metadata.name=a' });
    assert.deepEqual(
      list.items.map((i) => [i.kind, i.metadata.name]),
      [
        ['Widget', 'a'],
        ['Widget', 'b'],
      ],
    );
    assert.equal(list.resourceVersion, '42');
    assert.equal(seen.length, 2);
    assert.equal(at(0).query.get('labelSelector'), 'a=b');
    assert.equal(at(0).query.get('fieldSelector'), 'metadata.name=a');
    assert.equal(at(0).query.get('limit'), '500');
    assert.equal(at(1).query.get('continue'), 'tok');
  });

  it('lists across all namespaces without a namespace', async () => {
    handler = (_req, res) => {
      json(res, 200, { metadata: { resourceVersion: '1' }, items: [] });
    };
    await client.list(widget);
    assert.equal(at(0).path, '/apis/example.com/v1/widgets');
  });

  it('sends raw JSON bodies: unknown keys survive', async () => {
    handler = (req, res) => {
      json(res, 201, req.body);
    };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { versions: [{ schema: { openAPIV3Schema: { 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    await client.create(builtin.customResourceDefinition, crd, { fieldManager: 'me' });
    assert.equal(at(0).method, 'POST');
    assert.equal(at(0).path, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    assert.equal(at(0).contentType, 'application/json');
    assert.equal(at(0).query.get('fieldManager'), 'me');
    assert.deepEqual(at(0).body, crd);
  });

  it('updates with PUT, and the status subresource under /status', async () => {
    handler = (req, res) => {
      json(res, 200, req.body);
    };
    const w = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'n', resourceVersion: '5' },
    };
    await client.update(widget, w);
    await client.update(widget, { ...w, status: { ok: true } }, { subresource: 'status' });
    assert.deepEqual(
      seen.map((s) => [s.method, s.path]),
      [
        ['PUT', '/apis/example.com/v1/namespaces/n/widgets/w'],
        ['PUT', '/apis/example.com/v1/namespaces/n/widgets/w/status'],
      ],
    );
  });

  it('patches with the content type of the patch kind', async () => {
    handler = (_req, res) => {
      json(res, 200, { metadata: { name: 'w' } });
    };
    await client.patch(widget, 'n', 'w', { type: 'merge', patch: { spec: { size: 2 } } });
    await client.patch(widget, 'n', 'w', { type: 'json', patch: [{ op: 'replace', path: '/spec/size', value: 3 }] });
    await client.patch(widget, 'n', 'w', { type: 'merge', patch: { status: { x: 1 } } }, { subresource: 'status' });
    assert.deepEqual(
      seen.map((s) => [s.contentType, s.path]),
      [
        ['application/merge-patch+json', '/apis/example.com/v1/namespaces/n/widgets/w'],
        ['application/json-patch+json', '/apis/example.com/v1/namespaces/n/widgets/w'],
        ['application/merge-patch+json', '/apis/example.com/v1/namespaces/n/widgets/w/status'],
      ],
    );
    assert.deepEqual(at(1).body, [{ op: 'replace', path: '/spec/size', value: 3 }]);
  });

  it('applies with the apply content type, fieldManager and force on the query', async () => {
    handler = (req, res) => {
      json(res, 200, req.body);
    };
    const s = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n' }, stringData: { a: 'b' } };
    await client.apply(builtin.secret, s, { fieldManager: 'op', force: true });
    await client.apply(builtin.secret, s, { fieldManager: 'other' });
    assert.equal(at(0).method, 'PATCH');
    assert.equal(at(0).contentType, 'application/apply-patch+yaml');
    assert.equal(at(0).query.toString(), 'fieldManager=op&force=true');
    assert.equal(at(1).query.toString(), 'fieldManager=other');
    assert.deepEqual(at(0).body, s);
  });

  it('deletes with DeleteOptions', async () => {
    handler = (_req, res) => {
      json(res, 200, { kind: 'Status', status: 'Success' });
    };
    await client.delete(widget, 'n', 'w', { propagationPolicy: 'Foreground', preconditions: { uid: 'u1' } });
    assert.equal(at(0).method, 'DELETE');
    assert.deepEqual(at(0).body, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1' },
    });
  });

  it('throws catalogue errors parsed from Status bodies', async () => {
    handler = (_req, res) => {
      json(res, 404, status(404, 'NotFound'));
    };
    await assert.rejects(client.get(widget, 'n', 'gone'), KubeNotFoundError);
    handler = (_req, res) => {
      json(res, 409, status(409, 'Conflict'));
    };
    await assert.rejects(
      client.apply(
        builtin.secret,
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } },
        { fieldManager: 'x' },
      ),
      KubeConflictError,
    );
    handler = (_req, res) => {
      json(
        res,
        422,
        status(422, 'Invalid', { details: { causes: [{ field: 'spec.size', message: 'must be >= 0' }] } }),
      );
    };
    await assert.rejects(
      client.create(widget, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }),
      (e: unknown) => e instanceof KubeInvalidError && e.causes[0]?.field === 'spec.size',
    );
  });

  describe('watch', () => {
    const streamOf =
      (lines: unknown[], end: boolean): Handler =>
      (req, res) => {
        if (req.query.get('watch') === null) {
          json(res, 200, { metadata: { resourceVersion: '7' }, items: [] });
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        for (const line of lines) res.write(`${JSON.stringify(line)}\n`);
        if (end) res.end();
      };
    const obj = (name: string, rv: string) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name, resourceVersion: rv },
    });

    it('starts from the current version when none is given, and yields events until the server ends', async () => {
      handler = streamOf(
        [
          { type: 'ADDED', object: obj('a', '8') },
          {
            type: 'BOOKMARK',
            object: { kind: 'Widget', apiVersion: 'example.com/v1', metadata: { resourceVersion: '9' } },
          },
          { type: 'DELETED', object: obj('a', '10') },
        ],
        true,
      );
      const events: WatchEvent<KubeObject>[] = [];
      for await (const e of client.watch(widget, { namespace: 'n', allowBookmarks: true, labelSelector: 'x=y' }))
        events.push(e);
      assert.deepEqual(
        events.map((e) => [e.type, e.object.metadata.resourceVersion]),
        [
          ['ADDED', '8'],
          ['BOOKMARK', '9'],
          ['DELETED', '10'],
        ],
      );
      const watch = at(1);
      assert.equal(at(0).query.get('limit'), '1');
      assert.equal(watch.path, '/apis/example.com/v1/namespaces/n/widgets');
      assert.equal(watch.query.get('watch'), '1');
      assert.equal(watch.query.get('resourceVersion'), '7');
      assert.equal(watch.query.get('allowWatchBookmarks'), 'true');
      assert.equal(watch.query.get('labelSelector'), 'x=y');
    });

    it('throws KubeGoneError for an ERROR event carrying 410', async () => {
      handler = streamOf([{ type: 'ERROR', object: status(410, 'Expired') }], true);
      const iterate = async () => {
        for await (const e of client.watch(widget, { resourceVersion: '1' })) assert.fail(`unexpected ${e.type}`);
      };
      await assert.rejects(iterate(), KubeGoneError);
    });

    it('throws the error of a refused watch request', async () => {
      handler = (_req, res) => {
        json(res, 410, status(410, 'Gone'));
      };
      const iterate = async () => {
        for await (const e of client.watch(widget, { resourceVersion: '1' })) assert.fail(`unexpected ${e.type}`);
      };
      await assert.rejects(iterate(), KubeGoneError);
    });

    it('surfaces a connection cut mid-stream as an error, not a quiet end', async () => {
      handler = (req, res) => {
        streamOf([{ type: 'ADDED', object: obj('a', '8') }], false)(req, res);
        setTimeout(() => res.socket?.destroy(), 50);
      };
      const seenTypes: string[] = [];
      const iterate = async () => {
        for await (const e of client.watch(widget, { resourceVersion: '1' })) seenTypes.push(e.type);
      };
      await assert.rejects(iterate(), /aborted/);
      assert.deepEqual(seenTypes, ['ADDED']);
    });

    it('ends quietly when the signal aborts an open stream', async () => {
      handler = streamOf([{ type: 'ADDED', object: obj('a', '8') }], false);
      const abort = new AbortController();
      const events: string[] = [];
      for await (const e of client.watch(widget, { resourceVersion: '1', signal: abort.signal })) {
        events.push(e.type);
        abort.abort();
      }
      assert.deepEqual(events, ['ADDED']);
    });

    it('closes the stream when the consumer stops iterating', async () => {
      let closed!: () => void;
      const gone = new Promise<void>((resolve) => (closed = resolve));
      handler = (req, res) => {
        res.on('close', closed);
        streamOf([{ type: 'ADDED', object: obj('a', '8') }], false)(req, res);
      };
      for await (const e of client.watch(widget, { resourceVersion: '1' })) {
        assert.equal(e.type, 'ADDED');
        break;
      }
      await gone;
    });
  });
});
