import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

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
});
