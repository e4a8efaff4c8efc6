// The logging flags of Go's klog, which the machine-api-operator passes to every container
// (`--logtostderr=true --v=3`) and which admins add when debugging (`--alsologtostderr`, `--vmodule`).
// These binaries always write structured JSON lines to stderr, which is what `--logtostderr=true` asks
// for; the file and header options of klog have nothing to act on, so they are accepted, checked for
// well-formed values and otherwise have no effect. `--v` is a standard flag with its full meaning.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { goBoolArgument } from './go-bool.js';
import { intArg } from './int-argument.js';

const severities = new Set(['INFO', 'WARNING', 'ERROR', 'FATAL', '0', '1', '2', '3']);

function severity(value: string): string {
  if (!severities.has(value.toUpperCase())) {
    throw new InvalidArgumentError(
      `--stderrthreshold must be one of INFO, WARNING, ERROR, FATAL (or 0-3), got ${JSON.stringify(value)}`,
    );
  }
  return value.toUpperCase();
}

const noEffect = '(klog compatibility: logs always go to stderr as JSON lines)';

/** Adds klog's flags; bool flags take Go's forms: `--logtostderr`, `--logtostderr=true`, `--logtostderr=0`. */
export function addKlogFlags(cmd: Command): Command {
  for (const [flag, what] of [
    ['logtostderr', 'log to standard error instead of files'],
    ['alsologtostderr', 'log to standard error as well as files'],
    ['add_dir_header', 'add the file directory to the log header'],
    ['skip_headers', 'avoid header prefixes in log messages'],
    ['skip_log_headers', 'avoid headers when opening log files'],
    ['one_output', 'write each severity to its own file only'],
  ] as const) {
    cmd.addOption(new Option(`--${flag} [bool]`, `${what} ${noEffect}`).argParser(goBoolArgument(`--${flag}`)));
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
    .addOption(new Option('--vmodule <pattern=N,...>', `per-file verbosity ${noEffect}`));
}
