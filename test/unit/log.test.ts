/**
 * The runtime's loggers (issue 10): levels, text vs JSON (chosen by terminal, env or flag), child fields, the
 * `--log-level`/`--log-format` flags, and the pino adapter against a real pino.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { afterEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { createLogger, getLogger, LOG_FLAGS, setupLogging } from '@kubegen/runtime';
import { JsonLogger, parseLogLevel, pinoLogger, setLogger } from '@kubegen/runtime/log';
import type { Logger } from '@kubegen/runtime';
import { ApiError } from '@kubegen/runtime';
import { newStatus } from '@kubegen/runtime/client';

function capture(opts: Parameters<typeof createLogger>[0] = {}): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger({ ...opts, write: (l) => void lines.push(l) }), lines };
}

describe('createLogger', () => {
  const saved = { level: process.env['KUBEGEN_LOG_LEVEL'], format: process.env['KUBEGEN_LOG_FORMAT'], logger: getLogger() };
  afterEach(() => {
    for (const [k, v] of [['KUBEGEN_LOG_LEVEL', saved.level], ['KUBEGEN_LOG_FORMAT', saved.format]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    setLogger(saved.logger);
  });

  it('writes the four levels in order and drops what is below the level; silent writes nothing', () => {
    const { log, lines } = capture({ level: 'warn', format: 'json' });
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    assert.deepEqual(lines.map((l) => [JSON.parse(l).level, JSON.parse(l).msg]), [['warn', 'w'], ['error', 'e']]);
    const all = capture({ level: 'debug', format: 'json' });
    for (const level of ['debug', 'info', 'warn', 'error'] as const) all.log[level](level);
    assert.deepEqual(all.lines.map((l) => JSON.parse(l).level), ['debug', 'info', 'warn', 'error']);
    const silent = capture({ level: 'silent', format: 'json' });
    silent.log.error('x');
    assert.deepEqual(silent.lines, []);
  });

  it('JSON lines carry ts, level, msg and fields; children add fields, their own win; errors become messages', () => {
    const { log, lines } = capture({ level: 'info', format: 'json', fields: { app: 'a' } });
    const child = log.child({ component: 'c', app: 'b' }).child({ controller: 'foo' });
    child.info('hello', { n: 1, error: new Error('boom'), big: 10n });
    const rec = JSON.parse(lines[0]!);
    assert.match(rec.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual({ ...rec, ts: undefined }, { ts: undefined, level: 'info', msg: 'hello', app: 'b', component: 'c', controller: 'foo', n: 1, error: 'boom', big: '10' });
    log.info('parent unchanged');
    assert.deepEqual(Object.keys(JSON.parse(lines[1]!)), ['ts', 'level', 'msg', 'app']);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    log.info('cycle', { cyclic });
    assert.deepEqual(JSON.parse(lines[2]!).cyclic, { self: '[Circular]' });
  });

  it('an API error that recorded its request names the verb, resource, kind and object', () => {
    const { log, lines } = capture({ level: 'info', format: 'json' });
    const err = new ApiError(newStatus(409, 'Conflict', 'the object has been modified'));
    err.request = { verb: 'update', group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespace: 'ns', name: 'web' };
    log.error('Reconciler error', { error: err, plain: new ApiError(newStatus(500, 'InternalError', 'oops')) });
    const rec = JSON.parse(lines[0]!);
    assert.equal(rec.error, 'the object has been modified (request: update deployments.apps/v1 (Deployment) ns/web)');
    assert.equal(rec.plain, 'oops');
  });

  it('text lines read <time> <LEVEL> <msg> <fields>', () => {
    const { log, lines } = capture({ level: 'info', format: 'text' });
    log.child({ component: 'manager' }).warn('lease lost', { holder: 'x' });
    log.info('plain');
    assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT[\d:.]+Z\tWARN\tlease lost\t\{"component":"manager","holder":"x"\}$/);
    assert.match(lines[1]!, /^\S+\tINFO\tplain$/);
  });

  it('auto format: text on a terminal, JSON otherwise, KUBEGEN_LOG_FORMAT overriding; level from KUBEGEN_LOG_LEVEL', () => {
    delete process.env['KUBEGEN_LOG_FORMAT'];
    assert.match(write(capture({ isTTY: true })), /\tINFO\t/);
    assert.doesNotThrow(() => JSON.parse(write(capture({ isTTY: false }))));
    process.env['KUBEGEN_LOG_FORMAT'] = 'json';
    assert.doesNotThrow(() => JSON.parse(write(capture({ isTTY: true }))));
    process.env['KUBEGEN_LOG_LEVEL'] = 'error';
    const quiet = capture({ format: 'json' });
    quiet.log.warn('hidden');
    assert.deepEqual(quiet.lines, []);
  });

  it('JsonLogger keeps its constructor (level, fields, write) and gains warn', () => {
    const lines: string[] = [];
    const log = new JsonLogger('info', { a: 1 }, (l) => void lines.push(l));
    log.warn('w');
    assert.deepEqual({ ...JSON.parse(lines[0]!), ts: 0 }, { ts: 0, level: 'warn', msg: 'w', a: 1 });
  });
});

function write(c: { log: Logger; lines: string[] }): string {
  c.log.info('x');
  return c.lines[0]!;
}

describe('--log-level and --log-format', () => {
  const saved = getLogger();
  afterEach(() => setLogger(saved));

  it('LOG_FLAGS parse with node:util parseArgs; setupLogging installs the default logger and refuses bad values', () => {
    const { values } = parseArgs({ args: ['--log-level=debug', '--log-format', 'json'], options: { ...LOG_FLAGS }, strict: true });
    assert.deepEqual({ ...values }, { 'log-level': 'debug', 'log-format': 'json' });
    const logger = setupLogging(values);
    assert.equal(getLogger(), logger);
    assert.throws(() => setupLogging({ 'log-level': 'verbose' }), /invalid log level "verbose" \(use one of debug, info, warn, error, silent\)/);
    assert.throws(() => setupLogging({ 'log-format': 'yaml' }), /invalid log format "yaml" \(use json, text or auto\)/);
    assert.equal(parseLogLevel('warn'), 'warn');
  });
});

describe('pinoLogger', () => {
  it('maps levels, fields and child bindings onto a real pino logger', () => {
    const out: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) out.push(JSON.parse(line));
        done();
      },
    });
    const base = pino({ level: 'info', base: undefined, timestamp: false }, stream);
    const log = pinoLogger(base).child({ component: 'manager' });
    log.debug('not written at info');
    log.info('started', { workers: 2 });
    log.warn('retrying', { error: new Error('ECONNREFUSED') });
    log.child({ controller: 'foo' }).error('failed');
    assert.deepEqual(out, [
      { level: 30, component: 'manager', workers: 2, msg: 'started' },
      { level: 40, component: 'manager', error: 'ECONNREFUSED', msg: 'retrying' },
      { level: 50, component: 'manager', controller: 'foo', msg: 'failed' },
    ]);
  });
});
