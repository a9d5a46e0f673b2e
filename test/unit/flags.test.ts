/** goBooleanFlags: Go-style `--flag=true|false` for node:util parseArgs; parseFlags, the examples' command-line reader. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseArgs } from 'node:util';
import { parseFlags } from '@kubegen/runtime';
import { goBooleanFlags } from '@kubegen/runtime/manager';

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

it('parseFlags: typed values, Go booleans, the usage after every refusal and alone for --help', () => {
  const table = { ...options, workers: { type: 'string', default: '2' }, help: { type: 'boolean', short: 'h', default: false } } as const;
  const usage = 'usage: x [--workers=N]';
  const values = parseFlags(['--workers', '4', '--leader-elect=true'], table, usage);
  const workers: string = values.workers;
  assert.equal(workers, '4');
  assert.equal(values['leader-elect'], true);
  assert.equal(values['metrics-secure'], true);
  assert.throws(() => parseFlags(['--bogus'], table, usage), (err: Error) => err instanceof TypeError && /^Unknown option '--bogus'.*\nusage: x/s.test(err.message));
  assert.throws(() => parseFlags(['extra'], table, usage), (err: Error) => err instanceof TypeError && err.message.endsWith(`\n${usage}`));
  assert.throws(() => parseFlags(['--metrics-secure=maybe'], table, usage), /--metrics-secure takes true or false, got "maybe"\nusage: x/);
  assert.throws(() => parseFlags(['-h'], table, usage), (err: Error) => err instanceof TypeError && err.message === usage);
});
