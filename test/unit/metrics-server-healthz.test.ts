/** HealthProbeServer on 127.0.0.1:0: /healthz and /readyz from named checks, per-check paths, verbose, exclude. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ping } from '@kubegen/runtime/internal/healthz/checks.js';
import { HealthProbeServer } from '@kubegen/runtime/internal/healthz/health-probe-server.js';
import { nullLogger } from '@kubegen/runtime/internal/log.js';

describe('HealthProbeServer', () => {
  let server: HealthProbeServer;
  let base: string;
  let cacheSynced = false;

  before(async () => {
    server = new HealthProbeServer({ bindAddress: '127.0.0.1:0', logger: nullLogger });
    server.addHealthzCheck('ping', ping);
    server.addReadyzCheck('ping', ping);
    server.addReadyzCheck('informers', () => {
      if (!cacheSynced) throw new Error('caches not synced');
    });
    server.addReadyzCheck('async', async () => true);
    base = `http://${await server.listen()}`;
  });
  after(() => server.close());

  const get = async (path: string): Promise<[number, string]> => {
    const res = await fetch(base + path);
    return [res.status, await res.text()];
  };

  it('answers 200 "ok" when every check passes', async () => {
    assert.deepEqual(await get('/healthz'), [200, 'ok']);
  });

  it('answers 500 listing failures (reason withheld) while a readiness check fails, 200 once it passes', async () => {
    cacheSynced = false;
    const [status, body] = await get('/readyz');
    assert.equal(status, 500);
    assert.equal(body, '[+]async ok\n[-]informers failed: reason withheld\n[+]ping ok\nreadyz check failed\n');
    cacheSynced = true;
    assert.deepEqual(await get('/readyz'), [200, 'ok']);
  });

  it('?verbose lists every check on success; ?exclude skips one', async () => {
    cacheSynced = true;
    assert.deepEqual(await get('/readyz?verbose'), [200, '[+]async ok\n[+]informers ok\n[+]ping ok\nreadyz check passed\n']);
    cacheSynced = false;
    const [status, body] = await get('/readyz?exclude=informers&exclude=nope');
    assert.equal(status, 200);
    assert.equal(body, 'ok');
    const [, verbose] = await get('/readyz?verbose&exclude=informers');
    assert.match(verbose, /\[\+\]informers excluded: ok/);
  });

  it('serves one check at /readyz/<name>, with its reason, and 404 for unknown names', async () => {
    cacheSynced = false;
    assert.deepEqual(await get('/readyz/informers'), [500, 'internal server error: caches not synced\n']);
    assert.deepEqual(await get('/readyz/ping'), [200, 'ok']);
    assert.equal((await get('/readyz/missing'))[0], 404);
    assert.equal((await get('/elsewhere'))[0], 404);
  });

  it('refuses duplicate or malformed check names', () => {
    assert.throws(() => server.addReadyzCheck('ping', ping), /already registered/);
    assert.throws(() => server.addHealthzCheck('a/b', ping), /invalid/);
  });

  it('with no checks, a built-in ping passes; "0" disables the server', async () => {
    const empty = new HealthProbeServer({ bindAddress: '127.0.0.1:0', logger: nullLogger, readinessEndpointName: 'ready' });
    const addr = await empty.listen();
    try {
      const res = await fetch(`http://${addr}/ready?verbose`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), '[+]ping ok\nreadyz check passed\n');
      const bad = new HealthProbeServer({ bindAddress: '127.0.0.1:0', logger: nullLogger });
      bad.addHealthzCheck('false', () => false);
      const addr2 = await bad.listen();
      assert.equal((await fetch(`http://${addr2}/healthz`)).status, 500);
      await bad.close();
    } finally {
      await empty.close();
    }
    const off = new HealthProbeServer({ bindAddress: '0', logger: nullLogger });
    assert.equal(await off.listen(), undefined);
  });
});
