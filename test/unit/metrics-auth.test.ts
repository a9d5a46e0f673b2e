/**
 * Secured metrics (issue 13): `withAuthenticationAndAuthorization` over a stub of the TokenReview and
 * SubjectAccessReview endpoints (the real apiserver is in test/integration/metrics-auth.test.ts), and
 * `MetricsServer` over HTTPS with a self-signed certificate or one from `certDir`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { ApiError, Manager, nullLogger } from '@kubegen/runtime';
import { newStatus } from '@kubegen/runtime/client';
import { FakeClock } from '@kubegen/runtime/clock';
import { bearerToken, MetricsServer, withAuthenticationAndAuthorization } from '@kubegen/runtime/metrics';
import { generateServingCertificate, writeServingCertificate } from '@kubegen/runtime/webhook';
import type { Transport } from '@kubegen/runtime';
import type { ResourceRequest } from '@kubegen/runtime/client';
import type { MetricsFilter } from '@kubegen/runtime/metrics';
import { scrape } from '../support/scrape.js';

/** The apiserver's two review endpoints: tokens and who may GET which path; records every review posted. */
class ReviewStub implements Transport {
  readonly tokenReviews: any[] = [];
  readonly accessReviews: any[] = [];
  /** token → user */
  readonly users = new Map<string, { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }>();
  /** `username path verb` that are allowed */
  readonly allowed = new Set<string>();
  fail: 'tokenreviews' | 'subjectaccessreviews' | undefined;

  async request<T>(req: ResourceRequest): Promise<T> {
    assert.equal(req.verb, 'create');
    const body = req.body as any;
    if (req.resource.resource === this.fail) throw new ApiError(newStatus(503, 'ServiceUnavailable', 'apiserver unavailable'));
    if (req.resource.resource === 'tokenreviews') {
      assert.deepEqual([req.resource.group, req.resource.version, body.apiVersion, body.kind], ['authentication.k8s.io', 'v1', 'authentication.k8s.io/v1', 'TokenReview']);
      this.tokenReviews.push(body);
      const user = this.users.get(body.spec.token);
      return { ...body, status: user ? { authenticated: true, user } : { authenticated: false, error: 'invalid bearer token' } } as T;
    }
    assert.deepEqual([req.resource.group, req.resource.version, body.apiVersion, body.kind], ['authorization.k8s.io', 'v1', 'authorization.k8s.io/v1', 'SubjectAccessReview']);
    this.accessReviews.push(body);
    const { user, nonResourceAttributes: n } = body.spec;
    return { ...body, status: { allowed: this.allowed.has(`${user} ${n.path} ${n.verb}`) } } as T;
  }

  watch(): never {
    throw new Error('no watches here');
  }
  raw(): Promise<never> {
    return Promise.reject(new Error('no raw requests here'));
  }
}

const statusAndBody = (r: { status: number; body: string }): [number, string] => [r.status, r.body];

const ALICE = { username: 'system:serviceaccount:monitoring:prometheus', uid: 'u-1', groups: ['system:serviceaccounts', 'system:authenticated'], extra: { 'authentication.kubernetes.io/pod-name': ['prom-0'] } };

describe('metrics authentication and authorization', () => {
  const registry = new Registry();
  new Counter({ name: 'kubegen_test_scrapes_total', help: 'h', registers: [registry] }).inc(7);
  const stub = new ReviewStub();
  stub.users.set('alice-token', ALICE);
  stub.users.set('bob-token', { username: 'bob' });
  stub.allowed.add(`${ALICE.username} /metrics get`);
  const clock = new FakeClock();
  let server: MetricsServer;
  let address: string;

  before(async () => {
    const filter = withAuthenticationAndAuthorization(stub, { clock, logger: nullLogger });
    server = new MetricsServer({ bindAddress: '127.0.0.1:0', registry, defaultMetrics: false, secureServing: true, filter, logger: nullLogger });
    address = (await server.listen())!;
  });
  after(() => server.close());

  it('reads the bearer token of the Authorization header', () => {
    assert.equal(bearerToken('Bearer abc.def'), 'abc.def');
    assert.equal(bearerToken('bearer   abc '), 'abc');
    for (const h of [undefined, '', 'Bearer', 'Bearer ', 'Basic YWxpY2U6eA==', 'Bearer a b']) assert.equal(bearerToken(h), undefined, String(h));
  });

  it('answers 401 without a token, with no review posted', async () => {
    const before = stub.tokenReviews.length;
    const res = await scrape(address);
    assert.deepEqual([res.status, res.body], [401, 'Unauthorized\n']);
    assert.equal((await scrape(address, { token: '' })).status, 401);
    assert.equal(stub.tokenReviews.length, before);
  });

  it('answers 401 for a token the apiserver does not authenticate', async () => {
    const res = await scrape(address, { token: 'stolen-token' });
    assert.deepEqual([res.status, res.body], [401, 'Unauthorized\n']);
    assert.equal(stub.tokenReviews.at(-1).spec.token, 'stolen-token');
  });

  it('answers 403 naming the user when the SubjectAccessReview does not allow it', async () => {
    const res = await scrape(address, { token: 'bob-token' });
    assert.deepEqual([res.status, res.body], [403, 'Authorization denied for user bob\n']);
    assert.doesNotMatch(res.body, /kubegen_test_scrapes_total/);
  });

  it('serves the metrics to an allowed user, asking with its uid, groups, extra, the path and the lower-cased method', async () => {
    const res = await scrape(address, { token: 'alice-token' });
    assert.equal(res.status, 200);
    assert.match(res.body, /^kubegen_test_scrapes_total 7$/m);
    assert.deepEqual(stub.accessReviews.at(-1).spec, {
      user: ALICE.username, uid: 'u-1', groups: ALICE.groups, extra: ALICE.extra, nonResourceAttributes: { path: '/metrics', verb: 'get' },
    });
    assert.equal((await scrape(address, { token: 'alice-token', method: 'HEAD' })).status, 403, 'verb head is not get');
    assert.equal(stub.accessReviews.at(-1).spec.nonResourceAttributes.verb, 'head');
    assert.equal((await scrape(address, { token: 'alice-token', path: '/debug' })).status, 403, 'authorized per path, before routing');
  });

  it('reuses a result within its TTL and asks again after it', async () => {
    const token = 'carol-token';
    stub.users.set(token, { username: 'carol' });
    stub.allowed.add('carol /metrics get');
    const [t0, a0] = [stub.tokenReviews.length, stub.accessReviews.length];
    const both = await Promise.all([scrape(address, { token }), scrape(address, { token })]);
    assert.deepEqual(both.map((r) => r.status), [200, 200]);
    assert.equal((await scrape(address, { token })).status, 200);
    assert.deepEqual([stub.tokenReviews.length - t0, stub.accessReviews.length - a0], [1, 1], 'one review of each for three scrapes');
    clock.step(59_000);
    assert.equal((await scrape(address, { token })).status, 200);
    assert.equal(stub.tokenReviews.length - t0, 1, 'still cached at 59 s');
    clock.step(2_000);
    assert.equal((await scrape(address, { token })).status, 200);
    assert.deepEqual([stub.tokenReviews.length - t0, stub.accessReviews.length - a0], [2, 2], 'asked again after 60 s');
  });

  it('keeps a denial for 10 s only: a new grant is seen after it', async () => {
    const token = 'dave-token';
    stub.users.set(token, { username: 'dave' });
    assert.equal((await scrape(address, { token })).status, 403);
    stub.allowed.add('dave /metrics get');
    assert.equal((await scrape(address, { token })).status, 403, 'the denial is cached');
    clock.step(10_001);
    assert.equal((await scrape(address, { token })).status, 200);
  });

  it('answers 500 on an apiserver error, caches nothing, and keeps serving', async () => {
    const token = 'erin-token';
    stub.users.set(token, { username: 'erin' });
    stub.allowed.add('erin /metrics get');
    stub.fail = 'tokenreviews';
    assert.deepEqual(statusAndBody(await scrape(address, { token })), [500, 'Authentication failed\n']);
    stub.fail = 'subjectaccessreviews';
    assert.deepEqual(statusAndBody(await scrape(address, { token })), [500, 'Authorization for user erin failed\n']);
    stub.fail = undefined;
    assert.equal((await scrape(address, { token })).status, 200, 'the failed reviews were not cached');
  });

  it('answers 500 when a filter throws, and keeps serving', async () => {
    let calls = 0;
    const flaky: MetricsFilter = async () => {
      if (++calls === 1) throw new Error('filter exploded');
      return { allowed: true };
    };
    const s = new MetricsServer({ bindAddress: '127.0.0.1:0', registry, defaultMetrics: false, filter: flaky, logger: nullLogger });
    const addr = (await s.listen())!;
    try {
      assert.deepEqual(statusAndBody(await scrape(addr, { scheme: 'http' })), [500, 'Internal Server Error\n']);
      assert.equal((await scrape(addr, { scheme: 'http' })).status, 200);
    } finally {
      await s.close();
    }
  });
});

describe('MetricsServer over HTTPS', () => {
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-metrics-tls-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves a self-signed certificate for localhost when no certDir is given, and no plain HTTP', async () => {
    const server = new MetricsServer({ bindAddress: '127.0.0.1:0', registry: new Registry(), secureServing: true, logger: nullLogger });
    assert.equal(server.scheme, 'https');
    const addr = (await server.listen())!;
    try {
      const res = await scrape(addr);
      assert.equal(res.status, 200);
      assert.equal(res.certificateCN, 'localhost');
      assert.match(res.body, /process_cpu_user_seconds_total/);
      await assert.rejects(scrape(addr, { scheme: 'http' }), 'no plain HTTP on the TLS port');
    } finally {
      await server.close();
    }
  });

  it('serves the certificate in certDir (verified against its CA) and a rotated one without a restart', async () => {
    const first = await generateServingCertificate({ hosts: ['localhost', '127.0.0.1'], commonName: 'metrics-one' });
    await writeServingCertificate(dir, first, { certName: 'm.crt', keyName: 'm.key' });
    const server = new MetricsServer({
      bindAddress: '127.0.0.1:0', registry: new Registry(), defaultMetrics: false, secureServing: true, certDir: dir, certName: 'm.crt', keyName: 'm.key', logger: nullLogger,
    });
    const addr = (await server.listen())!;
    try {
      const res = await scrape(addr, { ca: first.caCert });
      assert.deepEqual([res.status, res.certificateCN], [200, 'metrics-one']);
      const second = await generateServingCertificate({ hosts: ['localhost', '127.0.0.1'], commonName: 'metrics-two' });
      await writeServingCertificate(dir, second, { certName: 'm.crt', keyName: 'm.key' });
      server.reloadCertificate();
      assert.equal((await scrape(addr, { ca: second.caCert })).certificateCN, 'metrics-two');
    } finally {
      await server.close();
    }
  });

  it('refuses bad configuration with errors that say what to do', async () => {
    const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
    const missing = new MetricsServer({ bindAddress: '127.0.0.1:0', registry: new Registry(), defaultMetrics: false, secureServing: true, certDir: empty, logger: nullLogger });
    await assert.rejects(missing.listen(), (err: Error) => err.message.includes(`${empty}/tls.crt`) && /leave certDir unset for a self-signed certificate/.test(err.message));
    assert.equal(missing.address, undefined);
    fs.writeFileSync(path.join(empty, 'tls.crt'), 'not a certificate');
    fs.writeFileSync(path.join(empty, 'tls.key'), 'not a key');
    await assert.rejects(missing.listen(), /metrics server: the certificate and key do not load/);
    assert.throws(() => new MetricsServer({ bindAddress: '0', certDir: dir, logger: nullLogger }), /certDir, certName and keyName need secureServing: true/);
    assert.throws(() => new MetricsServer({ bindAddress: '0', secureServing: true, certDir: '', logger: nullLogger }), /certDir is empty/);
    const transport = new ReviewStub();
    assert.throws(() => new Manager({ transport, metricsBindAddress: '0', metricsCertDir: dir, logger: nullLogger }), /metricsCertDir needs metricsSecureServing: true/);
  });
});
