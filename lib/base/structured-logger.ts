// The logger every binary writes through: klog's text format by default, the Kubernetes JSON format with
// format: 'json'. A child logger carries key/value pairs (controller, key, reconcileID) before the call's own;
// a key given again replaces the earlier pair, as klog does.
import { performance } from 'node:perf_hooks';
import type { Clock } from './clock.js';
import { callerOf } from './log-caller.js';
import { klogJsonLine } from './klog-json.js';
import type { CallerLocation, LogFormat, LogRecord, Severity } from './log-record.js';
import { klogTextLine } from './klog-text.js';
import type { LogFields, Logger } from './logger.js';
import { parseVmodule, vmoduleLevel, type VmoduleFilter } from './vmodule.js';

export { errorText, safeStringify } from './log-values.js';

export interface LoggerOptions {
  /** -v verbosity: debug(msg, fields, n) prints when n <= level. Default 0. A negative level also silences info. */
  level?: number;
  /** Where lines go; default process.stderr. */
  stream?: NodeJS.WritableStream;
  fields?: LogFields;
  /** Default the wall clock, read to the microsecond. */
  clock?: Clock;
  /** 'text' (klog's, the default) or 'json' (Kubernetes'). */
  format?: LogFormat;
  /** klog's --skip_headers (text format). */
  skipHeaders?: boolean;
  /** klog's --add_dir_header (text format). */
  addDirHeader?: boolean;
  /** The pid the text header shows; default this process's. */
  pid?: number;
  /** klog's --vmodule ("pattern=N,..."): per-file verbosity above `level`. Throws VmoduleSyntaxError when malformed. */
  vmodule?: string;
}

type Fields = ReadonlyArray<readonly [string, unknown]>;

interface Sink {
  level: number;
  vmodule: readonly VmoduleFilter[];
  /** vmodule's level per source file, worked out once each. */
  fileLevels: Map<string, number>;
  stream: NodeJS.WritableStream;
  now: () => number;
  format: (r: LogRecord) => string;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const text = { pid: opts.pid ?? process.pid, skipHeaders: opts.skipHeaders, addDirHeader: opts.addDirHeader };
  const clock = opts.clock;
  const sink: Sink = {
    level: opts.level ?? 0,
    vmodule: opts.vmodule ? parseVmodule(opts.vmodule) : [],
    fileLevels: new Map(),
    stream: opts.stream ?? process.stderr,
    now: clock ? () => clock.now() : wallClockMs,
    format: opts.format === 'json' ? klogJsonLine : (r) => klogTextLine(r, text),
  };
  return new StructuredLogger(sink, mergeFields([], opts.fields));
}

/** A logger that drops everything: for tests and libraries given no logger. */
export function nullLogger(): Logger {
  const l: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => l };
  return l;
}

class StructuredLogger implements Logger {
  constructor(
    private readonly sink: Sink,
    private readonly fields: Fields,
  ) {}

  error(msg: string, fields?: LogFields): void {
    // The `error` key of an error line is the line's error: klog's (and logr's) err.
    const { error, ...rest } = fields ?? {};
    this.write('E', 0, msg, rest, error, this.error);
  }
  warn(msg: string, fields?: LogFields): void {
    this.write('W', 0, msg, fields, undefined, this.warn);
  }
  info(msg: string, fields?: LogFields): void {
    if (this.sink.level >= 0) this.write('I', 0, msg, fields, undefined, this.info);
  }
  debug(msg: string, fields?: LogFields, level = 1): void {
    if (level <= this.sink.level) this.write('I', level, msg, fields, undefined, this.debug);
    else if (this.sink.vmodule.length > 0) {
      // Only with --vmodule does a line above -v cost a look at its caller.
      const caller = callerOf(this.debug);
      if (caller && level <= this.fileLevel(caller.file)) this.write('I', level, msg, fields, undefined, caller);
    }
  }
  child(fields: LogFields): Logger {
    return new StructuredLogger(this.sink, mergeFields(this.fields, fields));
  }

  private fileLevel(file: string): number {
    let level = this.sink.fileLevels.get(file);
    if (level === undefined) {
      level = vmoduleLevel(this.sink.vmodule, file);
      this.sink.fileLevels.set(file, level);
    }
    return level;
  }

  private write(
    severity: Severity,
    v: number,
    msg: string,
    fields: LogFields | undefined,
    err: unknown,
    // The logger method called (its caller is looked up), or the caller already known.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    at: Function | CallerLocation,
  ): void {
    const record: LogRecord = {
      severity,
      v,
      timeMs: this.sink.now(),
      caller: typeof at === 'function' ? callerOf(at) : at,
      msg,
      err,
      fields: mergeFields(this.fields, fields),
    };
    this.sink.stream.write(this.sink.format(record));
  }
}

/** klog's rule for a repeated key: the same value keeps its first place, a new value replaces it at the end. */
function mergeFields(base: Fields, more: LogFields | undefined): Fields {
  if (!more) return base;
  const keys = Object.keys(more);
  if (keys.length === 0) return base;
  const out = base.slice();
  for (const k of keys) {
    const v = more[k];
    const i = out.findIndex((e) => e[0] === k);
    if (i >= 0) {
      if (Object.is(out[i]?.[1], v)) continue;
      out.splice(i, 1);
    }
    out.push([k, v]);
  }
  return out;
}

/** Where the monotonic clock's zero lies on the wall clock; moved when the wall clock is stepped (NTP). */
let monotonicOrigin = performance.timeOrigin;

/** The wall clock to the microsecond: the monotonic clock, re-anchored whenever it leaves the wall clock's millisecond. */
function wallClockMs(): number {
  const mono = performance.now();
  const wall = Date.now();
  const t = monotonicOrigin + mono;
  if (t >= wall && t < wall + 1) return t;
  monotonicOrigin = wall - mono;
  return wall;
}
