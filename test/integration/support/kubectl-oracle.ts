/**
 * kubectl as the oracle of name resolution: which group, version, resource and scope kubectl picks for a name. One
 * `kubectl get a,b,c… -n <ns> --ignore-not-found -v=6` lists every named type and logs each list URL in the order of
 * the names; kubectl drops a name whose type an earlier name already listed, so a batch must hold names of distinct
 * types. A batch whose URL count does not match its names (a name kubectl maps elsewhere than predicted) is asked
 * again name by name; a name kubectl refuses is reported as refused and the rest of its batch asked again. The first
 * batch runs alone (it fills kubectl's discovery cache), the others a few at a time.
 */
import { spawn, spawnSync } from 'node:child_process';

/** Where kubectl sent a list: `group/version/resource`, with ` (cluster)` for cluster-scoped resources. */
export type KubectlAnswer = string;
export const REFUSED = 'refused';

/** The kubectl on PATH and its client version (`v1.32.4`). */
export function kubectlVersion(): string {
  const res = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  if (res.error || res.status !== 0) throw new Error(`kubectl on PATH does not run: ${res.error?.message ?? res.stderr}`);
  return (JSON.parse(res.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
}

/** Runs the oracle for `names`, batched by the predicted answers; returns kubectl's answer per name and the warnings it printed. */
export async function kubectlResolve(
  kubeconfig: string,
  cacheDir: string,
  namespace: string,
  names: readonly string[],
  predicted: (name: string) => string,
  concurrency = 3,
): Promise<{ answers: Map<string, KubectlAnswer>; warnings: Set<string>; invocations: number }> {
  const answers = new Map<string, KubectlAnswer>();
  const warnings = new Set<string>();
  let invocations = 0;
  const run = async (batch: string[]): Promise<{ urls: KubectlAnswer[]; refused: string | undefined; stderr: string; status: number | null }> => {
    invocations++;
    const args = ['get', batch.join(','), '-n', namespace, '--ignore-not-found', '-v=6', `--cache-dir=${cacheDir}`, `--kubeconfig=${kubeconfig}`];
    const { stderr, status } = await new Promise<{ stderr: string; status: number | null }>((resolve, reject) => {
      const child = spawn('kubectl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ stderr: err, status: code }));
    });
    for (const m of stderr.matchAll(/^Warning: (short name .*)$/gm)) warnings.add(m[1]!);
    const refused = /the server doesn't have a resource type "([^"]*)"/.exec(stderr)?.[1];
    return { urls: listUrls(stderr, namespace), refused, stderr, status };
  };
  const ask = async (batch: string[]): Promise<void> => {
    let pending = [...batch];
    while (pending.length > 0) {
      const r = await run(pending);
      if (r.refused !== undefined && r.urls.length === 0) {
        const candidates = pending.length === 1 ? pending : pending.filter((n) => n === r.refused || n.split('.')[0] === r.refused);
        if (candidates.length === 0) throw new Error(`kubectl refused "${r.refused}", which is not one of ${pending.join(',')}`);
        if (candidates.length === 1) answers.set(candidates[0]!, REFUSED);
        else for (const c of candidates) await ask([c]);
        pending = pending.filter((n) => !candidates.includes(n));
        continue;
      }
      if (r.urls.length === pending.length) {
        pending.forEach((n, i) => answers.set(n, r.urls[i]!));
        return;
      }
      if (pending.length === 1) throw new Error(`kubectl get ${pending[0]}: ${r.urls.length} list requests (exit ${r.status}):\n${r.stderr.slice(-2000)}`);
      for (const n of pending) await ask([n]);
      return;
    }
  };
  // Names of distinct predicted types go together; names predicted refused are asked alone.
  const batches: { names: string[]; types: Set<string> }[] = [];
  for (const name of names) {
    const type = predicted(name);
    if (type === REFUSED) {
      batches.push({ names: [name], types: new Set() });
      continue;
    }
    let b = batches.find((x) => x.types.size > 0 && !x.types.has(type));
    if (!b) batches.push((b = { names: [], types: new Set() }));
    b.names.push(name);
    b.types.add(type);
  }
  const [first, ...rest] = batches;
  if (first) await ask(first.names);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < rest.length) await ask(rest[next++]!.names);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { answers, warnings, invocations };
}

/** The list requests in a `-v=6` log, as answers, in order (discovery requests carry no `limit`). */
function listUrls(stderr: string, namespace: string): KubectlAnswer[] {
  const out: KubectlAnswer[] = [];
  for (const m of stderr.matchAll(/\] GET (https?:\/\/\S+) \d+/g)) {
    const url = new URL(m[1]!);
    if (!url.searchParams.has('limit')) continue;
    const parts = url.pathname.split('/').filter(Boolean);
    const [group, rest] = parts[0] === 'api' ? ['', parts.slice(1)] : [parts[1]!, parts.slice(2)];
    const version = rest[0]!;
    const namespaced = rest[1] === 'namespaces' && rest[2] === namespace && rest.length === 4;
    const resource = namespaced ? rest[3]! : rest[1]!;
    out.push(`${group}/${version}/${resource}${namespaced ? '' : ' (cluster)'}`);
  }
  return out;
}
