/**
 * A kubeconfig exec credential plugin for tests: a real program (a Node script run by this Node) that records each
 * run — its `KUBERNETES_EXEC_INFO`, args and `TEST_PLUGIN_VAR` — in its folder and prints what the test told it to:
 * run N answers `responses[N]` (the last one again once they run out), so a test can make the first run return one
 * token and the next another.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ExecConfig } from '@kubegen/runtime/internal/client/exec-config.js';

/** What one run prints and how it exits. `status` makes an ExecCredential of the config's apiVersion. */
export interface PluginResponse {
  status?: Record<string, unknown>;
  /** The apiVersion printed (default: the config's, `client.authentication.k8s.io/v1`). */
  apiVersion?: string;
  /** Printed as it is instead of an ExecCredential. */
  stdout?: string;
  stderr?: string;
  exitCode?: number;
}

/** One recorded run. */
export interface PluginRun {
  info: { kind?: string; apiVersion?: string; spec?: { interactive?: boolean; cluster?: Record<string, unknown> } };
  args: string[];
  env: { TEST_PLUGIN_VAR?: string };
}

const SCRIPT = `
const fs = require('node:fs');
const path = require('node:path');
const dir = process.argv[2];
const log = path.join(dir, 'runs.jsonl');
const n = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\\n').filter(Boolean).length : 0;
fs.appendFileSync(log, JSON.stringify({ info: JSON.parse(process.env.KUBERNETES_EXEC_INFO || '{}'), args: process.argv.slice(3), env: { TEST_PLUGIN_VAR: process.env.TEST_PLUGIN_VAR } }) + '\\n');
const responses = JSON.parse(fs.readFileSync(path.join(dir, 'responses.json'), 'utf8'));
const r = responses[Math.min(n, responses.length - 1)];
if (r.stderr) process.stderr.write(r.stderr);
process.stdout.write(r.stdout !== undefined ? r.stdout : JSON.stringify({ kind: 'ExecCredential', apiVersion: r.apiVersion || 'client.authentication.k8s.io/v1', status: r.status }));
process.exitCode = r.exitCode || 0;
`;

export class TestExecPlugin {
  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'plugin.cjs'), SCRIPT);
    this.respond({ status: { token: 'token-1' } });
  }

  /** What the runs from now on answer, in order (see the module comment); resets the run count. */
  respond(...responses: PluginResponse[]): void {
    fs.writeFileSync(path.join(this.dir, 'responses.json'), JSON.stringify(responses));
    fs.rmSync(path.join(this.dir, 'runs.jsonl'), { force: true });
  }

  /** The runs since the last `respond`. */
  runs(): PluginRun[] {
    const log = path.join(this.dir, 'runs.jsonl');
    if (!fs.existsSync(log)) return [];
    return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as PluginRun);
  }

  /** An exec config that runs this plugin (`v1`, `Never`), with `extra` on top. */
  config(extra: Partial<ExecConfig> = {}): ExecConfig {
    return { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [path.join(this.dir, 'plugin.cjs'), this.dir], interactiveMode: 'Never', user: 'test-user', ...extra };
  }
}
