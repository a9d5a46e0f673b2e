/**
 * kubeconfig users and clusters the runtime handles itself, against a real kube-apiserver (the `full` profile,
 * 1.20, static token auth): a user whose credentials come from an `exec` plugin — a shell script next to the
 * kubeconfig, named by a relative path, that prints an ExecCredential with the admin's token — lists namespaces; a
 * token whose `expirationTimestamp` has passed is fetched again, a 401 makes the plugin run again, and a valid token
 * is reused (the plugin's runs are counted). A cluster with a `proxy-url` is reached through a local HTTP CONNECT
 * proxy, with every engine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtinResources } from '@kubegen/runtime/internal/builtin/resources.js';
import { isUnauthorized } from '@kubegen/runtime/internal/client/errors.js';
import { HTTP_ENGINES, HttpTransport } from '@kubegen/runtime/internal/client/http-transport.js';
import { loadRestConfig } from '@kubegen/runtime/internal/client/kubeconfig.js';
import { ResourceClient } from '@kubegen/runtime/internal/client/resource-client.js';
import type { KubeObject } from '@kubegen/runtime/internal/client/types.js';
import { TestExecPlugin } from '../support/exec-plugin.js';
import { ConnectProxy } from '../support/proxy-servers.js';
import { sharedEnv, type TestEnv } from './support/env.js';

describe('kubeconfig users and clusters handled by the runtime (envtest full)', () => {
  let env: TestEnv;
  let dir: string;
  before(async () => {
    env = await sharedEnv();
    env.envtest?.requireCapabilities('core-kinds');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-kubeconfig-auth-'));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await env?.release();
  });

  /** A kubeconfig for the envtest cluster with `user` as its user and `extra` on its cluster. */
  function writeKubeconfig(name: string, user: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
    const rc = env.restConfig;
    const cluster: Record<string, unknown> = { server: rc.server, ...extra };
    if (rc.caData !== undefined) cluster['certificate-authority-data'] = Buffer.from(rc.caData).toString('base64');
    if (rc.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
    const file = path.join(dir, `${name}.kubeconfig`);
    const config = { apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'envtest', cluster }], users: [{ name, user }], contexts: [{ name, context: { cluster: 'envtest', user: name } }], 'current-context': name };
    fs.writeFileSync(file, JSON.stringify(config));
    return file;
  }

  it('an exec user lists namespaces; an expired token is fetched again, a 401 runs the plugin again, a valid one is reused', async () => {
    const admin = env.restConfig.token;
    assert.ok(admin, 'the full profile authenticates the admin with a token');
    const plugin = new TestExecPlugin(path.join(dir, 'plugin'));
    plugin.respond(
      { status: { token: admin, expirationTimestamp: '2001-01-01T00:00:00Z' } },
      { status: { token: 'not-a-token-the-apiserver-knows' } },
      { status: { token: admin, expirationTimestamp: '2100-01-01T00:00:00Z' } },
    );
    // The plugin as a user has it: a script beside the kubeconfig, named by a relative path.
    const script = path.join(dir, 'get-token.sh');
    fs.writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(plugin.dir, 'plugin.cjs'))} ${JSON.stringify(plugin.dir)} "$@"\n`, { mode: 0o755 });
    const kubeconfig = writeKubeconfig('exec-user', {
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './get-token.sh', args: ['--cluster', 'envtest'], interactiveMode: 'Never', provideClusterInfo: true },
    });

    const transport = new HttpTransport(loadRestConfig({ kubeconfig }));
    const namespaces = new ResourceClient<KubeObject>(transport, builtinResources.namespaces);
    try {
      const first = await namespaces.list();
      assert.ok(first.items.some((n) => n.metadata?.name === 'default'), 'lists namespaces');
      assert.equal(plugin.runs().length, 1);
      // Its token expired in 2001: the next request runs the plugin, whose answer the apiserver refuses; the 401
      // reaches the caller and the plugin runs once more.
      await assert.rejects(namespaces.list(), (err: unknown) => isUnauthorized(err));
      assert.equal(plugin.runs().length, 3);
      await namespaces.list();
      await namespaces.list();
      assert.equal(plugin.runs().length, 3, 'a token valid until 2100 is reused');
      const run = plugin.runs()[0]!;
      assert.deepEqual(run.args, ['--cluster', 'envtest']);
      assert.equal(run.info.spec?.cluster?.['server'], env.restConfig.server, 'provideClusterInfo passes the cluster');
    } finally {
      transport.close();
    }
  });

  for (const engine of HTTP_ENGINES) {
    it(`${engine}: a cluster with a proxy-url is reached through the proxy`, async () => {
      const proxy = new ConnectProxy();
      const port = await proxy.listen();
      try {
        const kubeconfig = writeKubeconfig(`proxied-${engine}`, { token: env.restConfig.token }, { 'proxy-url': `http://127.0.0.1:${port}` });
        const transport = new HttpTransport(loadRestConfig({ kubeconfig }), { engine });
        try {
          const list = await new ResourceClient<KubeObject>(transport, builtinResources.namespaces).list();
          assert.ok(list.items.length > 0);
          assert.deepEqual(proxy.records.map((r) => r.target), [new URL(env.restConfig.server).host]);
        } finally {
          transport.close();
        }
      } finally {
        await proxy.close();
      }
    });
  }
});
