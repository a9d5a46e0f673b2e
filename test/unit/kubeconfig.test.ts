/**
 * loadKubeConfig's search order (explicit path → KUBECONFIG → in-cluster → ~/.kube/config), context selection,
 * KUBECONFIG merging, and defaultNamespace; it returns the runtime's own `KubeConfig`. Uses temp files and a fake service-account mount; env vars are restored.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { defaultNamespace, loadKubeConfig, SERVICE_ACCOUNT_DIR } from '@kubegen/runtime/internal/client/kubeconfig.js';

const ENV_KEYS = ['KUBECONFIG', 'HOME', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'POD_NAMESPACE'] as const;

function kubeconfigYaml(server: string, opts: { context?: string; namespace?: string; current?: boolean; user?: string } = {}): string {
  const ctx = opts.context ?? 'main';
  const user = opts.user ?? `${ctx}-user`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${ctx}-cluster`,
    '  cluster:',
    `    server: ${server}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    `    token: token-${ctx}`,
    'contexts:',
    `- name: ${ctx}`,
    '  context:',
    `    cluster: ${ctx}-cluster`,
    `    user: ${user}`,
    ...(opts.namespace ? [`    namespace: ${opts.namespace}`] : []),
    ...(opts.current === false ? [] : [`current-context: ${ctx}`]),
    '',
  ].join('\n');
}

describe('loadKubeConfig', () => {
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
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-kc-'));
    home = path.join(dir, 'home');
    fs.mkdirSync(path.join(home, '.kube'), { recursive: true });
    saPrefix = path.join(dir, 'pod');
    for (const k of ENV_KEYS) delete process.env[k];
    process.env['HOME'] = home;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function write(name: string, text: string): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  }
  function mountServiceAccount(namespace = 'pod-ns'): void {
    const sa = path.join(saPrefix, SERVICE_ACCOUNT_DIR);
    fs.mkdirSync(sa, { recursive: true });
    fs.writeFileSync(path.join(sa, 'token'), 'sa-token');
    fs.writeFileSync(path.join(sa, 'ca.crt'), '');
    fs.writeFileSync(path.join(sa, 'namespace'), namespace);
    process.env['KUBERNETES_SERVICE_HOST'] = '10.0.0.1';
    process.env['KUBERNETES_SERVICE_PORT'] = '443';
  }

  it('prefers an explicit path over KUBECONFIG, in-cluster and home', () => {
    const explicit = write('explicit', kubeconfigYaml('https://explicit:6443'));
    process.env['KUBECONFIG'] = write('env', kubeconfigYaml('https://env:6443'));
    mountServiceAccount();
    fs.writeFileSync(path.join(home, '.kube', 'config'), kubeconfigYaml('https://home:6443'));
    const kc = loadKubeConfig({ kubeconfig: explicit, inClusterPathPrefix: saPrefix });
    assert.equal(kc.getCurrentCluster()?.server, 'https://explicit:6443');
  });

  it('uses KUBECONFIG before in-cluster and home', () => {
    process.env['KUBECONFIG'] = write('env', kubeconfigYaml('https://env:6443'));
    mountServiceAccount();
    fs.writeFileSync(path.join(home, '.kube', 'config'), kubeconfigYaml('https://home:6443'));
    assert.equal(loadKubeConfig({ inClusterPathPrefix: saPrefix }).getCurrentCluster()?.server, 'https://env:6443');
  });

  it('uses in-cluster credentials before ~/.kube/config', () => {
    mountServiceAccount();
    fs.writeFileSync(path.join(home, '.kube', 'config'), kubeconfigYaml('https://home:6443'));
    const kc = loadKubeConfig({ inClusterPathPrefix: saPrefix });
    assert.equal(kc.getCurrentCluster()?.server, 'https://10.0.0.1:443');
    assert.equal(defaultNamespace(kc, saPrefix), 'pod-ns');
  });

  it('falls back to ~/.kube/config, and fails clearly when nothing exists', () => {
    assert.throws(() => loadKubeConfig({ inClusterPathPrefix: saPrefix }), /no Kubernetes configuration found/);
    fs.writeFileSync(path.join(home, '.kube', 'config'), kubeconfigYaml('https://home:6443'));
    assert.equal(loadKubeConfig({ inClusterPathPrefix: saPrefix }).getCurrentCluster()?.server, 'https://home:6443');
  });

  it('inCluster: true forces the service account and fails outside a pod', () => {
    fs.writeFileSync(path.join(home, '.kube', 'config'), kubeconfigYaml('https://home:6443'));
    assert.throws(() => loadKubeConfig({ inCluster: true, inClusterPathPrefix: saPrefix }), /in-cluster config requested/);
    mountServiceAccount();
    const kc = loadKubeConfig({ inCluster: true, inClusterPathPrefix: saPrefix });
    assert.equal(kc.getCurrentContext(), 'inClusterContext');
    // The token file alone (not a copy of its token), so that a transport picks up rotations.
    assert.deepEqual(kc.getCurrentUser(), { name: 'inClusterContext', tokenFile: path.join(saPrefix, SERVICE_ACCOUNT_DIR, 'token') });
    assert.equal(kc.restConfig().tokenFile, path.join(saPrefix, SERVICE_ACCOUNT_DIR, 'token'));
  });

  it('merges a KUBECONFIG list (first file wins) and selects a context', () => {
    const a = write('a', kubeconfigYaml('https://a:6443', { context: 'a', namespace: 'ns-a' }));
    const b = write('b', kubeconfigYaml('https://b:6443', { context: 'b', current: false }));
    process.env['KUBECONFIG'] = [path.join(dir, 'missing'), a, b].join(path.delimiter);
    const kc = loadKubeConfig();
    assert.equal(kc.getCurrentContext(), 'a');
    assert.equal(kc.getCurrentCluster()?.server, 'https://a:6443');
    assert.equal(defaultNamespace(kc), 'ns-a');
    const other = loadKubeConfig({ context: 'b' });
    assert.equal(other.getCurrentCluster()?.server, 'https://b:6443');
    assert.equal(other.getCurrentUser()?.token, 'token-b');
    assert.equal(defaultNamespace(other), 'default');
    assert.throws(() => loadKubeConfig({ context: 'nope' }), /context "nope" not found/);
  });
});
