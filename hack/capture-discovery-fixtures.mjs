#!/usr/bin/env node
// Captures the discovery documents of the two envtest profiles into fixtures/discovery/ (the unit tests of the
// discovery parsers and the mapper read them). Run after `npm run build`, with KUBEBUILDER_ASSETS (kube-apiserver
// 1.20) and KUBEGEN_ENVTEST_1_36_ASSETS (the CRD apiserver 1.36) set:
//   node hack/capture-discovery-fixtures.mjs
// Trimmed: the 1.20 `/apis` keeps only the groups whose group versions are captured too, so that the legacy walk
// over the fixtures finds every document it asks for; the 1.36 server gets a few CRDs chosen for what they show
// (short names, categories, several versions, a cluster scope, subresources).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runtime = (p) => import(pathToFileURL(path.join(root, 'packages/runtime/dist', p)).href);
const { Envtest } = await runtime('testing/envtest/envtest.js');
const { HttpTransport } = await runtime('client/http-transport.js');
const { ACCEPT_DISCOVERY } = await runtime('discovery/discovery-formats.js');

const out = path.join(root, 'fixtures/discovery');

async function capture(transport, p, accept) {
  const res = await transport.raw('GET', p, { accept });
  const text = res.body.toString('utf8');
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { path: p, accept, status: res.statusCode, contentType: res.headers['content-type'], body };
}

function write(dir, name, doc) {
  fs.mkdirSync(path.join(out, dir), { recursive: true });
  fs.writeFileSync(path.join(out, dir, name), `${JSON.stringify(doc, null, 1)}\n`);
}

const fileName = (p) => `${p.slice(1).replace(/\//g, '_') || 'root'}.json`;

// kube-apiserver 1.20: legacy discovery only, whatever the Accept.
{
  const env = await Envtest.start({ profile: 'full', crdPaths: [path.join(root, 'fixtures/test-crds')] });
  const t = new HttpTransport(env.kubeConfig);
  try {
    const gvs = ['/api/v1', '/apis/apps/v1', '/apis/autoscaling/v1', '/apis/autoscaling/v2beta1', '/apis/autoscaling/v2beta2', '/apis/events.k8s.io/v1', '/apis/events.k8s.io/v1beta1', '/apis/test.kubegen.dev/v1'];
    const keep = new Set(gvs.filter((p) => p.startsWith('/apis/')).map((p) => p.split('/')[2]));
    write('1.20', 'api.json', await capture(t, '/api', ACCEPT_DISCOVERY));
    const apis = await capture(t, '/apis', ACCEPT_DISCOVERY);
    apis.body.groups = apis.body.groups.filter((g) => keep.has(g.name));
    write('1.20', 'apis.json', apis);
    for (const p of gvs) write('1.20', fileName(p), await capture(t, p, 'application/json'));
    write('1.20', 'version.json', await capture(t, '/version', 'application/json'));
  } finally {
    t.close();
    await env.stop();
  }
}

// The CRD apiserver 1.36: aggregated discovery at /apis, 404 at /api.
{
  const crds = [
    'fixtures/test-crds',
    'fixtures/crds/cert-manager/cert-manager.io_certificates.yaml',
    'fixtures/crds/istio/crd-all.gen.destinationrules.networking.istio.io.yaml',
    'fixtures/crds/crossplane/apiextensions.crossplane.io_compositeresourcedefinitions.yaml',
  ].map((p) => path.join(root, p));
  const env = await Envtest.start({ profile: 'crd-only', crdPaths: crds });
  const t = new HttpTransport(env.kubeConfig);
  try {
    write('1.36', 'api.json', await capture(t, '/api', ACCEPT_DISCOVERY));
    write('1.36', 'apis.json', await capture(t, '/apis', ACCEPT_DISCOVERY));
    write('1.36', 'apis-legacy.json', await capture(t, '/apis', 'application/json'));
    for (const p of ['/apis/networking.istio.io/v1beta1', '/apis/apiextensions.k8s.io/v1']) write('1.36', fileName(p), await capture(t, p, 'application/json'));
    write('1.36', 'version.json', await capture(t, '/version', 'application/json'));
  } finally {
    t.close();
    await env.stop();
  }
}
console.log(`captured into ${path.relative(root, out)}`);
