import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ManagedProcess } from '@kubegen/runtime/internal/testing/envtest/envtest-process.js';

const run = promisify(execFile);

describe('ManagedProcess', () => {
  it('stop() resolves once the process is gone even when nothing else keeps the event loop alive', async () => {
    // In a process of its own with no other handles: the child is unref'd, so stop() must hold the loop itself
    // until the exit arrives (with a grace of 0 nothing else does).
    const url = import.meta.resolve('@kubegen/runtime/internal/testing/envtest/envtest-process.js');
    const script = `
      const { ManagedProcess } = await import(${JSON.stringify(url)});
      const p = new ManagedProcess({ name: 'sleep', command: 'sleep', args: ['30'] });
      await p.stop(0);
      console.log('stopped', p.done);
    `;
    const { stdout } = await run(process.execPath, ['--conditions=kubegen-internal', '--input-type=module', '-e', script], { timeout: 20_000 });
    assert.equal(stdout.trim(), 'stopped true');
  });

  it('output() keeps the line that says why a Go program died ahead of the goroutine dump that follows it', async () => {
    const dump = Array.from({ length: 60 }, (_, i) => `goroutine ${i} [select]:`).join('\n');
    const script = `echo 'I1124 starting'; echo 'F1124 06:10:55.496185 hollow_kubelet.go:136] Failed to run HollowKubelet: open /dev/kmsg: operation not permitted'; printf '%s\\n' '${dump}'; exit 255`;
    const p = new ManagedProcess({ name: 'crash', command: 'sh', args: ['-c', script] });
    await p.waitExit();
    const out = p.output().split('\n');
    assert.equal(out[0], 'F1124 06:10:55.496185 hollow_kubelet.go:136] Failed to run HollowKubelet: open /dev/kmsg: operation not permitted');
    assert.equal(out[1], '[...]');
    assert.equal(out.at(-1), 'goroutine 59 [select]:');
    assert.ok(!out.includes('I1124 starting'));
    const quiet = new ManagedProcess({ name: 'fine', command: 'sh', args: ['-c', 'echo one; echo two'] });
    await quiet.waitExit();
    assert.equal(quiet.output(), 'one\ntwo', 'nothing added when no fatal line scrolled out');
  });
});
