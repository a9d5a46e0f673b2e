/**
 * `kubegen dev` refuses bad states before it starts anything, with one line and exit 1: not a project, no
 * `npm install`, a port taken (naming the flag), two flags on one port, a missing --kubeconfig, no envtest binaries
 * (saying `npm run setup-envtest`). And which file changes ask for generate, a build or a sync.
 * test/integration/newcomer.test.ts runs the loop itself in a scaffolded project.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { classify } from 'kubegen/internal/dev/source-watch.js';
import { managerArgs } from 'kubegen/internal/dev/manager-args.js';
import { runCli } from '../support/cli.js';

/** One `error: …` line, exit 1, nothing on stdout. */
function assertOneLine(res: { code: number; out: string; err: string }, pattern: RegExp): void {
  assert.equal(res.code, 1, res.out + res.err);
  assert.equal(res.out, '', 'nothing started, nothing said');
  assert.equal(res.err.trimEnd().split('\n').length, 1, res.err);
  assert.match(res.err.trimEnd(), pattern);
}

describe('kubegen dev: bad states', () => {
  let tmp: string;
  let project: string;
  let saved: Record<string, string | undefined>;
  const ENV = ['KUBEBUILDER_ASSETS', 'ENVTEST_DIR', 'TEST_ASSET_ETCD', 'TEST_ASSET_KUBE_APISERVER'];
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-dev-'));
    const init = await runCli(tmp, 'init', '--domain', 'example.com', 'harbor');
    assert.equal(init.code, 0, init.err);
    project = path.join(tmp, 'harbor');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  beforeEach(() => {
    saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  const installed = (): void => {
    fs.mkdirSync(path.join(project, 'node_modules/.bin'), { recursive: true });
    fs.writeFileSync(path.join(project, 'node_modules/.bin/tsc'), '');
  };

  it('outside a project, and before npm install', async () => {
    assertOneLine(await runCli(tmp, 'dev'), /^error: .* is not a kubegen project \(no kubegen\.project\.yaml\): run kubegen dev \(npm run dev\) in a project made by kubegen init$/);
    assertOneLine(await runCli(project, 'dev'), /node_modules\/\.bin\/tsc\): run npm install first$/);
  });

  it('a port in use names it and its flag; two flags on one port are refused', async () => {
    installed();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      assertOneLine(await runCli(project, 'dev', '--metrics-port', '0', '--health-port', String(port)), new RegExp(`^error: port ${port} \\(the manager's health probes\\) is in use on 127\\.0\\.0\\.1: stop what holds it, or pick another with --health-port$`));
      assertOneLine(await runCli(project, 'dev', '--metrics-port', String(port), '--health-port', '0'), /--metrics-port/);
    } finally {
      holder.close();
    }
    assertOneLine(await runCli(project, 'dev', '--metrics-port', '18099', '--health-port', '18099'), /^error: --health-port and --metrics-port both ask for port 18099$/);
    const zero = await runCli(project, 'dev', '--webhook-port', '0');
    assert.equal(zero.code, 2, 'a usage error');
    assert.match(zero.err, /option '--webhook-port <port>' argument '0' is invalid\. expected a port number \(1-65535\)/);
  });

  it('no envtest binaries says how to get them; a missing --kubeconfig is named', async () => {
    installed();
    delete process.env['KUBEBUILDER_ASSETS'];
    process.env['ENVTEST_DIR'] = path.join(tmp, 'no-envtest');
    assertOneLine(await runCli(project, 'dev', '--metrics-port', '0', '--health-port', '0'), /^error: no envtest binaries for the local control plane \(.*\): run npm run setup-envtest once \(about 5 minutes\), or pass --kubeconfig to use a cluster$/);
    assertOneLine(await runCli(project, 'dev', '--metrics-port', '0', '--health-port', '0', '--kubeconfig', 'nowhere.yaml'), /^error: --kubeconfig .*nowhere\.yaml does not exist$/);
  });
});

describe('kubegen dev: what a change asks for', () => {
  const root = '/p';
  const layout = { root, apis: '/p/apis', out: '/p/src/generated', markerSources: ['/p/src/controllers', '/p/src/webhooks'] };
  it('types and markers: generate and build; other sources: build; config YAML: sync; outputs and hidden files: nothing', () => {
    assert.deepEqual(classify(layout, '/p/apis/ships/v1/frigate_types.ts'), { generate: true, build: true, sync: false });
    assert.deepEqual(classify(layout, '/p/src/controllers/frigate-controller.ts'), { generate: true, build: true, sync: false });
    assert.deepEqual(classify(layout, '/p/src/main.ts'), { generate: false, build: true, sync: false });
    assert.deepEqual(classify(layout, '/p/config/rbac/kustomization.yaml'), { generate: false, build: false, sync: true });
    for (const ignored of ['/p/src/generated/index.ts', '/p/src/.generated.kubegen-tmp-1-x/index.ts', '/p/dist/src/main.js', '/p/src/.main.ts.swp', '/p/src/main.ts~', '/p/README.md', '/p/config/grafana/x.json']) {
      assert.equal(classify(layout, ignored), undefined, ignored);
    }
  });
});

describe('kubegen dev: the manager\'s command line', () => {
  const input = {
    main: '/p/dist/src/main.js',
    mainSource: "const options = { 'webhook-port': { type: 'string' }, 'webhook-host': { type: 'string' } };",
    kubeconfig: '/k',
    metricsPort: 8443,
    healthPort: 0,
    webhookPort: 9443,
    webhookCertDir: '/certs',
    textLogs: false,
    userArgs: [] as string[],
  };
  it('every endpoint on 127.0.0.1, the webhooks too (--webhook-host), unless the user sets --webhook-host or the main has no such flag', () => {
    assert.deepEqual(managerArgs(input), [
      '/p/dist/src/main.js', '--kubeconfig=/k', '--metrics-bind-address=127.0.0.1:8443', '--health-probe-bind-address=0',
      '--webhook-port=9443', '--webhook-host=127.0.0.1', '--webhook-cert-dir=/certs',
    ]);
    for (const userArgs of [['--webhook-host=0.0.0.0'], ['--webhook-host', '::']]) {
      const args = managerArgs({ ...input, userArgs });
      assert.equal(args.includes('--webhook-host=127.0.0.1'), false, userArgs.join(' '));
      assert.deepEqual(args.slice(-userArgs.length), userArgs);
    }
    // A main scaffolded before the flag existed would refuse it (strict parseArgs): not passed.
    assert.equal(managerArgs({ ...input, mainSource: "const options = { 'webhook-port': { type: 'string' } };" }).some((a) => a.startsWith('--webhook-host')), false);
  });
});
