/**
 * Issue 41 item 7, a micro-harness for what one client span costs (not the controller bench: no apiserver, no
 * informers): `node --conditions=kubegen-internal dist/bench/tracing-span-cost.bench.js [--requests=20000]
 * [--rounds=3] [--concurrency=2] [--protocol=http/protobuf|http/json]`. A child process serves a tiny JSON "apiserver" and an OTLP/HTTP sink (so their
 * CPU is not counted); this process sends the sample controller's mix of requests through `HttpTransport`
 * (get, create, update, updateStatus, an event create) with tracing off, then on — the SDK started by the runtime's
 * `startTracing` (`@kubegen/runtime/tracing/sdk`, what the sample controller calls; OTLP/HTTP protobuf, every span sampled; `--sdk-node`: `@opentelemetry/sdk-node`'s
 * NodeSDK instead, as before) — in alternating rounds, flushing the exporter at the end of each traced round. It
 * prints the CPU the SDK's start took, the process CPU per request for both and the difference per exported span. `--profile=on|off` runs one round only, for `--cpu-prof`. `--direct` leaves HTTP out: the client
 * span hooks alone (start, inject, end), as the transport calls them, with the same SDK and export: CPU per span.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import type { ResourceInfo } from '@kubegen/runtime/internal/client/types.js';
import { startClientSpan } from '@kubegen/runtime/internal/tracing/client-span.js';
import { disableTracing, enableTracing } from '@kubegen/runtime/internal/tracing/otel.js';
import { startTracing } from '@kubegen/runtime/tracing/sdk';

const FOOS: ResourceInfo = { group: 'samplecontroller.k8s.io', version: 'v1alpha1', resource: 'foos', kind: 'Foo', listKind: 'FooList', namespaced: true };
const DEPLOYMENTS: ResourceInfo = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', listKind: 'DeploymentList', namespaced: true };
const EVENTS: ResourceInfo = { group: '', version: 'v1', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true };

/** The child: a JSON answer for every API request, and 200 for every OTLP export (the body drained, not decoded). */
async function serve(): Promise<void> {
  const body = JSON.stringify({ kind: 'Foo', apiVersion: 'samplecontroller.k8s.io/v1alpha1', metadata: { name: 'x', namespace: 'ns', resourceVersion: '1' }, spec: { replicas: 1 } });
  const api = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  let exports = 0;
  let bytes = 0;
  const otlp = http.createServer((req, res) => {
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await Promise.all([new Promise<void>((r) => api.listen(0, '127.0.0.1', r)), new Promise<void>((r) => otlp.listen(0, '127.0.0.1', r))]);
  process.stdout.write(`${JSON.stringify({ api: (api.address() as net.AddressInfo).port, otlp: (otlp.address() as net.AddressInfo).port })}\n`);
  process.stdin.on('data', () => process.stdout.write(`${JSON.stringify({ exports, bytes })}\n`));
  process.stdin.on('end', () => process.exit(0));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '2' }, profile: { type: 'string' }, direct: { type: 'boolean', default: false }, 'sdk-node': { type: 'boolean', default: false }, protocol: { type: 'string', default: 'http/protobuf' }, ballast: { type: 'string', default: '0' } } });
  // A heap like a controller's (its informers' caches): objects kept for the whole run, so GC has an old space to mark.
  const ballast = Array.from({ length: Number(values.ballast) * 1000 }, (_, i) => ({ metadata: { name: `obj-${i}`, namespace: 'ns', labels: { app: 'x' } }, spec: { replicas: i } }));
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const child = spawn(process.execPath, ['--conditions=kubegen-internal', fileURLToPath(import.meta.url), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let waiting: ((l: string) => void) | undefined;
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
      const line = buf.slice(0, i);
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w(line);
      } else lines.push(line);
    }
  });
  const nextLine = (): Promise<string> => (lines.length ? Promise.resolve(lines.shift()!) : new Promise((r) => (waiting = r)));
  const ports = JSON.parse(await nextLine()) as { api: number; otlp: number };

  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${ports.otlp}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: values.protocol,
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_SERVICE_NAME: 'tracing-span-cost',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  });
  const startCpu = process.cpuUsage();
  let shutdown: () => Promise<void>;
  if (values['sdk-node']) {
    const { NodeSDK } = await import('@opentelemetry/sdk-node');
    const sdk = new NodeSDK();
    sdk.start();
    shutdown = () => sdk.shutdown();
  } else {
    shutdown = await startTracing();
  }
  const started = process.cpuUsage(startCpu);
  console.log(`SDK start (${values['sdk-node'] ? 'sdk-node' : 'startTracing'}): ${((started.user + started.system) / 1000).toFixed(0)} ms CPU`);
  const { trace } = await import('@opentelemetry/api');
  const provider = trace.getTracerProvider() as unknown as { forceFlush?: () => Promise<void>; getDelegate?: () => { forceFlush(): Promise<void> } };
  const flush = (): Promise<void> => (provider.getDelegate?.() ?? (provider as { forceFlush(): Promise<void> })).forceFlush();

  const transport = new HttpTransport({ server: `http://127.0.0.1:${ports.api}` }, {});
  const foo = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'x', namespace: 'ns' }, spec: { replicas: 1 } };
  /** One "sync": the sample controller's requests for a Foo. */
  const sync = async (i: number): Promise<void> => {
    const name = `foo-${i}`;
    await transport.request({ verb: 'get', resource: FOOS, namespace: 'ns', name });
    await transport.request({ verb: 'create', resource: DEPLOYMENTS, namespace: 'ns', body: foo });
    await transport.request({ verb: 'update', resource: DEPLOYMENTS, namespace: 'ns', name, body: foo });
    await transport.request({ verb: 'update', resource: FOOS, namespace: 'ns', name, subresource: 'status', body: foo });
    await transport.request({ verb: 'create', resource: EVENTS, namespace: 'ns', body: foo });
  };
  const PER_SYNC = 5;
  const round = async (traced: boolean): Promise<number> => {
    if (traced) await enableTracing();
    else disableTracing();
    const syncs = Math.ceil(requests / PER_SYNC);
    const before = process.cpuUsage();
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < syncs) await sync(next++);
    }));
    if (traced) await flush();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (syncs * PER_SYNC);
  };
  /** The hooks alone: `requests` client spans as the transport opens, injects and ends them. */
  const direct = async (): Promise<number> => {
    await enableTracing();
    const paths = ['/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/foo-1', '/apis/apps/v1/namespaces/ns/deployments', '/apis/apps/v1/namespaces/ns/deployments/foo-1', '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/foo-1/status', '/api/v1/namespaces/ns/events'];
    const methods = ['GET', 'POST', 'PUT', 'PUT', 'POST'];
    const before = process.cpuUsage();
    for (let i = 0; i < requests; i++) {
      const span = startClientSpan(methods[i % 5]!, paths[i % 5]!, `127.0.0.1:${ports.api}`, false)!;
      const headers: Record<string, string | string[] | number> = { accept: 'application/json' };
      span.inject(headers);
      span.end(200);
      if (i % 256 === 255) await new Promise((r) => setImmediate(r)); // lets the exports go out
    }
    await flush();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / requests;
  };
  if (values.direct) {
    await direct(); // warm-up
    const runs: number[] = [];
    for (let r = 0; r < Number(values.rounds); r++) runs.push(await direct());
    console.log(`CPU per span, hooks + SDK + OTLP export only: median ${[...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!.toFixed(1)} µs (rounds: ${runs.map((x) => x.toFixed(1)).join(', ')})`);
  } else if (values.profile) {
    await round(false); // warm-up
    await round(true);
    console.log(`${values.profile}: ${(await round(values.profile === 'on')).toFixed(1)} µs CPU per request`);
  } else {
    await round(false); // warm-up
    await round(true);
    const off: number[] = [];
    const on: number[] = [];
    for (let r = 0; r < Number(values.rounds); r++) {
      off.push(await round(false));
      on.push(await round(true));
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`requests per round: ${requests}, concurrency ${concurrency}`);
    console.log(`CPU per request, tracing off: ${median(off).toFixed(1)} µs (rounds: ${off.map((x) => x.toFixed(1)).join(', ')})`);
    console.log(`CPU per request, tracing on:  ${median(on).toFixed(1)} µs (rounds: ${on.map((x) => x.toFixed(1)).join(', ')})`);
    console.log(`CPU per exported span (on - off): ${(median(on) - median(off)).toFixed(1)} µs`);
  }
  if (ballast.length < 0) console.log(ballast); // kept alive until here
  child.stdin!.write('\n');
  console.log(`receiver: ${await nextLine()}`);
  child.stdin!.end();
  transport.close();
  await shutdown();
}

if (process.argv.includes('--serve')) await serve();
else await main();
