/**
 * What stands in for `docker build` where there is no Docker daemon: the Dockerfile's instructions replayed as a
 * script, each stage in a folder of its own standing for its filesystem. COPY copies from the build context (minus
 * what `.dockerignore` excludes) or, with `--from=<stage>`, from that stage's folder; WORKDIR and ENV set where and
 * with what RUN runs (bash, with `node` from this process first on PATH, as in a node:24 image); USER is noted,
 * not applied. An instruction this replay does not know fails it. Not covered: the base images themselves (their
 * OS, their npm version), file ownership, and the layer cache.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ReplayedImage {
  /** The last stage's folder (its root filesystem). */
  root: string;
  /** Its WORKDIR, inside `root`. */
  workdir: string;
  env: Record<string, string>;
  entrypoint: string[];
  user: string | undefined;
}

interface Stage {
  name: string | undefined;
  root: string;
  workdir: string;
  env: Record<string, string>;
  entrypoint: string[];
  user: string | undefined;
}

/** Replays `<context>/Dockerfile` into `out`; throws naming the line that failed. */
export function replayDockerfile(context: string, out: string, baseEnv: NodeJS.ProcessEnv): ReplayedImage {
  const dockerfile = path.join(context, 'Dockerfile');
  const ignored = dockerignore(context);
  const lines = fs.readFileSync(dockerfile, 'utf8').replace(/\\\n/g, ' ').split('\n');
  const stages: Stage[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${dockerfile}:${i + 1}`;
    const [, instruction = '', rest = ''] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    const stage = stages.at(-1);
    if (instruction !== 'FROM' && !stage) throw new Error(`${where}: ${instruction} before FROM`);
    switch (instruction) {
      case 'FROM': {
        const [, name] = /\s+AS\s+(\S+)$/i.exec(rest) ?? [];
        const root = path.join(out, `stage-${stages.length}${name ? `-${name}` : ''}`);
        fs.mkdirSync(root, { recursive: true });
        stages.push({ name, root, workdir: '/', env: {}, entrypoint: [], user: undefined });
        return;
      }
      case 'WORKDIR':
        stage!.workdir = path.posix.resolve(stage!.workdir, rest);
        fs.mkdirSync(path.join(stage!.root, stage!.workdir), { recursive: true });
        return;
      case 'ENV':
        for (const m of rest.matchAll(/(\w+)=(\S+)/g)) stage!.env[m[1]!] = m[2]!;
        return;
      case 'USER':
        stage!.user = rest;
        return;
      case 'ENTRYPOINT':
        stage!.entrypoint = JSON.parse(rest) as string[];
        return;
      case 'COPY':
        copy(rest, stage!, stages, context, ignored, where);
        return;
      case 'RUN': {
        const nodeDir = path.dirname(process.execPath);
        const res = spawnSync('bash', ['-eo', 'pipefail', '-c', rest], {
          cwd: path.join(stage!.root, stage!.workdir),
          env: { ...baseEnv, ...stage!.env, PATH: [nodeDir, baseEnv['PATH']].join(path.delimiter) },
          encoding: 'utf8',
          timeout: 600_000,
          maxBuffer: 64 << 20,
        });
        if (res.error || res.status !== 0) throw new Error(`${where}: RUN ${rest} failed (${res.error?.message ?? `exit ${res.status}`}):\n${`${res.stdout}${res.stderr}`.split('\n').slice(-40).join('\n')}`);
        return;
      }
      default:
        throw new Error(`${where}: ${instruction} is not replayed`);
    }
  });
  const last = stages.at(-1);
  if (!last) throw new Error(`${dockerfile}: no FROM`);
  return { root: last.root, workdir: path.join(last.root, last.workdir), env: last.env, entrypoint: last.entrypoint, user: last.user };
}

/** `COPY [--from=stage] src... dest`: sources relative to the context (or the stage's root), globs allowed. */
function copy(args: string, stage: Stage, stages: Stage[], context: string, ignored: (rel: string) => boolean, where: string): void {
  const words = args.split(/\s+/);
  const from = words[0]?.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
  const dest = words.pop();
  if (!dest || words.length === 0) throw new Error(`${where}: COPY needs a source and a destination`);
  const source = from === undefined ? undefined : stages.find((s) => s.name === from);
  if (from !== undefined && !source) throw new Error(`${where}: no stage ${from}`);
  const base = source ? source.root : context;
  const destPath = path.join(stage.root, path.posix.resolve(stage.workdir, dest));
  const intoDir = dest.endsWith('/') || dest === '.' || words.length > 1;
  for (const src of words) {
    const rel = source ? src : path.posix.normalize(src);
    const matches = /[*?[]/.test(rel) ? fs.globSync(rel, { cwd: base }) : [rel];
    for (const m of matches) {
      const abs = path.join(base, m);
      if (!fs.existsSync(abs)) {
        if (/[*?[]/.test(rel)) continue;
        throw new Error(`${where}: COPY ${src}: not found in ${source ? `stage ${from}` : 'the build context'}`);
      }
      // A folder's contents go into the destination; a file goes into it when it names a folder, else becomes it.
      const target = fs.statSync(abs).isDirectory() ? destPath : intoDir ? path.join(destPath, path.basename(m)) : destPath;
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.cpSync(abs, target, {
        recursive: true,
        filter: (p) => source !== undefined || !ignored(path.relative(context, p)),
      });
    }
  }
}

/** `.dockerignore` as a predicate on context-relative paths (patterns as path globs; `!` exceptions). */
function dockerignore(context: string): (rel: string) => boolean {
  const file = path.join(context, '.dockerignore');
  const patterns = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')) : [];
  return (rel) => {
    if (rel === '' || rel === '.') return false;
    let out = false;
    for (const p of patterns) {
      const negate = p.startsWith('!');
      const glob = (negate ? p.slice(1) : p).replace(/^\/+|\/+$/g, '');
      if (path.matchesGlob(rel, glob) || path.matchesGlob(rel, `${glob}/**`)) out = !negate;
    }
    return out;
  };
}
