/** The fleet-config example's flags: defaults, durations, and refusals that name the flag. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions } from '../../examples/fleet-config/src/options.js';

describe('fleet-config options', () => {
  it('needs only --clusters-namespace; defaults as controller-runtime', () => {
    const o = parseOptions(['--clusters-namespace=fleet-system']);
    assert.deepEqual(
      [o.clustersNamespace, o.kubeconfig, o.workers, o.memberTimeoutMs, o.metricsBindAddress, o.healthProbeBindAddress],
      ['fleet-system', undefined, 2, 30_000, ':8080', ':8081'],
    );
  });

  it('reads the hub kubeconfig, workers and the member timeout', () => {
    const o = parseOptions(['--kubeconfig', '/tmp/hub', '--clusters-namespace', 'ns', '--workers=4', '--member-timeout=500ms']);
    assert.deepEqual([o.kubeconfig, o.clustersNamespace, o.workers, o.memberTimeoutMs], ['/tmp/hub', 'ns', 4, 500]);
  });

  it('refuses a missing namespace and bad values, naming the flag, with the usage', () => {
    assert.throws(() => parseOptions([]), /--clusters-namespace is required[\s\S]*usage: node dist\/main\.js --clusters-namespace=NS/);
    assert.throws(() => parseOptions(['--clusters-namespace=ns', '--workers=0']), /--workers must be a positive integer, got 0/);
    assert.throws(() => parseOptions(['--clusters-namespace=ns', '--member-timeout=30']), /--member-timeout must be a duration/);
    assert.throws(() => parseOptions(['--clusters-namespace=ns', '--namespace=x']), /namespace/);
  });
});
