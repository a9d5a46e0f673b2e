/**
 * Locating the envtest binaries and reading envtest's environment knobs, as controller-runtime does:
 * `KUBEBUILDER_ASSETS` (folder with `etcd` and `kube-apiserver`), per-binary overrides `TEST_ASSET_ETCD` and
 * `TEST_ASSET_KUBE_APISERVER`, `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT` / `_STOP_TIMEOUT` (Go durations such as
 * `20s`, `1m30s`, or plain seconds) and `KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT`.
 * Without `KUBEBUILDER_ASSETS`, the folders `kubegen-setup-envtest` (this package's `hack/setup-envtest.sh`) and controller-runtime use by default are tried.
 * The `crd-only` profile (CRD apiserver 1.36) reads `KUBEGEN_ENVTEST_1_36_ASSETS` (folder with `etcd` and
 * `apiextensions-apiserver`; default `~/.cache/envtest/k8s-1.36/bin`, where `kubegen-setup-envtest-1.36` puts them)
 * and the per-binary overrides `KUBEGEN_ENVTEST_1_36_ETCD` and `KUBEGEN_ENVTEST_1_36_APISERVER`.
 * The `cluster` profile reads the `full` profile's folder, which must also hold `kube-controller-manager`,
 * `kube-scheduler` and `kubemark` (overrides `TEST_ASSET_KUBE_CONTROLLER_MANAGER`, `TEST_ASSET_KUBE_SCHEDULER`,
 * `TEST_ASSET_KUBEMARK`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EnvtestProfile } from './envtest-profiles.js';

/** Paths of the control-plane binaries envtest runs, as {@link findAssets} resolved them. */
export interface EnvtestAssets {
  etcd: string;
  /** `kube-apiserver` (profiles `full` and `cluster`) or `apiextensions-apiserver` (profile `crd-only`). */
  apiserver: string;
  /** The `cluster` profile's other binaries (absent for the other profiles). */
  cluster?: ClusterAssets;
}

/** The binaries the `cluster` profile runs besides etcd and kube-apiserver. */
export interface ClusterAssets {
  controllerManager: string;
  scheduler: string;
  /** Kubemark's hollow node (`kubemark --morph=kubelet`). */
  kubemark: string;
}

/** How long envtest waits for the control plane to start unless configured (20 s, as controller-runtime). */
export const DEFAULT_START_TIMEOUT_MS = 20_000;
/** How long envtest waits for the control plane to stop unless configured (20 s, as controller-runtime). */
export const DEFAULT_STOP_TIMEOUT_MS = 20_000;

/** Where each profile's binaries come from: the environment variables, default folders and the setup command. */
interface AssetLayout {
  dirEnv: string;
  apiserverBinary: string;
  etcdOverride: string;
  apiserverOverride: string;
  /** More binaries the profile needs in the same folder: file name and per-binary override variable. */
  extra: readonly { binary: string; override: string; key: keyof ClusterAssets }[];
  defaultDirs: () => string[];
  hint: string;
}

const FULL_DIRS = (): string[] => [path.join(process.env['ENVTEST_DIR'] || path.join(os.homedir(), '.cache', 'envtest', 'k8s-1.20.2'), 'bin'), '/usr/local/kubebuilder/bin'];

const LAYOUTS: Record<EnvtestProfile, AssetLayout> = {
  full: {
    dirEnv: 'KUBEBUILDER_ASSETS',
    apiserverBinary: 'kube-apiserver',
    etcdOverride: 'TEST_ASSET_ETCD',
    apiserverOverride: 'TEST_ASSET_KUBE_APISERVER',
    extra: [],
    defaultDirs: FULL_DIRS,
    hint: 'set KUBEBUILDER_ASSETS or run `npx kubegen-setup-envtest` (shipped with @kubegen/runtime)',
  },
  cluster: {
    dirEnv: 'KUBEBUILDER_ASSETS',
    apiserverBinary: 'kube-apiserver',
    etcdOverride: 'TEST_ASSET_ETCD',
    apiserverOverride: 'TEST_ASSET_KUBE_APISERVER',
    extra: [
      { binary: 'kube-controller-manager', override: 'TEST_ASSET_KUBE_CONTROLLER_MANAGER', key: 'controllerManager' },
      { binary: 'kube-scheduler', override: 'TEST_ASSET_KUBE_SCHEDULER', key: 'scheduler' },
      { binary: 'kubemark', override: 'TEST_ASSET_KUBEMARK', key: 'kubemark' },
    ],
    defaultDirs: FULL_DIRS,
    hint:
      'the cluster profile needs kube-controller-manager, kube-scheduler and kubemark next to kube-apiserver: set KUBEBUILDER_ASSETS ' +
      'or run `npx kubegen-setup-envtest` (shipped with @kubegen/runtime; builds the three once from the same source, about 6 minutes)',
  },
  'crd-only': {
    dirEnv: 'KUBEGEN_ENVTEST_1_36_ASSETS',
    apiserverBinary: 'apiextensions-apiserver',
    etcdOverride: 'KUBEGEN_ENVTEST_1_36_ETCD',
    apiserverOverride: 'KUBEGEN_ENVTEST_1_36_APISERVER',
    extra: [],
    defaultDirs: () => [path.join(process.env['ENVTEST_1_36_DIR'] || path.join(os.homedir(), '.cache', 'envtest', 'k8s-1.36'), 'bin')],
    hint: 'set KUBEGEN_ENVTEST_1_36_ASSETS or run `npx kubegen-setup-envtest-1.36` (shipped with @kubegen/runtime; builds the CRD apiserver 1.36 once, about 6 minutes)',
  },
};

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Folders tried when neither `assetsDir` nor the profile's environment variable is given. */
export function defaultAssetDirs(profile: EnvtestProfile = 'full'): string[] {
  return LAYOUTS[profile].defaultDirs();
}

/** Finds a profile's etcd and apiserver; throws a clear error naming what is missing and how to get it. */
export function findAssets(assetsDir?: string, profile: EnvtestProfile = 'full'): EnvtestAssets {
  const layout = LAYOUTS[profile];
  const dir =
    assetsDir ||
    process.env[layout.dirEnv] ||
    layout.defaultDirs().find((d) => ['etcd', layout.apiserverBinary, ...layout.extra.map((e) => e.binary)].every((b) => isExecutable(path.join(d, b)))) ||
    '';
  const pick = (envVar: string, binary: string): string => {
    const override = process.env[envVar];
    if (override) {
      if (!isExecutable(override)) throw new Error(`envtest: ${envVar}=${override} is not an executable file (${layout.hint})`);
      return override;
    }
    if (!dir) throw new Error(`envtest (profile ${profile}): no binary directory for ${binary}: ${layout.hint}`);
    const file = path.join(dir, binary);
    if (!isExecutable(file)) throw new Error(`envtest (profile ${profile}): ${file} not found or not executable: ${layout.hint}`);
    return file;
  };
  const assets: EnvtestAssets = { etcd: pick(layout.etcdOverride, 'etcd'), apiserver: pick(layout.apiserverOverride, layout.apiserverBinary) };
  if (layout.extra.length > 0) {
    // All at once: a folder made before the cluster binaries were added to the setup lacks all three.
    const missing = layout.extra.filter((e) => !process.env[e.override] && !isExecutable(path.join(dir, e.binary))).map((e) => e.binary);
    if (missing.length > 0) throw new Error(`envtest (profile ${profile}): ${missing.join(', ')} not found in ${dir}: ${layout.hint}`);
    assets.cluster = Object.fromEntries(layout.extra.map((e) => [e.key, pick(e.override, e.binary)])) as unknown as ClusterAssets;
  }
  return assets;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration (`1m30s`, `500ms`) or a bare number of seconds into milliseconds; undefined if invalid. */
export function parseDuration(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of trimmed.matchAll(re)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed += m[0].length;
  }
  return consumed === trimmed.length && consumed > 0 ? total : undefined;
}

/** `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT` in ms, or {@link DEFAULT_START_TIMEOUT_MS} when unset or invalid. */
export function envStartTimeoutMs(): number {
  return parseDuration(process.env['KUBEBUILDER_CONTROLPLANE_START_TIMEOUT']) ?? DEFAULT_START_TIMEOUT_MS;
}

/** `KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT` in ms, or {@link DEFAULT_STOP_TIMEOUT_MS} when unset or invalid. */
export function envStopTimeoutMs(): number {
  return parseDuration(process.env['KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT']) ?? DEFAULT_STOP_TIMEOUT_MS;
}

/** Whether `KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true`: copy etcd's and kube-apiserver's output to stderr. */
export function envAttachOutput(): boolean {
  return process.env['KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT'] === 'true';
}

/**
 * Merges `--flag=value` argument lists: later lists override earlier ones flag by flag (so user args replace the
 * harness defaults); arguments that are not `--flag[=value]` are appended as they are.
 */
export function mergeFlags(...lists: readonly (readonly string[])[]): string[] {
  const byName = new Map<string, string>();
  const loose: string[] = [];
  for (const list of lists) {
    for (const arg of list) {
      const m = /^--([^=]+)(=.*)?$/.exec(arg);
      if (m) byName.set(m[1]!, arg);
      else loose.push(arg);
    }
  }
  return [...byName.values(), ...loose];
}
