// The whole life of a controller binary: parse the standard flags (plus its own), build the manager,
// let the binary register its controllers, run until SIGTERM.
import { Command } from 'commander';
import type { Manager } from '../../lib/index.js';
import { managerFromFlags, type Wiring } from './manager-from-flags.js';
import { runUntilSignal, type SignalSource } from './run-until-signal.js';
import { addStandardFlags, readStandardFlags, type BinaryDefaults, type StandardFlags } from './standard-flags.js';

export interface BinarySpec {
  /** Program name, also the log component and user agent. */
  name: string;
  description: string;
  defaults: BinaryDefaults;
  /** Adds the binary's own flags. */
  flags?: (cmd: Command) => void;
  /** Registers controllers and runnables on the manager. */
  register: (
    manager: Manager,
    flags: StandardFlags,
    opts: Record<string, unknown>,
    wiring: Wiring,
  ) => void | Promise<void>;
}

export interface RunBinaryOptions {
  /** Arguments after the program name; default process.argv.slice(2). */
  args?: string[];
  /** Default $KUBECONFIG. */
  defaultKubeconfig?: string;
  signals?: SignalSource;
  exit?: (code: number) => void;
  /** Default stderr. */
  logStream?: NodeJS.WritableStream;
  /** Where flag errors and start-up failures are printed; default stderr. */
  errorStream?: NodeJS.WritableStream;
}

/** Resolves with the exit code (after calling exit). Flag errors exit 2 with commander's message. */
export async function runBinary(spec: BinarySpec, opts: RunBinaryOptions = {}): Promise<number> {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const cmd = addStandardFlags(
    new Command(spec.name).description(spec.description),
    spec.defaults,
    opts.defaultKubeconfig ?? process.env.KUBECONFIG,
  );
  spec.flags?.(cmd);
  const errors = opts.errorStream ?? process.stderr;
  cmd.exitOverride().configureOutput({ writeErr: (text) => errors.write(text) });
  try {
    cmd.parse(opts.args ?? process.argv.slice(2), { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    const status = code === 'commander.helpDisplayed' || code === 'commander.version' ? 0 : 2;
    exit(status);
    return status;
  }
  const flags = readStandardFlags(cmd);
  let wiring: Wiring;
  try {
    wiring = await managerFromFlags(flags, spec.name, { logStream: opts.logStream });
    await spec.register(wiring.manager, flags, cmd.opts(), wiring);
  } catch (err) {
    errors.write(`${spec.name}: ${err instanceof Error ? err.message : String(err)}\n`);
    exit(1);
    return 1;
  }
  return runUntilSignal(wiring.manager, { logger: wiring.logger, signals: opts.signals, exit });
}
