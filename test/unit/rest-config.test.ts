/**
 * The runtime's kubeconfig reader (`loadClientConfig` / `loadRestConfig`): `*-data` vs file paths (relative to the
 * kubeconfig's folder), the KUBECONFIG merge rule, context selection, in-cluster config from a fake service-account
 * mount (IPv6 bracketing, namespace, token + token file), the lookup order, exec users (read and validated),
 * auth-provider users (refused, naming the replacement), proxy-url schemes, and that importing the runtime (or the
 * testing entry) and creating transports never loads client-node nor the CEL/protobuf packages (checked in a child
 * process with a module resolve hook). Env vars are restored.
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
  assert.ok(isRestConfig(config), 'expected a RestConfig, got a KubeConfig');
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

  it('reads exec users into RestConfig.exec (a relative command path against the kubeconfig folder, the cluster extension) and refuses invalid ones', () => {
    const kc = write(
      'exec',
      [
        'clusters:',
        '- name: c',
        '  cluster:',
        '    server: "https://h:1"',
        '    extensions: [{name: client.authentication.k8s.io/exec, extension: {audience: aud-1}}]',
        'users:',
        '- name: e',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1',
        '      command: bin/get-token',
        '      args: [--region, eu]',
        '      env: [{name: A, value: b}]',
        '      interactiveMode: Never',
        '      provideClusterInfo: true',
        '      installHint: install it',
        '- name: beta',
        '  user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}',
        '- name: v1-without-mode',
        '  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: aws}}',
        '- name: alpha',
        '  user: {exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: aws, interactiveMode: Never}}',
        'contexts: [{name: e, context: {cluster: c, user: e}}, {name: beta, context: {cluster: c, user: beta}}, {name: v1, context: {cluster: c, user: v1-without-mode}}, {name: alpha, context: {cluster: c, user: alpha}}]',
        'current-context: e',
      ].join('\n'),
    );
    assert.deepEqual(loadRestConfig({ kubeconfig: kc }), {
      server: 'https://h:1',
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: path.join(dir, 'bin/get-token'),
        args: ['--region', 'eu'],
        env: [{ name: 'A', value: 'b' }],
        installHint: 'install it',
        provideClusterInfo: true,
        interactiveMode: 'Never',
        user: 'e',
        clusterConfig: { audience: 'aud-1' },
      },
    });
    assert.equal(loadClientConfig({ kubeconfig: kc, context: 'beta' }).exec?.interactiveMode, 'IfAvailable', "v1beta1's default, as client-go");
    assert.equal(loadRestConfig({ kubeconfig: kc, context: 'beta' }).exec?.command, 'aws', 'a bare command stays a PATH lookup');
    assert.throws(() => loadRestConfig({ kubeconfig: kc, context: 'v1' }), /kubeconfig user "v1-without-mode": exec: interactiveMode must be specified/);
    assert.throws(() => loadRestConfig({ kubeconfig: kc, context: 'alpha' }), /kubeconfig user "alpha": exec: apiVersion "client.authentication.k8s.io\/v1alpha1" is not supported/);
  });

  it('refuses auth-provider users, naming the user and the exec plugin that replaces the provider', () => {
    const kc = write(
      'providers',
      [
        'clusters: [{name: c, cluster: {server: "https://h:1"}}]',
        'users:',
        '- {name: g, user: {auth-provider: {name: gcp, config: {access-token: secret-a}}}}',
        '- {name: a, user: {auth-provider: {name: azure}}}',
        '- {name: o, user: {auth-provider: {name: oidc, config: {idp-issuer-url: "https://idp", client-id: kube, client-secret: secret-b, refresh-token: secret-c}}}}',
        '- {name: x, user: {auth-provider: {name: custom}}}',
        'contexts: [{name: g, context: {cluster: c, user: g}}, {name: a, context: {cluster: c, user: a}}, {name: o, context: {cluster: c, user: o}}, {name: x, context: {cluster: c, user: x}}]',
      ].join('\n'),
    );
    const message = (context: string): string => {
      try {
        loadRestConfig({ kubeconfig: kc, context });
      } catch (err) {
        return (err as Error).message;
      }
      assert.fail(`context ${context} loaded`);
    };
    assert.match(message('g'), /^kubeconfig user "g" uses the "gcp" auth-provider, which kubegen does not support: use the exec credential plugin gke-gcloud-auth-plugin/);
    assert.match(message('a'), /user "a" uses the "azure" auth-provider.*kubelogin/);
    const oidc = message('o');
    assert.match(oidc, /user "o" uses the "oidc" auth-provider.*kubectl oidc-login/);
    assert.match(oidc, /"--oidc-issuer-url=https:\/\/idp","--oidc-client-id=kube"/, 'the exec args to write, from the provider config');
    assert.doesNotMatch(oidc, /secret-/, 'no secrets in the message');
    assert.match(message('x'), /user "x" uses the "custom" auth-provider, which kubegen does not support: use an exec credential plugin/);
  });

  it('refuses a proxy-url of another scheme, naming the cluster', () => {
    const kc = write('ftp-proxy', ['clusters: [{name: c, cluster: {server: "https://h:1", proxy-url: "ftp://p:21"}}]', 'users: [{name: u, user: {}}]', 'contexts: [{name: x, context: {cluster: c, user: u}}]', 'current-context: x'].join('\n'));
    assert.throws(() => loadRestConfig({ kubeconfig: kc }), /cluster "c": proxy-url "ftp:\/\/p:21" has unsupported scheme "ftp", must be http, https, or socks5/);
  });
});

describe('what importing the runtime loads', () => {
  const runtimeIndex = path.join(REPO_ROOT, 'packages/runtime/dist/index.js');
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-lazy-'));
    fs.writeFileSync(path.join(dir, 'token.yaml'), tokenKubeconfig('https://h:6443', 't'));
    fs.writeFileSync(
      path.join(dir, 'exec.yaml'),
      [
        'clusters: [{name: c, cluster: {server: "https://h:1", proxy-url: "http://127.0.0.1:9"}}]',
        'users: [{name: e, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Never}}}]',
        'contexts: [{name: e, context: {cluster: c, user: e}}]',
        'current-context: e',
      ].join('\n'),
    );
    // Counts the modules of client-node and of the CEL/protobuf packages resolved while importing the runtime and then
    // creating a transport, and says whether Node's undici got loaded (an ESM import of node:http does that; see
    // packages/runtime/src/node-http.ts).
    fs.writeFileSync(
      path.join(dir, 'probe.mjs'),
      [
        "import { registerHooks } from 'node:module';",
        'const seen = { clientNode: 0, validation: 0 };',
        'registerHooks({ resolve(s, c, next) { const r = next(s, c);',
        "  if (r.url.includes('@kubernetes/client-node')) seen.clientNode++;",
        "  if (/@bufbuild\\/|\\/re2js\\//.test(r.url)) seen.validation++;",
        '  return r; } });',
        '// Another entry point first, when given: what it loads counts too.',
        'if (process.argv[4]) await import(process.argv[4]);',
        'const rt = await import(process.argv[2]);',
        'const afterImport = { ...seen };',
        'const t = rt.createTransport({ kubeconfig: process.argv[3] });',
        't.close();',
        "const undici = process.moduleLoadList.some((m) => m.includes('undici'));",
        'console.log(JSON.stringify({ afterImport, afterTransport: seen, server: t.server, undici }));',
      ].join('\n'),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  interface Probe {
    afterImport: { clientNode: number; validation: number };
    afterTransport: { clientNode: number; validation: number };
    server: string;
    undici: boolean;
  }

  function probe(kubeconfig: string, entry?: string): Probe {
    const out = execFileSync(process.execPath, [path.join(dir, 'probe.mjs'), runtimeIndex, path.join(dir, kubeconfig), ...(entry ? [entry] : [])], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop()!) as Probe;
  }

  it("importing the runtime and a token kubeconfig load neither client-node nor the CEL/protobuf packages, nor Node's undici", () => {
    const none = { clientNode: 0, validation: 0 };
    assert.deepEqual(probe('token.yaml'), { afterImport: none, afterTransport: none, server: 'https://h:6443', undici: false });
  });

  it('an exec user behind a proxy loads neither either', () => {
    const none = { clientNode: 0, validation: 0 };
    assert.deepEqual(probe('exec.yaml'), { afterImport: none, afterTransport: none, server: 'https://h:1', undici: false });
  });

  it('@kubegen/runtime/testing (envtest, the fake) loads neither either', () => {
    const r = probe('token.yaml', path.join(REPO_ROOT, 'packages/runtime/dist/testing/index.js'));
    assert.deepEqual(r.afterTransport, { clientNode: 0, validation: 0 });
  });
});
