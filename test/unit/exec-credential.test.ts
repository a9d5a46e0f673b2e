/**
 * kubeconfig exec credential plugins, with a real program as the plugin (test/support/exec-plugin.ts): what the
 * plugin is given (KUBERNETES_EXEC_INFO with and without the cluster, args, env, interactive mode), the token or
 * client certificate it returns, caching until expirationTimestamp (a fake clock) and running again after it or after
 * a 401, one run shared by concurrent callers, and the errors that name the user and the command. Then through
 * HttpTransport against local servers: the bearer token sent, a 401 that makes the next request use a new token,
 * concurrent requests that share one run, and a client certificate from the plugin presented over HTTP/2, HTTP/1.1
 * and undici, a new one (after a 401) on a new connection.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '@kubegen/runtime/internal/clock.js';
import { ExecAuthenticator } from '@kubegen/runtime/internal/client/exec-authenticator.js';
import type { ExecCluster } from '@kubegen/runtime/internal/client/exec-config.js';
import { runExecPlugin } from '@kubegen/runtime/internal/client/exec-plugin.js';
import { HTTP_ENGINES, HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { TestExecPlugin } from '../support/exec-plugin.js';
import { makeLeafCert, makeTestPki, type TestPki } from '../support/pki.js';

let tmp: string;
let pki: TestPki;
let rotated: { cert: string; key: string };
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-exec-'));
  pki = makeTestPki(path.join(tmp, 'pki'));
  rotated = makeLeafCert(path.join(tmp, 'pki'), 'rotated');
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let plugins = 0;
const newPlugin = (): TestExecPlugin => new TestExecPlugin(path.join(tmp, `plugin-${++plugins}`));
const noTerminal = { stdinIsTerminal: false };
const CLUSTER: ExecCluster = { server: 'https://kube.test:6443', 'certificate-authority-data': 'Q0E=', 'proxy-url': 'http://proxy:3128', config: { audience: 'aud' } };

async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('expected a rejection');
}

describe('runExecPlugin', () => {
  it('passes ExecCredential spec, args and env, and returns the token', async () => {
    const plugin = newPlugin();
    const config = plugin.config({ env: [{ name: 'TEST_PLUGIN_VAR', value: 'from-config' }] });
    config.args = [...config.args!, '--region', 'eu'];
    assert.deepEqual(await runExecPlugin(config, CLUSTER, noTerminal), { token: 'token-1' });
    const [run] = plugin.runs();
    assert.deepEqual(run, {
      info: { kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1', spec: { interactive: false } },
      args: ['--region', 'eu'],
      env: { TEST_PLUGIN_VAR: 'from-config' },
    });
  });

  it('provideClusterInfo puts the cluster (with its exec extension) into KUBERNETES_EXEC_INFO', async () => {
    const plugin = newPlugin();
    await runExecPlugin(plugin.config({ provideClusterInfo: true }), CLUSTER, noTerminal);
    assert.deepEqual(plugin.runs()[0]!.info.spec, { cluster: CLUSTER, interactive: false });
  });

  it('interactiveMode: Never stays non-interactive on a terminal, IfAvailable follows the terminal, Always refuses without one', async () => {
    const plugin = newPlugin();
    await runExecPlugin(plugin.config({ interactiveMode: 'Never' }), undefined, { stdinIsTerminal: true });
    await runExecPlugin(plugin.config({ interactiveMode: 'IfAvailable' }), undefined, noTerminal);
    await runExecPlugin(plugin.config({ interactiveMode: 'IfAvailable' }), undefined, { stdinIsTerminal: true });
    await runExecPlugin(plugin.config({ interactiveMode: 'Always' }), undefined, { stdinIsTerminal: true });
    assert.deepEqual(
      plugin.runs().map((r) => r.info.spec?.interactive),
      [false, false, true, true],
    );
    const message = await rejection(runExecPlugin(plugin.config({ interactiveMode: 'Always' }), undefined, noTerminal));
    assert.equal(message, `kubeconfig user "test-user": exec plugin ${JSON.stringify(process.execPath)} needs an interactive terminal (interactiveMode: Always), but standard input is not a terminal`);
    assert.equal(plugin.runs().length, 4, 'not run');
  });

  it('v1beta1 exchanges v1beta1 ExecCredentials and defaults to IfAvailable', async () => {
    const plugin = newPlugin();
    plugin.respond({ apiVersion: 'client.authentication.k8s.io/v1beta1', status: { token: 'beta' } });
    const config = plugin.config({ apiVersion: 'client.authentication.k8s.io/v1beta1' });
    delete config.interactiveMode;
    assert.deepEqual(await runExecPlugin(config, undefined, { stdinIsTerminal: true }), { token: 'beta' });
    assert.deepEqual(plugin.runs()[0]!.info, { kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1beta1', spec: { interactive: true } });
  });

  it('returns a client certificate and key, and the expiry', async () => {
    const plugin = newPlugin();
    plugin.respond({ status: { clientCertificateData: pki.clientCert, clientKeyData: pki.clientKey, expirationTimestamp: '2030-01-02T03:04:05Z' } });
    assert.deepEqual(await runExecPlugin(plugin.config(), undefined, noTerminal), { certData: pki.clientCert, keyData: pki.clientKey, expiresAt: Date.parse('2030-01-02T03:04:05Z') });
  });

  it('fails naming the kubeconfig user and the command, and saying what is wrong', async () => {
    const plugin = newPlugin();
    const what = `kubeconfig user "test-user": exec plugin ${JSON.stringify(process.execPath)}`;
    const cases: [response: Parameters<TestExecPlugin['respond']>[0], message: string][] = [
      [{ exitCode: 3, stderr: 'error: you must be logged in\n', stdout: '' }, `${what}: executable ${process.execPath} failed with exit code 3: error: you must be logged in`],
      [{ stdout: 'token: hunter2' }, `${what}: printed 14 bytes that are not an ExecCredential in JSON`],
      [{ stdout: '{"kind":"Status"}' }, `${what}: printed kind "Status", not ExecCredential`],
      [{ apiVersion: 'client.authentication.k8s.io/v1beta1', status: { token: 't' } }, `${what}: is configured for API version client.authentication.k8s.io/v1, but printed version "client.authentication.k8s.io/v1beta1"`],
      [{ stdout: '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"}' }, `${what}: didn't return a status field`],
      [{ status: {} }, `${what}: didn't return a token or cert/key pair`],
      [{ status: { clientCertificateData: pki.clientCert } }, `${what}: returned only certificate or key, not both`],
      [{ status: { clientCertificateData: pki.clientCert, clientKeyData: rotated.key } }, `${what}: failed parsing client key/certificate:`],
      [{ status: { token: 't', expirationTimestamp: 'tomorrow' } }, `${what}: status.expirationTimestamp "tomorrow" is not an RFC 3339 time`],
    ];
    for (const [response, message] of cases) {
      plugin.respond(response);
      const got = await rejection(runExecPlugin(plugin.config(), undefined, noTerminal));
      assert.ok(got.startsWith(message), `${JSON.stringify(response).slice(0, 60)}: ${got}`);
      assert.doesNotMatch(got, /hunter2/, 'output is never quoted');
    }
  });

  it('a command that does not exist: not found, with the install hint', async () => {
    const message = await rejection(
      runExecPlugin({ apiVersion: 'client.authentication.k8s.io/v1', command: 'kubegen-test-no-such-plugin', interactiveMode: 'Never', user: 'eks', installHint: 'brew install no-such-plugin' }, undefined, noTerminal),
    );
    assert.equal(message, 'kubeconfig user "eks": exec plugin "kubegen-test-no-such-plugin": executable kubegen-test-no-such-plugin not found\n\nbrew install no-such-plugin');
  });
});

describe('ExecAuthenticator', () => {
  it('caches until expirationTimestamp has passed, then runs the plugin again', async () => {
    const plugin = newPlugin();
    plugin.respond({ status: { token: 'a', expirationTimestamp: '2030-01-01T00:00:00Z' } }, { status: { token: 'b' } });
    const clock = new FakeClock(Date.parse('2029-12-31T23:59:00Z'));
    const auth = new ExecAuthenticator(plugin.config(), undefined, { clock, processEnv: noTerminal });
    const first = await auth.credentials();
    assert.equal(first.token, 'a');
    assert.equal(auth.credentials(), first, 'cached: returned directly, no promise');
    clock.step(60_000);
    assert.equal(auth.credentials(), first, 'still valid at the expiry instant');
    clock.step(1);
    const second = auth.credentials();
    assert.ok(second instanceof Promise);
    assert.equal((await second).token, 'b');
    clock.step(365 * 24 * 3600_000);
    assert.equal((auth.credentials() as { token?: string }).token, 'b', 'no expiry: kept');
    assert.equal(plugin.runs().length, 2);
  });

  it('concurrent callers share one run', async () => {
    const plugin = newPlugin();
    const auth = new ExecAuthenticator(plugin.config(), undefined, { processEnv: noTerminal });
    const all = await Promise.all(Array.from({ length: 10 }, () => auth.credentials()));
    assert.ok(all.every((c) => c === all[0]));
    assert.equal(plugin.runs().length, 1);
    assert.equal(auth.runs, 1);
  });

  it('after a 401 with the current credentials it runs again; with replaced ones it does not', async () => {
    const plugin = newPlugin();
    plugin.respond({ status: { token: 'a' } }, { status: { token: 'b' } }, { status: { token: 'c' } });
    const auth = new ExecAuthenticator(plugin.config(), undefined, { processEnv: noTerminal });
    const a = await auth.credentials();
    await Promise.all([auth.unauthorized(a), auth.unauthorized(a)]);
    const b = await auth.credentials();
    assert.equal(b.token, 'b');
    await auth.unauthorized(a);
    assert.equal((await auth.credentials()).token, 'b', 'a 401 to replaced credentials changes nothing');
    assert.equal(plugin.runs().length, 2);
  });

  it('a failed run rejects its callers, keeps nothing new, and the next call runs again; a failed run after a 401 is logged', async () => {
    const plugin = newPlugin();
    plugin.respond({ exitCode: 1, stdout: '' }, { status: { token: 'ok' } }, { exitCode: 2, stdout: '' });
    const errors: string[] = [];
    const auth = new ExecAuthenticator(plugin.config(), undefined, { processEnv: noTerminal, logger: { error: (msg, fields) => errors.push(`${msg}: ${String(fields?.['error'])}`) } });
    assert.match(await rejection(Promise.resolve(auth.credentials())), /failed with exit code 1/);
    const ok = await auth.credentials();
    assert.equal(ok.token, 'ok');
    await auth.unauthorized(ok);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /refreshing credentials after 401 Unauthorized failed: .*exit code 2/);
    assert.equal(auth.credentials(), ok, 'as client-go: the credentials it had stay in use');
  });
});

describe('HttpTransport with an exec user', () => {
  let server: http.Server;
  let port: number;
  let accepted: Set<string>;
  let seen: string[];

  before(async () => {
    server = http.createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      seen.push(auth);
      const ok = accepted.has(auth.replace(/^Bearer /, ''));
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(ok ? '{}' : '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the token; after a 401 the plugin runs again and the next request carries the new token', async () => {
    const plugin = newPlugin();
    plugin.respond({ status: { token: 'old' } }, { status: { token: 'new' } });
    accepted = new Set(['new']);
    seen = [];
    const t = new HttpTransport({ server: `http://127.0.0.1:${port}`, exec: plugin.config() });
    try {
      assert.equal((await t.raw('GET', '/version')).statusCode, 401, 'the 401 reaches the caller: nothing is retried');
      assert.equal((await t.raw('GET', '/version')).statusCode, 200);
      assert.deepEqual(seen, ['Bearer old', 'Bearer new']);
      assert.equal(plugin.runs().length, 2);
    } finally {
      t.close();
    }
  });

  it('concurrent first requests share one plugin run; a token of the config wins over the plugin, as in client-go', async () => {
    const plugin = newPlugin();
    plugin.respond({ status: { token: 'shared' } });
    accepted = new Set(['shared', 'static']);
    seen = [];
    const t = new HttpTransport({ server: `http://127.0.0.1:${port}`, exec: plugin.config() });
    const own = new HttpTransport({ server: `http://127.0.0.1:${port}`, token: 'static', exec: plugin.config({ args: [...plugin.config().args!, 'unused'] }) });
    try {
      const codes = await Promise.all(Array.from({ length: 8 }, () => t.raw('GET', '/version').then((r) => r.statusCode)));
      assert.deepEqual(new Set(codes), new Set([200]));
      assert.equal((await own.raw('GET', '/version')).statusCode, 200);
      assert.equal(plugin.runs().length, 1);
      assert.deepEqual(new Set(seen), new Set(['Bearer shared', 'Bearer static']));
    } finally {
      t.close();
      own.close();
    }
  });

  it('a plugin that fails fails the request with its error, and the next request runs it again', async () => {
    const plugin = newPlugin();
    plugin.respond({ exitCode: 4, stdout: '', stderr: 'token expired, log in again' }, { status: { token: 'fine' } });
    accepted = new Set(['fine']);
    const t = new HttpTransport({ server: `http://127.0.0.1:${port}`, exec: plugin.config() });
    try {
      await assert.rejects(t.raw('GET', '/version'), /kubeconfig user "test-user": exec plugin .* failed with exit code 4: token expired, log in again/);
      assert.equal((await t.raw('GET', '/version')).statusCode, 200);
    } finally {
      t.close();
    }
  });
});

describe('HttpTransport with an exec plugin that returns a client certificate', () => {
  let server: http2.Http2SecureServer;
  let port: number;
  let clients: string[];
  let reject: Set<string>;

  before(async () => {
    server = http2.createSecureServer({ allowHTTP1: true, ca: pki.ca, cert: pki.serverCert, key: pki.serverKey, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const cn = String((req.socket as TLSSocket).getPeerCertificate().subject?.CN);
      clients.push(`${req.httpVersion} ${cn}`);
      const ok = !reject.has(cn);
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  for (const engine of HTTP_ENGINES) {
    it(`${engine}: presents it, and after a 401 opens a new connection with the new one`, async () => {
      const plugin = newPlugin();
      plugin.respond({ status: { clientCertificateData: pki.clientCert, clientKeyData: pki.clientKey } }, { status: { clientCertificateData: rotated.cert, clientKeyData: rotated.key } });
      clients = [];
      reject = new Set(['controller']);
      const t = new HttpTransport({ server: `https://127.0.0.1:${port}`, caData: pki.ca, tlsServerName: 'kube.test', exec: plugin.config() }, { engine });
      try {
        assert.equal((await t.raw('GET', '/version')).statusCode, 401);
        assert.equal((await t.raw('GET', '/version')).statusCode, 200);
        assert.equal((await t.raw('GET', '/version')).statusCode, 200);
        const version = engine === 'node-http2' ? '2.0' : '1.1';
        assert.deepEqual(clients, [`${version} controller`, `${version} rotated`, `${version} rotated`]);
        assert.equal(plugin.runs().length, 2);
      } finally {
        t.close();
      }
    });
  }
});
