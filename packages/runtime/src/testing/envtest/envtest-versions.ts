/**
 * The version of a control-plane binary, read from the binary itself before envtest starts it, so that it is given
 * only the flags that version accepts (`envtest-flags.ts`). Users may bring other binaries than the ones the setup
 * scripts build (`KUBEBUILDER_ASSETS`, `TEST_ASSET_*`); nothing here assumes which.
 *
 * - Kubernetes components print `Kubernetes v1.20.2` for `--version`.
 * - etcd prints `etcd Version: 3.4.23` (then its Git SHA, Go version and platform).
 * - apiextensions-apiserver has no `--version` flag; from 1.31 on its `--help` describes `--emulated-version` with
 *   `Options are: kube=1.33..1.36(default:1.36)`, whose default is the binary's own minor version (the patch is
 *   not printed: it reads as `.0`). An older one says nothing: its version is unknown.
 *
 * Each binary is asked once per path, size and modification time (a rebuilt binary is asked again); the answers are
 * kept for the life of the process.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';

/** A binary's version, and the text it was read from (`Kubernetes v1.20.2`). */
export interface BinaryVersion {
  major: number;
  minor: number;
  patch: number;
  /** What the binary printed that the version was read from, for messages. */
  text: string;
}

/** How long a binary may take to print its version before envtest gives up asking (10 s). */
const PROBE_TIMEOUT_MS = 10_000;

const cache = new Map<string, Promise<BinaryVersion | undefined>>();

/**
 * The version `binary` reports (see the module comment), or `undefined` when it prints none envtest can read. Never
 * rejects: a binary that cannot be run fails later, when envtest starts it, with its own output.
 */
export function binaryVersion(binary: string): Promise<BinaryVersion | undefined> {
  let key = binary;
  try {
    const st = fs.statSync(binary);
    key = `${binary}\0${st.size}\0${st.mtimeMs}`;
  } catch {
    // not there: asked (and failing) once
  }
  let found = cache.get(key);
  if (!found) {
    found = probe(binary);
    cache.set(key, found);
  }
  return found;
}

async function probe(binary: string): Promise<BinaryVersion | undefined> {
  const version = parseVersionOutput(await run(binary, ['--version']));
  if (version) return version;
  // apiextensions-apiserver: no --version, but --help names the default emulated version (1.31+).
  return parseVersionOutput(await run(binary, ['--help']));
}

/** stdout and stderr of `binary args`, whatever its exit code; '' when it cannot be run. */
function run(binary: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(binary, args, { timeout: PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } }, (_err, stdout, stderr) => {
      resolve(`${stdout ?? ''}\n${stderr ?? ''}`);
    });
  });
}

/**
 * The version in what a binary printed for `--version` or `--help`: `Kubernetes v1.30.0`, `etcd Version: 3.5.16`,
 * or `kube=1.33..1.36(default:1.36)` (apiextensions-apiserver's `--emulated-version`); `undefined` for anything else.
 */
export function parseVersionOutput(output: string): BinaryVersion | undefined {
  const kube = /Kubernetes v(\d+)\.(\d+)\.(\d+)\S*/.exec(output);
  if (kube) return version(kube[0], kube[1]!, kube[2]!, kube[3]!);
  const etcd = /etcd Version: (\d+)\.(\d+)\.(\d+)\S*/.exec(output);
  if (etcd) return version(etcd[0], etcd[1]!, etcd[2]!, etcd[3]!);
  const emulated = /kube=\d+\.\d+\.\.\d+\.\d+\s*\(default:\s*(\d+)\.(\d+)\)/.exec(output);
  if (emulated) return version(`--emulated-version ${emulated[0]}`, emulated[1]!, emulated[2]!, '0');
  return undefined;
}

function version(text: string, major: string, minor: string, patch: string): BinaryVersion {
  return { major: Number(major), minor: Number(minor), patch: Number(patch), text };
}
