import { traceLogFields } from './tracing/otel.js';


/**
 * The runtime's structured logger contract: one line per call, a message plus key/value fields.
 *
 * The default logger writes to stderr, human-readable text when stderr is a terminal and JSON lines otherwise (zap's
 * development/production split, as controller-runtime's `--zap-devel`). Level and format come from
 * `KUBEGEN_LOG_LEVEL` / `KUBEGEN_LOG_FORMAT`, or from the `--log-level` / `--log-format` flags a program declares
 * with {@link LOG_FLAGS} and applies with {@link setupLogging}. Any other logger (pino: {@link pinoLogger}, winston,
 * console) plugs in by implementing `Logger` and passing it to `setLogger` or to a component's `logger` option.
 */
export interface Logger {
  /** Detail for debugging: shown only at level `debug`. */
  debug(msg: string, fields?: Record<string, unknown>): void;
  /** Normal operation worth recording (started, synced, leader elected). */
  info(msg: string, fields?: Record<string, unknown>): void;
  /** Something went wrong and is being handled (a retry, a fallback); nobody needs to act yet. */
  warn(msg: string, fields?: Record<string, unknown>): void;
  /** An operation failed. */
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines all carry `fields` (a child's own fields win over its parent's of the same name). */
  child(fields: Record<string, unknown>): Logger;
}

/** Least severe level written; `silent` writes nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
/** `json`: one JSON object per line. `text`: `<time> <LEVEL> <msg> <fields as JSON>`, for people. */
export type LogFormat = 'json' | 'text';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };
const LEVELS = Object.keys(ORDER) as LogLevel[];

/** Settings of {@link createLogger}: level, format, destination and fixed fields; all optional. */
export interface LoggerOptions {
  /** Default: `KUBEGEN_LOG_LEVEL`, else `info`. */
  level?: LogLevel;
  /** `auto` (the default): `KUBEGEN_LOG_FORMAT` if set, else text when the output is a terminal, JSON otherwise. */
  format?: LogFormat | 'auto';
  /** Where lines go (without the newline). Default: stderr. */
  write?: (line: string) => void;
  /** Whether the output is a terminal, for `auto`. Default: `process.stderr.isTTY`. */
  isTTY?: boolean;
  /** Fields every line carries. */
  fields?: Record<string, unknown>;
}

/** A logger writing lines in `format`; see {@link LoggerOptions} for the defaults. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? envLevel();
  const write = opts.write ?? writeStderrLine;
  return new LineLogger(level, resolveFormat(opts.format ?? 'auto', opts.isTTY), opts.fields ?? {}, write);
}

function resolveFormat(format: LogFormat | 'auto', isTTY: boolean | undefined): LogFormat {
  if (format !== 'auto') return format;
  const env = process.env['KUBEGEN_LOG_FORMAT'];
  if (env === 'json' || env === 'text') return env;
  return (isTTY ?? process.stderr.isTTY === true) ? 'text' : 'json';
}

class LineLogger implements Logger {
  constructor(
    private readonly level: LogLevel,
    private readonly format: LogFormat,
    private readonly fields: Record<string, unknown>,
    private readonly write: (line: string) => void,
  ) {}
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.log('error', msg, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return new LineLogger(this.level, this.format, { ...this.fields, ...fields }, this.write);
  }
  private log(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>): void {
    if (ORDER[level] < ORDER[this.level]) return;
    const ts = new Date().toISOString();
    const own: Record<string, unknown> = { ...this.fields };
    for (const [k, v] of Object.entries(fields ?? {})) own[k] = v instanceof Error ? errorText(v) : v;
    // A line written while a span is current names it (tracing on only; a reconcile's logger carries its own).
    if (own['trace_id'] === undefined) Object.assign(own, traceLogFields());
    if (this.format === 'json') {
      this.write(safeStringify({ ts, level, msg, ...own }));
    } else {
      const rest = Object.keys(own).length > 0 ? `\t${safeStringify(own)}` : '';
      this.write(`${ts}\t${level.toUpperCase()}\t${msg}${rest}`);
    }
  }
}

/**
 * The default destination: lines gathered over one turn of the event loop and written to stderr in one call (a
 * sync-reconcile burst of a thousand lines is a handful of writes, not a thousand: 20,000 JSON lines to a pipe took
 * 160 ms of CPU one write each, 65 ms batched). What is pending is written at once when the process exits, so
 * `process.exit()` after a log call loses nothing; only a SIGKILL within the same turn does.
 */
let pendingLines: string[] = [];
let pendingBytes = 0;
let flushScheduled = false;
let exitHookInstalled = false;
const FLUSH_BYTES = 64 * 1024;

function writeStderrLine(line: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', flushStderr);
  }
  pendingLines.push(line);
  pendingBytes += line.length + 1;
  if (pendingBytes >= FLUSH_BYTES) flushStderr();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushStderr);
  }
}

function flushStderr(): void {
  flushScheduled = false;
  if (pendingLines.length === 0) return;
  const chunk = pendingLines.join('\n') + '\n';
  pendingLines = [];
  pendingBytes = 0;
  process.stderr.write(chunk);
}

/**
 * JSON.stringify that never throws (BigInt as a string, cycles as "[Circular]"): a log call must not fail. The plain
 * call first (a replacer function costs a call per key); the careful one only when that throws.
 */
function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return carefulStringify(value);
  }
}

function carefulStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[Circular]';
      seen.add(v);
    }
    return v;
  });
}

/** JSON-lines logger: `{"ts":"…","level":"info","msg":"…",...fields}`. Errors in fields are flattened to messages. */
export class JsonLogger implements Logger {
  private readonly inner: Logger;
  constructor(level: LogLevel = envLevel(), fields: Record<string, unknown> = {}, write?: (line: string) => void) {
    this.inner = createLogger({ level, format: 'json', fields, ...(write ? { write } : {}) });
  }
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.inner.debug(msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.inner.info(msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.inner.warn(msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.inner.error(msg, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return this.inner.child(fields);
  }
}

/**
 * An error that names the request it answered, for log lines: the client's `ApiError` is one. The logger knows
 * errors by this shape only, so that it needs nothing of the client.
 */
export interface RequestDescribingError extends Error {
  /** The request, as `list services/v1 (Service) in namespace ns`; undefined when the error does not know it. */
  readonly requestDescription: string | undefined;
}

/**
 * An error as a log field: its message, and for an error that names its request (an API error) that request
 * (`list services/v1 (Service) in namespace ns`), so that every line about a failing request names the kind, the verb
 * and the object.
 */
function errorText(err: Error): string {
  const request = (err as Partial<RequestDescribingError>).requestDescription;
  return typeof request === 'string' ? `${err.message} (request: ${request})` : err.message;
}

/** Reads a level name (`debug`, `info`, `warn`, `error`, `silent`); throws a TypeError naming the choices. */
export function parseLogLevel(value: string): LogLevel {
  if ((LEVELS as string[]).includes(value)) return value as LogLevel;
  throw new TypeError(`invalid log level "${value}" (use one of ${LEVELS.join(', ')})`);
}

function envLevel(): LogLevel {
  const v = process.env['KUBEGEN_LOG_LEVEL'];
  return v !== undefined && (LEVELS as string[]).includes(v) ? (v as LogLevel) : 'info';
}

/**
 * `node:util` `parseArgs` options for `--log-level` and `--log-format`: spread them into a program's options and pass
 * the parsed values to {@link setupLogging}.
 */
export const LOG_FLAGS = {
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
} as const;

/**
 * Sets the default logger from parsed `--log-level` (debug, info, warn, error, silent; default `KUBEGEN_LOG_LEVEL`,
 * else info) and `--log-format` (json, text, auto; default auto) and returns it. Throws a TypeError for a bad value.
 */
export function setupLogging(flags: { 'log-level'?: string | undefined; 'log-format'?: string | undefined }): Logger {
  const format = flags['log-format'];
  if (format !== undefined && format !== 'json' && format !== 'text' && format !== 'auto') {
    throw new TypeError(`invalid log format "${format}" (use json, text or auto)`);
  }
  const level = flags['log-level'];
  const logger = createLogger({ ...(level !== undefined ? { level: parseLogLevel(level) } : {}), ...(format !== undefined ? { format } : {}) });
  setLogger(logger);
  return logger;
}

/** The part of a pino logger {@link pinoLogger} uses (pino's `(mergingObject, message)` call form and `child`). */
export interface PinoLike {
  debug(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
  child(bindings: Record<string, unknown>): PinoLike;
}

/**
 * A `Logger` over a pino logger: `pinoLogger(pino({ level: 'debug' }))`. Levels map one to one (pino's own level
 * decides what is written); fields become pino's merging object, child fields pino bindings. Error values in fields
 * are passed as their message, as the built-in loggers do. The runtime does not depend on pino: install it yourself.
 */
export function pinoLogger(pino: PinoLike): Logger {
  const flat = (fields: Record<string, unknown> | undefined): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields ?? {})) out[k] = v instanceof Error ? v.message : v;
    return out;
  };
  return {
    debug: (msg, fields) => pino.debug(flat(fields), msg),
    info: (msg, fields) => pino.info(flat(fields), msg),
    warn: (msg, fields) => pino.warn(flat(fields), msg),
    error: (msg, fields) => pino.error(flat(fields), msg),
    child: (fields) => pinoLogger(pino.child(flat(fields))),
  };
}

/** A logger that drops everything. */
export const nullLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return nullLogger;
  },
};

let defaultLogger: Logger = createLogger();

/** The logger runtime parts use when none is passed in. */
export function getLogger(): Logger {
  return defaultLogger;
}

/** Replaces the default logger. Components created afterwards (and `getLogger()` callers) use it. */
export function setLogger(logger: Logger): void {
  defaultLogger = logger;
}
