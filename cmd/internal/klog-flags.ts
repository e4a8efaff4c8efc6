// The logging flags of Go's klog, which the machine-api-operator passes to every container
// (`--logtostderr=true --v=3`) and which admins add when debugging (`--alsologtostderr`, `--vmodule`), and
// component-base's `--logging-format`. Lines go to stderr, in klog's text format or with
// `--logging-format=json` in the Kubernetes JSON format. `--v`, `--vmodule`, `--skip_headers` and
// `--add_dir_header` act as in klog; the file options (stderr is the only destination, which is what
// `--logtostderr=true` asks for) and `--log_backtrace_at` are accepted, checked for well-formed values and
// otherwise have no effect.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { LOG_FORMATS, parseVmodule, type LogFormat } from '../../lib/index.js';
import { goBoolArgument } from './go-bool.js';
import { intArg } from './int-argument.js';

/** What the logging flags ask of the logger: createLogger's options of the same names. */
export interface LoggingFlags {
  /** -v */
  level: number;
  format: LogFormat;
  skipHeaders: boolean;
  addDirHeader: boolean;
  /** klog's pattern=N list, checked; undefined when not given. */
  vmodule?: string;
}

const severities = new Set(['INFO', 'WARNING', 'ERROR', 'FATAL', '0', '1', '2', '3']);

function severity(value: string): string {
  if (!severities.has(value.toUpperCase())) {
    throw new InvalidArgumentError(
      `--stderrthreshold must be one of INFO, WARNING, ERROR, FATAL (or 0-3), got ${JSON.stringify(value)}`,
    );
  }
  return value.toUpperCase();
}

function vmodule(value: string): string {
  try {
    parseVmodule(value);
  } catch (err) {
    throw new InvalidArgumentError(`--vmodule: ${(err as Error).message}`);
  }
  return value;
}

function logFormat(value: string): LogFormat {
  const format = LOG_FORMATS.find((f) => f === value);
  if (!format) {
    throw new InvalidArgumentError(
      `--logging-format must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return format;
}

const noEffect = '(klog compatibility: logs always go to stderr)';

/** Adds klog's flags; bool flags take Go's forms: `--logtostderr`, `--logtostderr=true`, `--logtostderr=0`. */
export function addKlogFlags(cmd: Command): Command {
  for (const [flag, what] of [
    ['logtostderr', `log to standard error instead of files ${noEffect}`],
    ['alsologtostderr', `log to standard error as well as files ${noEffect}`],
    ['add_dir_header', "add the caller's folder to the file name in the log header"],
    ['skip_headers', 'leave out the header (severity, time, pid, file:line) of text log lines'],
    ['skip_log_headers', `avoid headers when opening log files ${noEffect}`],
    ['one_output', `write each severity to its own file only ${noEffect}`],
  ] as const) {
    cmd.addOption(new Option(`--${flag} [bool]`, what).argParser(goBoolArgument(`--${flag}`)));
  }
  return cmd
    .addOption(
      new Option('--stderrthreshold <severity>', `logs at or above this severity go to stderr ${noEffect}`).argParser(
        severity,
      ),
    )
    .addOption(new Option('--log_dir <dir>', `directory for log files ${noEffect}`))
    .addOption(new Option('--log_file <path>', `log file path ${noEffect}`))
    .addOption(
      new Option('--log_file_max_size <mb>', `maximum log file size in MB ${noEffect}`).argParser(
        intArg('--log_file_max_size', 0),
      ),
    )
    .addOption(new Option('--log_backtrace_at <file:line>', `emit a stack trace at this logging line ${noEffect}`))
    .addOption(
      new Option(
        '--vmodule <pattern=N,...>',
        'per-file verbosity: comma-separated file-name patterns (without .ts/.js) and levels, e.g. machine-controller=4',
      ).argParser(vmodule),
    )
    .addOption(
      new Option('-v, --v <level>', 'number for the log level verbosity (klog levels: higher is more verbose)')
        .default(0)
        .argParser(intArg('-v', 0)),
    )
    .addOption(
      new Option('--logging-format <format>', "log format: text (klog's) or json (Kubernetes' JSON lines)")
        .default('text')
        .argParser(logFormat),
    );
}

/** The logging flags of a command that had addKlogFlags applied. */
export function readLoggingFlags(opts: Record<string, unknown>): LoggingFlags {
  return {
    level: opts.v as number,
    format: opts.loggingFormat as LogFormat,
    skipHeaders: opts.skip_headers === true,
    addDirHeader: opts.add_dir_header === true,
    ...(typeof opts.vmodule === 'string' && opts.vmodule !== '' ? { vmodule: opts.vmodule } : {}),
  };
}
