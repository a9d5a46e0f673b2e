/**
 * HttpTransport against a local HTTP server on 127.0.0.1 that returns canned responses (not an apiserver): request
 * mapping (method, path, query, headers, bodies), Status decoding, watch streaming, aborts and timeouts.
 * URL building and Status decoding are also tested as pure functions.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { KubeConfig } from '@kubegen/runtime/internal/client/kubeconfig-model.js';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ApiError, describeRequest, isConflict, isNotFound, isNotServed } from '@kubegen/runtime/internal/client/errors.js';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { buildQueryString, buildRequestPath } from '@kubegen/runtime/internal/client/request-url.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import { statusFromResponse } from '@kubegen/runtime/internal/client/response-status.js';
import type { KubeObject, ResourceInfo, WatchEvent } from '@kubegen/runtime/internal/client/types.js';

const FOO: ResourceInfo = { group: 'samplecontroller.k8s.io', version: 'v1alpha1', resource: 'foos', kind: 'Foo', listKind: 'FooList', namespaced: true };
const POD: ResourceInfo = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', listKind: 'PodList', namespaced: true };
const NODE: ResourceInfo = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', listKind: 'NodeList', namespaced: false };

describe('buildRequestPath / buildQueryString', () => {
  it('maps the core group to /api/v1 and named groups to /apis/<group>/<version>', () => {
    assert.equal(buildRequestPath({ resource: POD, namespace: 'ns1', name: 'p' }), '/api/v1/namespaces/ns1/pods/p');
    assert.equal(buildRequestPath({ resource: FOO, namespace: 'ns1' }), '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos');
  });
  it('leaves out the namespace segment for all-namespaces requests and cluster-scoped resources', () => {
    assert.equal(buildRequestPath({ resource: FOO }), '/apis/samplecontroller.k8s.io/v1alpha1/foos');
    assert.equal(buildRequestPath({ resource: FOO, namespace: '' }), '/apis/samplecontroller.k8s.io/v1alpha1/foos');
    assert.equal(buildRequestPath({ resource: NODE, namespace: 'ignored', name: 'n1' }), '/api/v1/nodes/n1');
  });
  it('appends the subresource and URL-encodes name and namespace', () => {
    assert.equal(buildRequestPath({ resource: FOO, namespace: 'a b', name: 'x/y?z', subresource: 'status' }), '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/a%20b/foos/x%2Fy%3Fz/status');
    assert.equal(buildRequestPath({ resource: NODE, name: 'n:1', subresource: 'scale' }), '/api/v1/nodes/n%3A1/scale');
  });
  it('skips undefined query values and stringifies the rest', () => {
    assert.equal(buildQueryString(undefined), '');
    assert.equal(buildQueryString({ a: undefined }), '');
    assert.equal(
      buildQueryString({ watch: true, limit: 5, labelSelector: 'tier in (a,b)', continue: undefined, force: false }),
      '?watch=true&limit=5&labelSelector=tier%20in%20(a%2Cb)&force=false',
    );
  });
});

describe('statusFromResponse', () => {
  it('returns the body when it is a Status, filling in a missing code', () => {
    const s = statusFromResponse(404, JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', message: 'foos "x" not found' }));
    assert.equal(s.reason, 'NotFound');
    assert.equal(s.code, 404);
    assert.equal(s.message, 'foos "x" not found');
  });
  it('synthesises a Status with the reason for the HTTP code when the body is not one', () => {
    const s = statusFromResponse(409, '<html>conflict</html>');
    assert.deepEqual([s.kind, s.status, s.code, s.reason, s.message], ['Status', 'Failure', 409, 'Conflict', '<html>conflict</html>']);
    const empty = statusFromResponse(503, Buffer.alloc(0), 'Service Unavailable');
    assert.equal(empty.reason, 'ServiceUnavailable');
    assert.match(empty.message ?? '', /503 Service Unavailable/);
    assert.equal(statusFromResponse(418, '{"not":"a status"}').reason, 'Unknown');
  });
});

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

describe('HttpTransport over a local server', () => {
  let server: http.Server;
  let kc: KubeConfig;
  let transport: HttpTransport;
  let recorded: Recorded[];
  let handler: Handler;
  const sockets = new Set<import('node:net').Socket>();
  let connectionsOpened = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        recorded.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        handler(req, res, body);
      });
    });
    server.on('connection', (s) => {
      connectionsOpened++;
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    kc = KubeConfig.parse(
      JSON.stringify({
        clusters: [{ name: 'local', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 'secret-token' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'local', user: 'u' } }],
        'current-context': 'ctx',
      }),
    );
    transport = new HttpTransport(kc, { userAgent: 'kubegen-test/1.0' });
  });
  after(async () => {
    transport.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    recorded = [];
    handler = (_req, res) => json(res, 200, { kind: 'Foo', metadata: { name: 'x' } });
  });

  function json(res: http.ServerResponse, code: number, body: unknown): void {
    const data = JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) });
    res.end(data);
  }

  it('sends GET with auth, user agent and Accept; decodes the JSON body', async () => {
    const foos = new ResourceClient<KubeObject>(transport, FOO, 'ns1');
    const got = await foos.get('x', { resourceVersion: '0' });
    assert.equal(got.metadata?.name, 'x');
    const r = recorded[0]!;
    assert.equal(r.method, 'GET');
    assert.equal(r.url, '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos/x?resourceVersion=0');
    assert.equal(r.headers.authorization, 'Bearer secret-token');
    assert.equal(r.headers['user-agent'], 'kubegen-test/1.0');
    assert.equal(r.headers.accept, 'application/json');
    assert.equal(r.body, '');
  });

  it('decodes a list while it arrives, in chunks cut anywhere, to what JSON.parse of the whole body gives', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ kind: 'Foo', metadata: { name: `foo-${i}`, annotations: { note: 'ü "quoted" \\ {[,]}' } }, spec: { n: i } }));
    const body = JSON.stringify({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', items, kind: 'FooList', metadata: { resourceVersion: '42' } });
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const bytes = Buffer.from(body);
      let i = 0;
      const next = (): void => {
        if (i >= bytes.length) return void res.end();
        const n = 1 + ((i * 7919) % 97);
        res.write(bytes.subarray(i, i + n), next);
        i += n;
      };
      next();
    };
    const got = await new ResourceClient<KubeObject>(transport, FOO, 'ns1').list();
    assert.deepEqual(got, JSON.parse(body));
  });

  it('rejects a list with invalid JSON mid-way (SyntaxError) or cut short, and keeps working afterwards', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"FooList","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}}');
    };
    const foos = new ResourceClient<KubeObject>(transport, FOO, 'ns1');
    await assert.rejects(foos.list(), SyntaxError);
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 1000 });
      res.write('{"kind":"FooList","items":[{"metadata":{"name":"a"}},', () => res.socket?.destroy());
    };
    await assert.rejects(foos.list());
    handler = (_req, res) => json(res, 200, { kind: 'FooList', metadata: {}, items: [{ metadata: { name: 'a' } }] });
    assert.equal((await foos.list()).items.length, 1);
  });

  it('maps create/update/patch/delete/deletecollection to methods, content types and bodies', async () => {
    const foos = new ResourceClient<KubeObject>(transport, FOO, 'ns1');
    await foos.create({ metadata: { name: 'x' } }, { dryRun: true, fieldManager: 'me' });
    await foos.update({ metadata: { name: 'x', resourceVersion: '5' } });
    await foos.patch('x', { type: 'merge', patch: { spec: { a: 1 } } });
    await foos.patch('x', { type: 'json', patch: [{ op: 'remove', path: '/spec/a' }] });
    await foos.apply({ metadata: { name: 'x' } }, { fieldManager: 'mgr', force: true });
    await foos.delete('x', { propagationPolicy: 'Foreground', preconditions: { uid: 'u1' } });
    await foos.deleteCollection({ labelSelector: 'a=b' });
    const summary = recorded.map((r) => `${r.method} ${r.url} ${r.headers['content-type'] ?? '-'}`);
    assert.deepEqual(summary, [
      'POST /apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos?dryRun=All&fieldManager=me application/json',
      'PUT /apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos/x application/json',
      'PATCH /apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos/x application/merge-patch+json',
      'PATCH /apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos/x application/json-patch+json',
      'PATCH /apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos/x?fieldManager=mgr&force=true application/apply-patch+yaml',
      'DELETE /apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos/x application/json',
      'DELETE /apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos?labelSelector=a%3Db application/json',
    ]);
    assert.deepEqual(JSON.parse(recorded[0]!.body), { metadata: { name: 'x' }, apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo' });
    assert.equal(recorded[0]!.headers['content-length'], String(Buffer.byteLength(recorded[0]!.body)));
    assert.deepEqual(JSON.parse(recorded[2]!.body), { spec: { a: 1 } });
    assert.deepEqual(JSON.parse(recorded[5]!.body), { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground', preconditions: { uid: 'u1' } });
  });

  it('throws ApiError with the decoded Status for a non-2xx Status body', async () => {
    handler = (_req, res) => json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'foos "x" not found', details: { name: 'x', kind: 'foos' } });
    const err = await new ResourceClient<KubeObject>(transport, FOO, 'ns1').get('x').catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.ok(isNotFound(err));
    assert.equal(err.message, 'foos "x" not found');
    assert.equal(err.status.details?.name, 'x');
  });

  it('synthesises a Status for a non-Status error body', async () => {
    handler = (_req, res) => {
      res.writeHead(409, { 'Content-Type': 'text/plain' });
      res.end('conflict!');
    };
    const err = await transport.request({ verb: 'get', resource: NODE, name: 'n' }).catch((e: unknown) => e);
    assert.ok(isConflict(err));
    assert.equal((err as ApiError).status.message, 'conflict!');
    assert.equal((err as ApiError).code, 409);
  });

  it('a bare 404 (a kind the server does not serve) is a ResourceNotServedError naming what discovery says is served; every error records its request', async () => {
    handler = (req, res) => {
      if (req.url === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'] });
      if (req.url === '/apis') {
        return json(res, 200, { kind: 'APIGroupList', groups: [{ name: FOO.group, versions: [{ groupVersion: `${FOO.group}/v1beta1`, version: 'v1beta1' }], preferredVersion: { groupVersion: `${FOO.group}/v1beta1`, version: 'v1beta1' } }] });
      }
      if (req.url === '/api/v1') return json(res, 200, { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get'] }] });
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('404 page not found');
    };
    const list = await new ResourceClient<KubeObject>(transport, FOO, 'ns1').list().catch((e: unknown) => e);
    assert.ok(isNotServed(list), 'a ResourceNotServedError');
    assert.ok(isNotFound(list), 'still a NotFound, as the apiserver answered');
    assert.equal(
      list.message,
      `Foo ${FOO.group}/v1alpha1 is not served by this apiserver (it serves ${FOO.group}/v1beta1); is the CustomResourceDefinition foos.${FOO.group} installed and established, with version v1alpha1 served?`,
    );
    assert.deepEqual(list.servedVersions, [`${FOO.group}/v1beta1`]);
    assert.equal(list.notServed.answer, '404 page not found');
    assert.deepEqual(list.request, { verb: 'list', group: FOO.group, version: FOO.version, resource: FOO.resource, kind: FOO.kind, namespace: 'ns1' });
    const watch = await transport.watch({ verb: 'watch', resource: NODE }).catch((e: unknown) => e);
    assert.ok(isNotServed(watch));
    assert.equal(watch.message, 'Node v1 is not served by this apiserver (it serves v1, and v1 has no nodes)');
    // A Status 404 (an object that does not exist) keeps the apiserver's own message, records the request too, and
    // asks no discovery.
    recorded = [];
    handler = (_req, res) => json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'foos "x" not found' });
    const get = await new ResourceClient<KubeObject>(transport, FOO, 'ns1').get('x').catch((e: unknown) => e);
    assert.ok(isNotFound(get) && !isNotServed(get));
    assert.equal((get as ApiError).message, 'foos "x" not found');
    assert.equal(describeRequest((get as ApiError).request!), `get ${FOO.resource}.${FOO.group}/${FOO.version} (${FOO.kind}) ns1/x`);
    assert.deepEqual(recorded.map((r) => r.url), [`/apis/${FOO.group}/${FOO.version}/namespaces/ns1/foos/x`]);
  });

  it('resolves undefined for an empty 2xx body', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.end();
    };
    assert.equal(await transport.request({ verb: 'delete', resource: NODE, name: 'n' }), undefined);
  });

  it('rejects with the abort reason when the signal aborts, and applies timeoutMs', async () => {
    handler = () => undefined; // never answers
    const ac = new AbortController();
    const pending = transport.request({ verb: 'get', resource: NODE, name: 'n', signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await assert.rejects(pending, (e: Error) => e.name === 'AbortError');
    const slow = new HttpTransport(kc, { timeoutMs: 50 });
    try {
      await assert.rejects(slow.request({ verb: 'get', resource: NODE, name: 'n' }), (e: Error) => e.name === 'TimeoutError' || e.name === 'AbortError');
    } finally {
      slow.close();
    }
  });

  it('streams watch events across arbitrary chunk boundaries, large objects and split UTF-8', async () => {
    const big = 'x'.repeat(300_000);
    const lines = [
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }),
      JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'big', annotations: { big } } } }),
      JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }),
      JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'ü€😀' } } }),
    ];
    const payload = Buffer.from(lines.join('\n') + '\n', 'utf8');
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // Odd chunk sizes so boundaries fall mid-line and inside multi-byte characters.
      let off = 0;
      let i = 0;
      const sizes = [1, 7, 13, 4096, 3, 65_537, 2];
      const pump = (): void => {
        if (off >= payload.length) {
          res.end();
          return;
        }
        const n = sizes[i++ % sizes.length]!;
        res.write(payload.subarray(off, off + n));
        off += n;
        setImmediate(pump);
      };
      pump();
    };
    const w = await transport.watch<KubeObject>({ verb: 'watch', resource: FOO, namespace: 'ns1', query: { watch: true, resourceVersion: '5' } });
    const events: WatchEvent<KubeObject>[] = [];
    for await (const ev of w) events.push(ev);
    assert.equal(recorded[0]!.url, '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns1/foos?watch=true&resourceVersion=5');
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'BOOKMARK', 'DELETED']);
    assert.equal((events[1]!.object.metadata?.annotations as Record<string, string>)['big']!.length, big.length);
    assert.equal(events[3]!.object.metadata?.name, 'ü€😀');
  });

  it('yields each watch event as it arrives and stop() ends the iteration', async () => {
    let resRef: http.ServerResponse | undefined;
    handler = (_req, res) => {
      resRef = res;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'first' } } }) + '\n');
    };
    const w = await transport.watch<KubeObject>({ verb: 'watch', resource: NODE, query: { watch: true } });
    const it = w[Symbol.asyncIterator]();
    const first = await it.next();
    assert.equal(first.done, false);
    assert.equal((first.value as WatchEvent<KubeObject>).object.metadata?.name, 'first');
    const second = it.next();
    resRef!.write(JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'second' } } }) + '\n');
    assert.equal(((await second).value as WatchEvent<KubeObject>).type, 'MODIFIED');
    const third = it.next();
    w.stop();
    assert.deepEqual(await third, { done: true, value: undefined });
  });

  it('throws from the iterator when the connection drops mid-stream', async () => {
    handler = (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
      setTimeout(() => req.socket.destroy(), 20);
    };
    const w = await transport.watch<KubeObject>({ verb: 'watch', resource: NODE, query: { watch: true } });
    const events: string[] = [];
    await assert.rejects(async () => {
      for await (const ev of w) events.push(ev.type);
    });
    assert.deepEqual(events, ['ADDED']);
  });

  it('rejects watch() with an ApiError when the server refuses the watch', async () => {
    handler = (_req, res) => json(res, 410, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' });
    const err = await transport.watch({ verb: 'watch', resource: NODE, query: { watch: true, resourceVersion: '1' } }).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.reason, 'Expired');
  });

  it('reuses keep-alive connections across requests', async () => {
    const fresh = new HttpTransport(kc);
    try {
      const opened = connectionsOpened;
      for (let i = 0; i < 5; i++) await fresh.request({ verb: 'get', resource: NODE, name: 'n' });
      // undici's pool still counts a connection busy in the turn its response ended, so the request sent right after
      // the first opens a second one; from then on the two are reused.
      assert.equal(connectionsOpened - opened, fresh.engine === 'undici' ? 2 : 1, 'five sequential requests share the connections');
      // HTTP/1.1 connections persist unless a side says close (node:https says keep-alive, undici nothing).
      assert.ok(recorded.every((r) => r.headers.connection !== 'close'), 'no request asks to close its connection');
    } finally {
      fresh.close();
    }
  });

  it('throttles only when qps is set: burst requests go at once, the next waits for a token', async () => {
    const clock = new FakeClock();
    const limited = new HttpTransport(kc, { qps: 2, burst: 2, throttleClock: clock });
    try {
      await limited.request({ verb: 'get', resource: NODE, name: 'a' });
      await limited.request({ verb: 'get', resource: NODE, name: 'b' });
      const third = limited.request({ verb: 'get', resource: NODE, name: 'c' });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(clock.pendingTimers(), 1);
      assert.equal(clock.nextTimerDue(), 500);
      assert.deepEqual(recorded.map((r) => r.url), ['/api/v1/nodes/a', '/api/v1/nodes/b'], 'the third request waits');
      clock.step(500);
      await third;
      assert.equal(recorded.length, 3);
    } finally {
      limited.close();
    }
    for (let i = 0; i < 20; i++) await transport.request({ verb: 'get', resource: NODE, name: 'n' });
    assert.equal(recorded.length, 23, 'no throttling by default');
  });
});
