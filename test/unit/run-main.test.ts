/**
 * `runMain` in a real child process: a `main` that rejects ends the process with exit 1 and one error line naming
 * the cause; if something still keeps the process alive (here an interval), it is ended after the grace period,
 * naming what was left; a `main` that resolves ends with 0 the same way.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

const runtime = JSON.stringify(new URL('../../../packages/runtime/dist/index.js', import.meta.url).href);

function run(body: string, opts: { flags?: string[]; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; lines: { level: string; msg: string; error?: string; left?: string[]; exitCode?: number }[]; ms: number } {
  const script = `const { runMain } = await import(${runtime});\n${body}`;
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, KUBEGEN_LOG_FORMAT: 'json', ...opts.env };
  for (const k of ['MALLOC_ARENA_MAX', 'KUBEGEN_MEMORY_POLICY', 'NODE_OPTIONS']) if (!opts.env || !(k in opts.env)) delete env[k];
  const r = spawnSync(process.execPath, [...(opts.flags ?? []), '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000, env });
  const lines = r.stderr.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: string; msg: string });
  return { status: r.status, stdout: r.stdout, lines, ms: performance.now() - started };
}

describe('runMain', () => {
  it('a main that fails: one error line naming the cause, exit 1', () => {
    const r = run(`await runMain(async () => { throw new Error('webhook server: cannot read tls.crt'); });`);
    assert.equal(r.status, 1);
    assert.deepEqual(r.lines.map((l) => [l.level, l.msg]), [['error', 'manager failed']]);
    assert.match(String(r.lines[0]!.error), /webhook server: cannot read tls\.crt/);
  });

  it('a main that fails while something keeps the process alive: ended after the grace period, naming what was left', () => {
    const r = run(`setInterval(() => {}, 1000);\nawait runMain(async () => { throw new Error('boom'); }, { exitGraceMs: 300 });`);
    assert.equal(r.status, 1);
    assert.deepEqual(r.lines.map((l) => l.msg), ['manager failed', 'the process did not end on its own; exiting']);
    assert.ok(r.lines[1]!.left?.includes('Timeout'), JSON.stringify(r.lines[1]));
  });

  it('a main that ends cleanly but leaves a handle behind: exit 0 after the grace period', () => {
    const r = run(`await runMain(async () => { setInterval(() => {}, 1000); }, { exitGraceMs: 300 });`);
    assert.equal(r.status, 0);
    assert.deepEqual(r.lines.map((l) => [l.level, l.msg, l.exitCode]), [['error', 'the process did not end on its own; exiting', 0]]);
  });

  it('takes the memory policy before main whatever the caller set: missing flags and MALLOC_ARENA_MAX added, the caller\'s kept', () => {
    const report = `await runMain(async () => { console.log(JSON.stringify({ argv: process.execArgv.filter((a) => a.startsWith('--') && a !== '--input-type=module'), arenas: process.env.MALLOC_ARENA_MAX ?? null, pid: process.pid })); });`;
    const bare = run(report);
    assert.equal(bare.status, 0, JSON.stringify(bare.lines));
    assert.deepEqual(JSON.parse(bare.stdout), { ...JSON.parse(bare.stdout), argv: ['--max-semi-space-size=1', '--no-concurrent-recompilation'], arenas: '2' });
    const own = run(report, { flags: ['--max-semi-space-size=8'], env: { NODE_OPTIONS: '--max-old-space-size=300', MALLOC_ARENA_MAX: '4' } });
    assert.deepEqual(JSON.parse(own.stdout).argv, ['--no-concurrent-recompilation', '--max-semi-space-size=8'], 'the caller\'s semi-space size stays');
    assert.equal(JSON.parse(own.stdout).arenas, '4');
    const off = run(report, { env: { KUBEGEN_MEMORY_POLICY: 'off' } });
    assert.deepEqual(JSON.parse(off.stdout).argv, []);
    assert.equal(JSON.parse(off.stdout).arenas, null);
  });
});
