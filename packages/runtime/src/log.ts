/**
 * The runtime's structured logger contract: one line per call, a message plus key/value fields.
 * The default writes JSON lines to stderr; pass your own (pino, winston, console) by implementing `Logger`.
 */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines all carry `fields`. */
  child(fields: Record<string, unknown>): Logger;
}

export type LogLevel = 'debug' | 'info' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, error: 2, silent: 3 };

/** JSON-lines logger: `{"ts":"…","level":"info","msg":"…",...fields}`. Errors in fields are flattened to messages. */
export class JsonLogger implements Logger {
  constructor(
    private readonly level: LogLevel = envLevel(),
    private readonly fields: Record<string, unknown> = {},
    private readonly write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  ) {}
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.log('info', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.log('error', msg, fields);
  }
  child(fields: Record<string, unknown>): Logger {
    return new JsonLogger(this.level, { ...this.fields, ...fields }, this.write);
  }
  private log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    if (ORDER[level] < ORDER[this.level]) return;
    const rec: Record<string, unknown> = { ts: new Date().toISOString(), level, msg, ...this.fields };
    for (const [k, v] of Object.entries(fields ?? {})) rec[k] = v instanceof Error ? v.message : v;
    this.write(JSON.stringify(rec));
  }
}

function envLevel(): LogLevel {
  const v = process.env['KUBEGEN_LOG_LEVEL'];
  return v === 'debug' || v === 'info' || v === 'error' || v === 'silent' ? v : 'info';
}

/** A logger that drops everything. */
export const nullLogger: Logger = {
  debug() {},
  info() {},
  error() {},
  child() {
    return nullLogger;
  },
};

let defaultLogger: Logger = new JsonLogger();

/** The logger runtime parts use when none is passed in. */
export function getLogger(): Logger {
  return defaultLogger;
}

export function setLogger(logger: Logger): void {
  defaultLogger = logger;
}
