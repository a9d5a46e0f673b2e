import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions } from './options.js';

describe('kv-store options', () => {
  it('defaults: PodDisruptionBudget version from discovery, 2 workers, controller-runtime\'s ports', () => {
    const o = parseOptions([]);
    assert.deepEqual([o.kubeconfig, o.pdbVersion, o.workers, o.metricsBindAddress, o.healthProbeBindAddress], [undefined, 'auto', 2, ':8080', ':8081']);
  });

  it('takes a PodDisruptionBudget version as said', () => {
    assert.equal(parseOptions(['--pdb-version=policy/v1']).pdbVersion, 'policy/v1');
    assert.equal(parseOptions(['--pdb-version', 'policy/v1beta1', '--kubeconfig', '/k']).pdbVersion, 'policy/v1beta1');
  });

  it('refuses bad values, naming the flag, with the usage', () => {
    assert.throws(() => parseOptions(['--pdb-version=v1']), /--pdb-version must be auto, policy\/v1 or policy\/v1beta1, got v1\n[\s\S]*usage: node dist\/src\/main\.js/);
    assert.throws(() => parseOptions(['--workers=0']), /--workers must be a positive integer, got 0/);
    assert.throws(() => parseOptions(['--namespace=x']), /namespace[\s\S]*usage:/);
    assert.throws(() => parseOptions(['--help']), /^TypeError: usage:/);
  });
});
