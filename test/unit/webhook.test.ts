/**
 * The webhook server and its handlers (issue 11), over real HTTPS with certificates made by
 * `generateServingCertificate`: defaulting (JSON Patch), validation (deny, warnings), conversion through a hub,
 * malformed / oversized / wrong-version bodies, metrics, and certificate rotation without a restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { nullLogger } from '@kubegen/runtime';
import { applyJsonPatch, createJsonPatch } from '@kubegen/runtime/client';
import {
  conversionWebhook, defaultingWebhook, generateServingCertificate, validatingWebhook, WebhookServer,
  writeServingCertificate,
} from '@kubegen/runtime/webhook';
import type { KubeObject } from '@kubegen/runtime';
import type { ServingCertificate } from '@kubegen/runtime/webhook';

interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
}
interface FooV1 extends KubeObject {
  spec?: { deployment?: { name?: string; replicas?: number } };
}

function post(address: string, ca: string, urlPath: string, body: string | Buffer, contentType = 'application/json', method = 'POST'): Promise<{ status: number; json: any }> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const req = https.request({ host, port, path: urlPath, method, ca, servername: 'localhost', agent: false, headers: { 'Content-Type': contentType } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const review = (request: object, apiVersion = 'admission.k8s.io/v1'): string => JSON.stringify({ apiVersion, kind: 'AdmissionReview', request });
const foo = (spec: Foo['spec']): Foo => ({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'f', namespace: 'ns' }, spec });
const base = { uid: 'u-1', kind: { group: 'samplecontroller.k8s.io', version: 'v1alpha1', kind: 'Foo' }, resource: { group: 'samplecontroller.k8s.io', version: 'v1alpha1', resource: 'foos' }, userInfo: { username: 'test' } };

describe('webhook server', () => {
  let dir: string;
  let certs: ServingCertificate;
  let server: WebhookServer;
  let address: string;
  const registry = new Registry();

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-webhook-'));
    certs = await generateServingCertificate({ hosts: ['localhost', '127.0.0.1'] });
    await writeServingCertificate(dir, certs);
    server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, logger: nullLogger, registry, maxRequestBytes: 64 * 1024 });
    server.register('/mutate-foo', defaultingWebhook<Foo>((obj) => {
      obj.spec ??= {};
      obj.spec.replicas ??= 1;
    }));
    server.register('/validate-foo', validatingWebhook<Foo>({
      validateCreate(obj) {
        if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(obj.spec?.deploymentName ?? '')) throw new Error('spec.deploymentName must be a DNS-1123 label');
        return (obj.spec?.replicas ?? 0) > 5 ? ['more than 5 replicas'] : undefined;
      },
      validateUpdate(oldObj, obj) {
        if (oldObj.spec?.deploymentName !== obj.spec?.deploymentName) throw new Error('spec.deploymentName is immutable');
      },
    }));
    server.register('/throws', { handle: () => { throw new Error('bug in the handler'); } });
    server.register('/convert', conversionWebhook({
      hub: 'samplecontroller.k8s.io/v1alpha1',
      spokes: {
        'samplecontroller.k8s.io/v1': {
          convertTo: (v1: FooV1): Foo => ({ ...v1, spec: { deploymentName: v1.spec?.deployment?.name, replicas: v1.spec?.deployment?.replicas } } as Foo),
          convertFrom: (hub: Foo): FooV1 => ({ ...hub, spec: { deployment: { name: hub.spec?.deploymentName, replicas: hub.spec?.replicas } } } as FooV1),
        },
      },
    }));
    address = await server.listen();
  });
  after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a registered webhook\'s series exist before its first request (200 and 500 at 0, as controller-runtime; latency empty)', async () => {
    const fresh = new Registry();
    const s = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, logger: nullLogger, registry: fresh });
    s.register('/validate-bar', validatingWebhook<Foo>({}));
    const metrics = await fresh.metrics();
    assert.match(metrics, /^controller_runtime_webhook_requests_total\{webhook="\/validate-bar",code="200"\} 0$/m);
    assert.match(metrics, /^controller_runtime_webhook_requests_total\{webhook="\/validate-bar",code="500"\} 0$/m);
    assert.match(metrics, /^controller_runtime_webhook_requests_in_flight\{webhook="\/validate-bar"\} 0$/m);
    assert.match(metrics, /^controller_runtime_webhook_latency_seconds_count\{webhook="\/validate-bar"\} 0$/m);
  });

  it('defaults through a JSON Patch that turns the object into the defaulted one', async () => {
    const original = foo({ deploymentName: 'd' });
    const { status, json } = await post(address, certs.caCert, '/mutate-foo', review({ ...base, operation: 'CREATE', object: original }));
    assert.equal(status, 200);
    assert.equal(json.apiVersion, 'admission.k8s.io/v1');
    assert.equal(json.response.uid, 'u-1');
    assert.equal(json.response.allowed, true);
    assert.equal(json.response.patchType, 'JSONPatch');
    const ops = JSON.parse(Buffer.from(json.response.patch, 'base64').toString('utf8'));
    assert.deepEqual(applyJsonPatch(original, ops), foo({ deploymentName: 'd', replicas: 1 }));
    const unchanged = await post(address, certs.caCert, '/mutate-foo', review({ ...base, operation: 'CREATE', object: foo({ deploymentName: 'd', replicas: 3 }) }));
    assert.deepEqual(unchanged.json.response, { uid: 'u-1', allowed: true });
  });

  it('validates create, update and delete: denial with the message (403), warnings on admission', async () => {
    const bad = await post(address, certs.caCert, '/validate-foo', review({ ...base, operation: 'CREATE', object: foo({ deploymentName: 'Not_Valid' }) }));
    assert.deepEqual(bad.json.response, { uid: 'u-1', allowed: false, status: { code: 403, reason: 'Forbidden', message: 'spec.deploymentName must be a DNS-1123 label' } });
    const warned = await post(address, certs.caCert, '/validate-foo', review({ ...base, operation: 'CREATE', object: foo({ deploymentName: 'ok', replicas: 9 }) }));
    assert.deepEqual(warned.json.response, { uid: 'u-1', allowed: true, warnings: ['more than 5 replicas'] });
    const update = await post(address, certs.caCert, '/validate-foo', review({ ...base, operation: 'UPDATE', oldObject: foo({ deploymentName: 'a' }), object: foo({ deploymentName: 'b' }) }));
    assert.equal(update.json.response.allowed, false);
    assert.equal(update.json.response.status.message, 'spec.deploymentName is immutable');
    const del = await post(address, certs.caCert, '/validate-foo', review({ ...base, operation: 'DELETE', oldObject: foo({ deploymentName: 'a' }) }));
    assert.equal(del.json.response.allowed, true, 'no validateDelete: admitted');
  });

  it('answers malformed, oversized, wrong-version and wrong-method requests, and a throwing handler, without crashing', async () => {
    const reasons: [string, number, number | undefined][] = [];
    const check = async (what: string, p: Promise<{ status: number; json: any }>): Promise<void> => {
      const r = await p;
      reasons.push([what, r.status, r.json?.response?.status?.code]);
      if (r.status === 200) assert.equal(r.json.response.allowed, false, what);
    };
    await check('not JSON', post(address, certs.caCert, '/validate-foo', '{"apiVersion": '));
    await check('text/plain', post(address, certs.caCert, '/validate-foo', review({ ...base, operation: 'CREATE' }), 'text/plain'));
    await check('oversized', post(address, certs.caCert, '/validate-foo', Buffer.alloc(100 * 1024, 'a')));
    await check('v1beta1', post(address, certs.caCert, '/validate-foo', review({ ...base, operation: 'CREATE', object: foo({}) }, 'admission.k8s.io/v1beta1')));
    await check('no request', post(address, certs.caCert, '/validate-foo', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })));
    await check('CREATE without object', post(address, certs.caCert, '/validate-foo', review({ ...base, operation: 'CREATE' })));
    await check('throwing handler', post(address, certs.caCert, '/throws', review({ ...base, operation: 'CREATE', object: foo({}) })));
    await check('GET', post(address, certs.caCert, '/validate-foo', '', 'application/json', 'GET'));
    await check('unknown path', post(address, certs.caCert, '/nope', review({ ...base, operation: 'CREATE' })));
    assert.deepEqual(reasons, [
      ['not JSON', 200, 400], ['text/plain', 200, 400], ['oversized', 200, 413], ['v1beta1', 200, 400], ['no request', 200, 400],
      ['CREATE without object', 200, 400], ['throwing handler', 200, 500], ['GET', 405, undefined], ['unknown path', 404, undefined],
    ]);
    const metrics = await registry.metrics();
    assert.match(metrics, /controller_runtime_webhook_requests_total\{webhook="\/validate-foo",code="200"\} \d+/);
    assert.match(metrics, /controller_runtime_webhook_requests_total\{webhook="\/validate-foo",code="405"\} 1/);
    assert.match(metrics, /controller_runtime_webhook_latency_seconds_count\{webhook="\/mutate-foo"\} [1-9]/);
    assert.match(metrics, /controller_runtime_webhook_requests_in_flight\{webhook="\/validate-foo"\} 0/);
  });

  it('converts through the hub both ways, keeping every field, and fails the review on an unknown version', async () => {
    const v1: FooV1 = { apiVersion: 'samplecontroller.k8s.io/v1', kind: 'Foo', metadata: { name: 'f', uid: 'x' }, spec: { deployment: { name: 'd', replicas: 2 } } };
    const req = (objects: object[], desiredAPIVersion: string): string => JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'c-1', desiredAPIVersion, objects } });
    const down = await post(address, certs.caCert, '/convert', req([v1], 'samplecontroller.k8s.io/v1alpha1'));
    assert.deepEqual(down.json.response, { uid: 'c-1', result: { status: 'Success' }, convertedObjects: [{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'f', uid: 'x' }, spec: { deploymentName: 'd', replicas: 2 } }] });
    const up = await post(address, certs.caCert, '/convert', req(down.json.response.convertedObjects, 'samplecontroller.k8s.io/v1'));
    assert.deepEqual(up.json.response.convertedObjects, [v1]);
    const unknown = await post(address, certs.caCert, '/convert', req([v1], 'samplecontroller.k8s.io/v2'));
    assert.equal(unknown.json.response.result.status, 'Failure');
    assert.match(unknown.json.response.result.message, /v2 is not one of/);
    const bad = await post(address, certs.caCert, '/convert', JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview' }));
    assert.equal(bad.status, 400);
  });

  it('serves a rotated certificate without a restart', async () => {
    const next = await generateServingCertificate({ hosts: ['localhost', '127.0.0.1'] });
    await assert.rejects(post(address, next.caCert, '/validate-foo', '{}'), /self-signed|unable to verify|certificate/i, 'the new CA is not trusted yet');
    await writeServingCertificate(dir, next);
    const deadline = performance.now() + 5000;
    for (;;) {
      try {
        await post(address, next.caCert, '/validate-foo', '{}');
        break;
      } catch (err) {
        if (performance.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await assert.rejects(post(address, certs.caCert, '/validate-foo', '{}'), /certificate|verify/i, 'the old CA no longer matches');
  });
});

describe('createJsonPatch', () => {
  it('turns any JSON object into any other (random objects)', () => {
    let seed = 42;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const value = (depth: number): unknown => {
      const k = rnd(depth > 2 ? 4 : 6);
      if (k === 0) return rnd(100);
      if (k === 1) return ['a', 'b/c', '~x', ''][rnd(4)];
      if (k === 2) return rnd(2) === 0;
      if (k === 3) return null;
      if (k === 4) return Array.from({ length: rnd(3) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: rnd(4) }, () => [['x', 'y', 'a/b', 'm~n', '__proto__'][rnd(5)]!, value(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) {
      const a = { root: value(0) };
      const b = { root: value(0) };
      assert.deepEqual(applyJsonPatch(a, createJsonPatch(a, b)), b, `case ${i}`);
      assert.deepEqual(createJsonPatch(a, structuredClone(a)), []);
    }
  });
});
