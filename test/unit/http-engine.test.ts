/**
 * HttpTransport's HTTP engines (`TransportOptions.engine`, `KUBEGEN_HTTP_ENGINE`):
 * - the option wins over the environment, the environment over the default; an unknown name fails at construction,
 *   naming where it came from;
 * - every engine speaks to an HTTPS server with a private CA and a client certificate: GET, POST with a body, an
 *   error status as an ApiError, a watch's events, impersonation and bearer headers; `node-http2` over HTTP/2, the
 *   HTTP/1.1 engines over HTTP/1.1 with the connection reused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { isNotFound } from '@kubegen/runtime/internal/client/errors.js';
import { DEFAULT_HTTP_ENGINE, HTTP_ENGINES, HttpTransport, resolveHttpEngine, type HttpEngine } from '@kubegen/runtime/internal/client/http-transport.js';
import type { ResourceInfo, WatchEvent } from '@kubegen/runtime/internal/client/types.js';
import { makeTestPki, type TestPki } from '../support/pki.js';

const CM: ResourceInfo = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true };

describe('resolveHttpEngine', () => {
  it('takes the option, else KUBEGEN_HTTP_ENGINE, else the default', () => {
    assert.equal(resolveHttpEngine('undici', { KUBEGEN_HTTP_ENGINE: 'node-http1' }), 'undici');
    assert.equal(resolveHttpEngine(undefined, { KUBEGEN_HTTP_ENGINE: 'node-http1' }), 'node-http1');
    assert.equal(resolveHttpEngine(undefined, {}), DEFAULT_HTTP_ENGINE);
    assert.equal(resolveHttpEngine(undefined, { KUBEGEN_HTTP_ENGINE: '' }), DEFAULT_HTTP_ENGINE);
  });

  it('fails on an unknown engine, naming where it came from and the engines there are', () => {
    assert.throws(() => resolveHttpEngine(undefined, { KUBEGEN_HTTP_ENGINE: 'curl' }), /KUBEGEN_HTTP_ENGINE: unknown HTTP engine "curl" \(one of node-http2, node-http1, undici\)/);
    assert.throws(() => new HttpTransport({ server: 'https://127.0.0.1:1' }, { engine: 'h3' as HttpEngine }), /TransportOptions\.engine: unknown HTTP engine "h3"/);
  });
});

describe('HttpTransport engines against an HTTPS server', () => {
  let pki: TestPki;
  let tmp: string;
  let server: http2.Http2SecureServer;
  let port: number;
  const seen: { version: string; method: string; url: string; headers: http2.IncomingHttpHeaders; body: string; socket: unknown }[] = [];

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-engine-'));
    pki = makeTestPki(path.join(tmp, 'pki'));
    server = http2.createSecureServer({ cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, allowHTTP1: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const authorized = (req.socket as TLSSocket).authorized;
        seen.push({ version: req.httpVersion, method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString(), socket: req.socket });
        if (!authorized) return res.writeHead(401).end();
        if (req.url.includes('watch=true')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' } } }) + '\n');
          res.end(JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '2' } } }) + '\n');
          return;
        }
        if (req.url.endsWith('/missing')) {
          res.writeHead(404, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'configmaps "missing" not found' }));
        }
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, echo: chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      setTimeout(resolve, 500).unref();
    });
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  for (const engine of HTTP_ENGINES) {
    it(`${engine}: get, create with a body, a 404 as NotFound, a watch's events, credentials and impersonation`, async () => {
      seen.length = 0;
      const t = new HttpTransport(
        { server: `https://127.0.0.1:${port}`, caData: pki.ca, certData: pki.clientCert, keyData: pki.clientKey, tlsServerName: 'kube.test', token: 'tok', impersonate: { user: 'alice', groups: ['g1', 'g2'] } },
        { engine },
      );
      try {
        assert.equal(t.engine, engine);
        const got = await t.request<{ metadata: { name: string } }>({ verb: 'get', resource: CM, namespace: 'ns', name: 'a' });
        assert.equal(got.metadata.name, 'a');
        const created = await t.request<{ echo: unknown }>({ verb: 'create', resource: CM, namespace: 'ns', body: { metadata: { name: 'b' }, data: { k: 'ü' } } });
        assert.deepEqual(created.echo, { metadata: { name: 'b' }, data: { k: 'ü' } });
        await assert.rejects(t.request({ verb: 'get', resource: CM, namespace: 'ns', name: 'missing' }), (err: unknown) => isNotFound(err));
        const w = await t.watch<{ metadata: { resourceVersion: string } }>({ verb: 'watch', resource: CM, namespace: 'ns', query: { watch: 'true' } });
        const events: WatchEvent<{ metadata: { resourceVersion: string } }>[] = [];
        for await (const e of w) events.push(e);
        assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`), ['ADDED 1', 'MODIFIED 2']);

        assert.equal(seen.length, 4);
        assert.deepEqual([...new Set(seen.map((s) => s.version))], [engine === 'node-http2' ? '2.0' : '1.1']);
        if (engine !== 'node-http2') assert.ok(new Set(seen.map((s) => s.socket)).size <= 2, 'keep-alive: the sequential requests reuse connections');
        const post = seen[1]!;
        assert.equal(post.method, 'POST');
        assert.equal(post.headers['content-type'], 'application/json');
        assert.equal(post.headers['content-length'], String(Buffer.byteLength(post.body)));
        for (const s of seen) {
          assert.equal(s.headers['authorization'], 'Bearer tok');
          assert.equal(s.headers['impersonate-user'], 'alice');
          assert.equal(s.headers['accept'], 'application/json');
          assert.match(String(s.headers['user-agent']), /^kubegen /);
        }
        // Two Impersonate-Group headers: HTTP/1.1 servers join repeated headers with ', ', HTTP/2 ones too.
        assert.equal(seen[0]!.headers['impersonate-group'], 'g1, g2');
      } finally {
        t.close();
      }
    });
  }
});
