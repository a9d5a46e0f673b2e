/**
 * Our own kubeconfig reader (`loadClientConfig` / `loadRestConfig`): `*-data` vs file paths (relative to the
 * kubeconfig's folder), the KUBECONFIG merge rule, context selection, in-cluster config from a fake service-account
 * mount (IPv6 bracketing, namespace, token + token file), the lookup order, the fallback to client-node for exec and
 * auth-provider users, and that neither importing the runtime nor a token kubeconfig loads client-node (checked in a
 * child process with a module resolve hook). Env vars are restored.
 */
import assert from 'node:assert/strict';
import { REPO_ROOT } from '../support/paths.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultNamespace, isRestConfig, loadClientConfig, loadRestConfig, SERVICE_ACCOUNT_DIR } from '@kubegen/runtime/internal/client/kubeconfig.js';
import type { RestConfig } from '@kubegen/runtime/internal/client/rest-config.js';

const ENV_KEYS = ['KUBECONFIG', 'HOME', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'POD_NAMESPACE'] as const;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

function tokenKubeconfig(server: string, name: string, opts: { current?: boolean; namespace?: string; token?: string } = {}): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}-cluster`,
    '  cluster:',
    `    server: ${server}`,
    'users:',
    `- name: ${name}-user`,
    '  user:',
    `    token: ${opts.token ?? `token-${name}`}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}-cluster`,
    `    user: ${name}-user`,
    ...(opts.namespace ? [`    namespace: ${opts.namespace}`] : []),
    ...(opts.current === false ? [] : [`current-context: ${name}`]),
    '',
  ].join('\n');
}

function asRest(config: ReturnType<typeof loadClientConfig>): RestConfig {
  assert.ok(isRestConfig(config), 'expected a RestConfig, got a client-node KubeConfig');
  return config;
}

describe('loadClientConfig / loadRestConfig', () => {
  let dir: string;
  let home: string;
  let saPrefix: string;
  const saved: Partial<Record<(typeof ENV_KEYS)[number], string | undefined>> = {};

  before(() => {
    for (const k of ENV_KEYS) saved[k] = process.env[k];
  });
  after(() => {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-rc-'));
    home = path.join(dir, 'home');
    fs.mkdirSync(path.join(home, '.kube'), { recursive: true });
    saPrefix = path.join(dir, 'pod');
    for (const k of ENV_KEYS) delete process.env[k];
    process.env['HOME'] = home;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function write(name: string, text: string): string {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }
  function mountServiceAccount(opts: { host?: string; namespace?: string; ca?: boolean } = {}): void {
    const sa = path.join(saPrefix, SERVICE_ACCOUNT_DIR);
    fs.mkdirSync(sa, { recursive: true });
    fs.writeFileSync(path.join(sa, 'token'), 'sa-token\n');
    if (opts.ca !== false) fs.writeFileSync(path.join(sa, 'ca.crt'), 'SA-CA-PEM');
    fs.writeFileSync(path.join(sa, 'namespace'), opts.namespace ?? 'pod-ns');
    process.env['KUBERNETES_SERVICE_HOST'] = opts.host ?? '10.0.0.1';
    process.env['KUBERNETES_SERVICE_PORT'] = '443';
  }

  it('decodes *-data and reads file paths relative to the kubeconfig folder; data wins over a file', () => {
    write('conf/certs/ca.crt', 'CA-FROM-FILE');
    write('conf/certs/client.crt', 'CERT-FROM-FILE');
    write('conf/certs/client.key', 'KEY-FROM-FILE');
    write('conf/tok', 'file-token\n');
    const kubeconfig = write(
      'conf/config',
      [
        'clusters:',
        '- name: c',
        '  cluster:',
        '    server: https://api.example:6443/',
        '    certificate-authority: certs/ca.crt',
        `    certificate-authority-data: ${b64('CA-FROM-DATA')}`,
        '    tls-server-name: api.internal',
        'users:',
        '- name: u',
        '  user:',
        '    client-certificate: certs/client.crt',
        '    client-key: certs/client.key',
        '    tokenFile: tok',
        '    as: jane',
        '    as-groups: [devs, ops]',
        'contexts:',
        '- name: x',
        '  context: {cluster: c, user: u, namespace: team-a}',
        'current-context: x',
      ].join('\n'),
    );
    const cwd = process.cwd();
    process.chdir(os.tmpdir()); // relative paths must not depend on the working directory
    try {
      const rc = loadRestConfig({ kubeconfig: path.relative(os.tmpdir(), kubeconfig) });
      assert.equal(rc.server, 'https://api.example:6443');
      assert.equal(rc.caData, 'CA-FROM-DATA');
      assert.equal(rc.certData, 'CERT-FROM-FILE');
      assert.equal(rc.keyData, 'KEY-FROM-FILE');
      assert.equal(rc.tokenFile, path.join(dir, 'conf', 'tok'));
      assert.equal(rc.tlsServerName, 'api.internal');
      assert.equal(rc.namespace, 'team-a');
      assert.deepEqual(rc.impersonate, { user: 'jane', groups: ['devs', 'ops'] });
      assert.equal(defaultNamespace(rc), 'team-a');
    } finally {
      process.chdir(cwd);
    }
  });

  it('reads token, basic auth and insecure-skip-tls-verify; fails clearly on a missing referenced file', () => {
    const kc = write(
      'basic',
      [
        'clusters: [{name: c, cluster: {server: "https://h:1", insecure-skip-tls-verify: true}}]',
        'users: [{name: u, user: {username: admin, password: s3cret}}, {name: bad, user: {client-key: nope.key}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}, {name: broken, context: {cluster: c, user: bad}}]',
        'current-context: x',
      ].join('\n'),
    );
    const rc = loadRestConfig({ kubeconfig: kc });
    assert.deepEqual(rc, { server: 'https://h:1', insecureSkipTLSVerify: true, username: 'admin', password: 's3cret' });
    assert.throws(() => loadRestConfig({ kubeconfig: kc, context: 'broken' }), new RegExp(`client-key ${path.join(dir, 'nope.key')}`));
  });

  it('merges a KUBECONFIG list: first file to define a name or current-context wins, missing files are skipped', () => {
    const a = write('a', tokenKubeconfig('https://a:6443', 'shared', { current: false, token: 'from-a' }));
    const b = write('b', tokenKubeconfig('https://b:6443', 'shared', { token: 'from-b' }) + 'extra: ignored\n');
    const c = write('c', tokenKubeconfig('https://c:6443', 'only-c', { namespace: 'ns-c' }));
    process.env['KUBECONFIG'] = [path.join(dir, 'missing'), a, b, c].join(path.delimiter);
    const merged = asRest(loadClientConfig());
    // current-context comes from b (a has none), but the "shared" entries come from a.
    assert.equal(merged.server, 'https://a:6443');
    assert.equal(merged.token, 'from-a');
    const other = asRest(loadClientConfig({ context: 'only-c' }));
    assert.equal(other.server, 'https://c:6443');
    assert.equal(other.namespace, 'ns-c');
    assert.throws(() => loadClientConfig({ context: 'nope' }), /context "nope" not found/);
    process.env['KUBECONFIG'] = path.join(dir, 'missing');
    assert.throws(() => loadClientConfig(), /none of the files in KUBECONFIG exist/);
  });

  it('reports a context whose cluster or user is missing, and a config without a current context', () => {
    const kc = write(
      'dangling',
      ['clusters: [{name: c, cluster: {server: "https://h:1"}}]', 'contexts: [{name: nouser, context: {cluster: c, user: ghost}}, {name: nocluster, context: {cluster: gone}}]'].join('\n'),
    );
    assert.throws(() => loadClientConfig({ kubeconfig: kc }), /no current cluster/);
    assert.throws(() => loadClientConfig({ kubeconfig: kc, context: 'nouser' }), /user "ghost" of context "nouser" not found/);
    assert.throws(() => loadClientConfig({ kubeconfig: kc, context: 'nocluster' }), /cluster "gone" of context "nocluster" not found/);
  });

  it('follows the lookup order: explicit path, KUBECONFIG, in-cluster, ~/.kube/config', () => {
    const explicit = write('explicit', tokenKubeconfig('https://explicit:6443', 'e'));
    const env = write('env', tokenKubeconfig('https://env:6443', 'v'));
    fs.writeFileSync(path.join(home, '.kube', 'config'), tokenKubeconfig('https://home:6443', 'h'));
    assert.equal(asRest(loadClientConfig({ inClusterPathPrefix: saPrefix })).server, 'https://home:6443');
    mountServiceAccount();
    assert.equal(asRest(loadClientConfig({ inClusterPathPrefix: saPrefix })).server, 'https://10.0.0.1:443');
    process.env['KUBECONFIG'] = env;
    assert.equal(asRest(loadClientConfig({ inClusterPathPrefix: saPrefix })).server, 'https://env:6443');
    assert.equal(asRest(loadClientConfig({ kubeconfig: explicit, inClusterPathPrefix: saPrefix })).server, 'https://explicit:6443');
    assert.equal(asRest(loadClientConfig({ kubeconfig: explicit, inCluster: true, inClusterPathPrefix: saPrefix })).server, 'https://10.0.0.1:443');
    fs.rmSync(path.join(home, '.kube', 'config'));
    delete process.env['KUBECONFIG'];
    delete process.env['KUBERNETES_SERVICE_HOST'];
    assert.throws(() => loadClientConfig({ inClusterPathPrefix: saPrefix }), /no Kubernetes configuration found/);
    assert.throws(() => loadClientConfig({ inCluster: true, inClusterPathPrefix: saPrefix }), /in-cluster config requested/);
  });

  it('builds in-cluster config from the service account: token + token file, CA, namespace, bracketed IPv6', () => {
    mountServiceAccount({ host: 'fd00::1', namespace: 'pod-ns\n' });
    const rc = loadRestConfig({ inCluster: true, inClusterPathPrefix: saPrefix });
    const sa = path.join(saPrefix, SERVICE_ACCOUNT_DIR);
    assert.deepEqual(rc, { server: 'https://[fd00::1]:443', token: 'sa-token', tokenFile: path.join(sa, 'token'), caData: 'SA-CA-PEM', namespace: 'pod-ns' });
    assert.equal(defaultNamespace(rc, saPrefix), 'pod-ns');
    fs.rmSync(path.join(sa, 'ca.crt'));
    assert.equal(loadRestConfig({ inCluster: true, inClusterPathPrefix: saPrefix }).caData, undefined, 'an unreadable CA is left out, as client-go does');
  });

  it('defaultNamespace of a RestConfig without a namespace: POD_NAMESPACE in a pod, else default', () => {
    const rc: RestConfig = { server: 'https://h:1' };
    assert.equal(defaultNamespace(rc, saPrefix), 'default');
    mountServiceAccount({ namespace: 'from-file' });
    process.env['POD_NAMESPACE'] = 'from-env';
    assert.equal(defaultNamespace(rc, saPrefix), 'from-env');
    delete process.env['POD_NAMESPACE'];
    assert.equal(defaultNamespace(rc, saPrefix), 'from-file');
  });

  it('falls back to a client-node KubeConfig for exec and auth-provider users', () => {
    const kc = write(
      'exec',
      [
        'clusters: [{name: c, cluster: {server: "https://h:1"}}]',
        'users:',
        '- name: e',
        '  user:',
        '    exec: {apiVersion: client.authentication.k8s.io/v1, command: get-token, interactiveMode: Never}',
        '- name: p',
        '  user:',
        '    auth-provider: {name: oidc, config: {id-token: abc}}',
        'contexts: [{name: e, context: {cluster: c, user: e}}, {name: p, context: {cluster: c, user: p}}]',
        'current-context: e',
      ].join('\n'),
    );
    const execConfig = loadClientConfig({ kubeconfig: kc });
    assert.equal(isRestConfig(execConfig), false);
    if (isRestConfig(execConfig)) return;
    assert.equal(execConfig.getCurrentUser()?.exec?.command, 'get-token');
    assert.equal(execConfig.getCurrentCluster()?.server, 'https://h:1');
    const providerConfig = loadClientConfig({ kubeconfig: kc, context: 'p' });
    assert.equal(isRestConfig(providerConfig) ? undefined : providerConfig.getCurrentUser()?.authProvider?.name, 'oidc');
    assert.throws(() => loadRestConfig({ kubeconfig: kc }), /exec credential plugin/);
  });
});

describe('loading @kubernetes/client-node lazily', () => {
  const runtimeIndex = path.join(REPO_ROOT, 'packages/runtime/dist/index.js');
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-lazy-'));
    fs.writeFileSync(path.join(dir, 'token.yaml'), tokenKubeconfig('https://h:6443', 't'));
    fs.writeFileSync(
      path.join(dir, 'exec.yaml'),
      ['clusters: [{name: c, cluster: {server: "https://h:1"}}]', 'users: [{name: e, user: {exec: {command: x}}}]', 'contexts: [{name: e, context: {cluster: c, user: e}}]', 'current-context: e'].join('\n'),
    );
    // Counts modules of client-node resolved while importing the runtime and then creating a transport, and says
    // whether Node's undici got loaded (an ESM import of node:http does that; see packages/runtime/src/node-http.ts).
    fs.writeFileSync(
      path.join(dir, 'probe.mjs'),
      [
        "import { registerHooks } from 'node:module';",
        'let n = 0;',
        "registerHooks({ resolve(s, c, next) { const r = next(s, c); if (r.url.includes('@kubernetes/client-node')) n++; return r; } });",
        'const rt = await import(process.argv[2]);',
        'const afterImport = n;',
        'const t = rt.createTransport({ kubeconfig: process.argv[3] });',
        't.close();',
        "const undici = process.moduleLoadList.some((m) => m.includes('undici'));",
        'console.log(JSON.stringify({ afterImport, afterTransport: n, server: t.server, undici }));',
      ].join('\n'),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  interface Probe {
    afterImport: number;
    afterTransport: number;
    server: string;
    undici: boolean;
  }

  function probe(kubeconfig: string): Probe {
    const out = execFileSync(process.execPath, [path.join(dir, 'probe.mjs'), runtimeIndex, path.join(dir, kubeconfig)], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop()!) as Probe;
  }

  it("importing the runtime and a token kubeconfig never load client-node, nor Node's undici", () => {
    assert.deepEqual(probe('token.yaml'), { afterImport: 0, afterTransport: 0, server: 'https://h:6443', undici: false });
  });

  it('an exec kubeconfig does load it (so the probe can see it)', () => {
    const r = probe('exec.yaml');
    assert.equal(r.afterImport, 0);
    assert.ok(r.afterTransport > 0, 'client-node should have been loaded for the exec user');
  });
});
