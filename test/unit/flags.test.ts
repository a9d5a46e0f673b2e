/** goBooleanFlags: Go-style `--flag=true|false` for node:util parseArgs. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseArgs } from 'node:util';
import { goBooleanFlags } from '@kubegen/runtime';

const options = {
  'metrics-secure': { type: 'boolean', default: true },
  'leader-elect': { type: 'boolean', default: false },
  kubeconfig: { type: 'string' },
} as const;
const parse = (...args: string[]) => ({ ...parseArgs({ args: goBooleanFlags(args, options), options, strict: true, allowNegative: true }).values });

it('goBooleanFlags: --flag=false and --flag=true for boolean options, other flags untouched, bad values refused', () => {
  assert.deepEqual(parse(), { 'metrics-secure': true, 'leader-elect': false });
  assert.deepEqual(parse('--metrics-secure=false', '--leader-elect=true'), { 'metrics-secure': false, 'leader-elect': true });
  assert.deepEqual(parse('--no-metrics-secure', '--leader-elect'), { 'metrics-secure': false, 'leader-elect': true });
  assert.deepEqual(parse('--kubeconfig=false'), { 'metrics-secure': true, 'leader-elect': false, kubeconfig: 'false' });
  assert.throws(() => parse('--metrics-secure=no'), /--metrics-secure takes true or false, got "no"/);
  assert.throws(() => parse('--bogus=false'), /Unknown option '--bogus'/);
});
