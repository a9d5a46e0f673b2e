/** The fanout example's flags: defaults, sharding flags, and refusals that name the flag. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions } from '../../examples/fanout/src/options.js';

describe('fanout options', () => {
  it('defaults to one unsharded replica with controller-runtime addresses', () => {
    const o = parseOptions([]);
    assert.equal(o.sharding, false);
    assert.equal(o.shardingMode, 'auto');
    assert.equal(o.workers, 2);
    assert.equal(o.metricsBindAddress, ':8080');
    assert.equal(o.healthProbeBindAddress, ':8081');
  });

  it('reads the sharding flags and Go durations', () => {
    const o = parseOptions(['--sharding', '--sharding-mode=client', '--identity=r0', '--shard-lease-duration=6s', '--shard-renew-deadline=4000ms', '--shard-retry-period=1s', '--workers=4']);
    assert.deepEqual([o.sharding, o.shardingMode, o.identity, o.shardLeaseDurationMs, o.shardRenewDeadlineMs, o.shardRetryPeriodMs, o.workers], [true, 'client', 'r0', 6_000, 4_000, 1_000, 4]);
  });

  it('refuses bad values naming the flag, and sharding flags without --sharding', () => {
    assert.throws(() => parseOptions(['--sharding', '--sharding-mode=ring']), /--sharding-mode must be one of auto, server, client, labels, got ring/);
    assert.throws(() => parseOptions(['--sharding', '--shard-lease-duration=6']), /--shard-lease-duration must be a duration/);
    assert.throws(() => parseOptions(['--identity=r0']), /--identity needs --sharding/);
    assert.throws(() => parseOptions(['--workers=0']), /--workers must be a positive integer/);
    assert.throws(() => parseOptions(['--wrokers=2']), /wrokers/);
  });
});
