// JSON-lines logger: one object per line with level, ts, msg and the fields of every parent logger.
import type { Clock } from './clock.js';
import type { LogFields, Logger } from './logger.js';

export interface LoggerOptions {
  /** -v verbosity: debug(msg, fields, n) prints when n <= level. Default 0. A negative level also silences info. */
  level?: number;
  /** Where lines go; default process.stderr. */
  stream?: NodeJS.WritableStream;
  fields?: LogFields;
  clock?: Clock;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return new JsonLogger(opts.level ?? 0, opts.stream ?? process.stderr, opts.fields ?? {}, opts.clock);
}

/** A logger that drops everything: for tests and libraries given no logger. */
export function nullLogger(): Logger {
  const l: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => l };
  return l;
}

class JsonLogger implements Logger {
  constructor(
    private readonly level: number,
    private readonly stream: NodeJS.WritableStream,
    private readonly fields: LogFields,
    private readonly clock: Clock | undefined,
  ) {}

  error(msg: string, fields?: LogFields): void {
    this.write('error', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.write('warn', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    if (this.level >= 0) this.write('info', msg, fields);
  }
  debug(msg: string, fields?: LogFields, level = 1): void {
    if (level <= this.level) this.write('debug', msg, { ...fields, v: level });
  }
  child(fields: LogFields): Logger {
    return new JsonLogger(this.level, this.stream, { ...this.fields, ...fields }, this.clock);
  }

  private write(level: string, msg: string, fields?: LogFields): void {
    const ts = new Date(this.clock ? this.clock.now() : Date.now()).toISOString();
    const line = { level, ts, msg, ...this.fields, ...fields };
    this.stream.write(safeStringify(line) + '\n');
  }
}

/** Errors become their message (and cause messages); cycles and bigints never make logging throw. */
export function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Error) return errorText(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[Circular]';
      seen.add(v);
    }
    return v;
  });
}

/**
 * An error's message followed by its causes'. A cause whose message the text already holds is left out: an
 * error that wraps another usually repeats its message (`failed to sync machines: DELETE ...: socket hang
 * up`), and printing the chain in full would say the same thing once per level.
 */
function errorText(err: Error): string {
  let text = err.message;
  let cause: unknown = err.cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    const message = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : JSON.stringify(cause);
    if (!text.includes(message)) text += `: ${message}`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}
