/**
 * A real Prometheus for the monitoring tests (Debian's `prometheus` package, 2.42; hack/setup-prometheus.sh
 * installs it): the binaries, a Prometheus process of the test's own (a temporary data folder, a free loopback port,
 * the test's scrape config and rule files; stopped by the test), and its HTTP API.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '@kubegen/runtime/internal/testing/envtest/envtest-ports.js';

/** Where hack/run-tests.mjs (and .ci/run) put the folder of `prometheus` and `promtool`. */
export const PROMETHEUS_BIN_ENV = 'KUBEGEN_PROMETHEUS_BIN';

/** The path of `prometheus` or `promtool`: from $KUBEGEN_PROMETHEUS_BIN, else PATH; throws saying how to install it. */
export function prometheusBinary(name: 'prometheus' | 'promtool'): string {
  const dir = process.env[PROMETHEUS_BIN_ENV];
  if (dir) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
    throw new Error(`${PROMETHEUS_BIN_ENV}=${dir} has no ${name}; run hack/setup-prometheus.sh`);
  }
  for (const d of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (d && fs.existsSync(path.join(d, name))) return path.join(d, name);
  }
  throw new Error(`${name} is not installed: run hack/setup-prometheus.sh (Debian's prometheus package)`);
}

/** Runs `promtool args` in `cwd`; returns its exit code and output (stdout and stderr together). */
export function promtool(args: readonly string[], cwd: string): { status: number | null; output: string } {
  const res = spawnSync(prometheusBinary('promtool'), args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (res.error) throw res.error;
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

/** One sample of an instant vector from `/api/v1/query`. */
export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** A rule as `/api/v1/rules` lists it. */
export interface RuleStatus {
  name: string;
  query: string;
  health: string;
  lastError?: string;
  state?: string;
  type: string;
}

export interface PrometheusProcess {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The instant query `expr` (at now); throws on an HTTP or PromQL error with Prometheus's message. */
  query(expr: string): Promise<{ resultType: string; result: VectorSample[] }>;
  /** `/api/v1/label/<label>/values?match[]=<selector>`: what a Grafana `label_values(selector, label)` variable lists. */
  labelValues(label: string, selector: string): Promise<string[]>;
  /** `/api/v1/targets`: the active targets. */
  targets(): Promise<{ labels: Record<string, string>; health: string; lastError: string; scrapeUrl: string }[]>;
  /** `/api/v1/rules`: every rule of every group. */
  rules(): Promise<RuleStatus[]>;
  /** `/api/v1/query_exemplars` for `expr` over the last `seconds` (needs `--enable-feature=exemplar-storage`). */
  exemplars(expr: string, seconds: number): Promise<{ seriesLabels: Record<string, string>; exemplars: { labels: Record<string, string>; value: string; timestamp: number }[] }[]>;
  /** What Prometheus logged so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts `prometheus` with `config` (written as YAML, plus `ruleFiles`: name → YAML text, written beside it and
 * listed under `rule_files`) on a free loopback port with a temporary data folder, with `flags` besides its own;
 * resolves once `/-/ready` answers.
 */
export async function startPrometheus(config: Record<string, unknown>, ruleFiles: Record<string, string> = {}, flags: readonly string[] = []): Promise<PrometheusProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-prometheus-'));
  for (const [name, text] of Object.entries(ruleFiles)) fs.writeFileSync(path.join(dir, name), text);
  const configFile = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(configFile, stringify({ ...config, ...(Object.keys(ruleFiles).length > 0 ? { rule_files: Object.keys(ruleFiles) } : {}) }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    prometheusBinary('prometheus'),
    [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn', ...flags],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const api = async <T>(pathAndQuery: string): Promise<T> => {
    const res = await fetch(`${url}${pathAndQuery}`);
    const body = (await res.json()) as { status: string; data: T; errorType?: string; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${pathAndQuery}: ${body.errorType}: ${body.error}`);
    return body.data;
  };
  try {
    const deadline = performance.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${output}`);
      const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
      if (ready) break;
      if (performance.now() > deadline) throw new Error(`prometheus not ready after 30 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    query: (expr) => api(`/api/v1/query?query=${encodeURIComponent(expr)}`),
    labelValues: (label, selector) => api(`/api/v1/label/${encodeURIComponent(label)}/values?match[]=${encodeURIComponent(selector)}`),
    targets: async () => (await api<{ activeTargets: { labels: Record<string, string>; health: string; lastError: string; scrapeUrl: string }[] }>('/api/v1/targets')).activeTargets,
    rules: async () => (await api<{ groups: { rules: RuleStatus[] }[] }>('/api/v1/rules')).groups.flatMap((g) => g.rules),
    exemplars: (expr, seconds) => {
      const end = Date.now() / 1000;
      return api(`/api/v1/query_exemplars?query=${encodeURIComponent(expr)}&start=${end - seconds}&end=${end}`);
    },
    log: () => output,
    stop,
  };
}
