// A controller binary run inside the local environment: its own flag parser, managerFromFlags and its own
// registration code, exactly as its main() does, minus runUntilSignal (the environment owns the signals).
import { Command } from 'commander';
import type { MachineControllerOptions, Manager } from '../../lib/index.js';
import { addStandardFlags, managerFromFlags, readStandardFlags, type BinarySpec } from '../internal/index.js';

export interface PreparedBinary {
  manager: Manager;
  /** Releases what the binary holds besides its manager (cloud clients). */
  close(): void;
}

export interface PrepareOptions {
  /** Where the binary's log lines go. */
  logStream: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Provider binaries pass these to their machine controller. */
  machineController?: Pick<MachineControllerOptions, 'terminationFollow'>;
}

export interface LocalBinary {
  /** e.g. "machineset-controller": also the log component and the client's user agent. */
  name: string;
  /** The binary's entry point, relative to the repository root (for running it as its own process). */
  script: string;
  /** Parses `args` with the binary's own flags, builds its manager and registers its controllers. */
  prepare(args: string[], opts: PrepareOptions): Promise<PreparedBinary>;
}

export class BinaryArgsError extends Error {
  override readonly name = 'BinaryArgsError';
}

/** Parses args (no program name) with a commander program, throwing BinaryArgsError instead of exiting. */
export function parseArgs(program: Command, args: string[]): Command {
  program.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  try {
    return program.parse(args, { from: 'user' });
  } catch (err) {
    throw new BinaryArgsError(`${program.name()}: ${(err as Error).message}`);
  }
}

/** The standard-flags program a BinarySpec binary parses its argv with (what runBinary builds). */
export function programOf(spec: BinarySpec, env: NodeJS.ProcessEnv): Command {
  const cmd = addStandardFlags(new Command(spec.name).description(spec.description), spec.defaults, env.KUBECONFIG);
  spec.flags?.(cmd);
  return cmd;
}

export function localBinaryFromSpec(spec: BinarySpec, script: string): LocalBinary {
  return {
    name: spec.name,
    script,
    async prepare(args, opts) {
      const cmd = parseArgs(programOf(spec, opts.env), args);
      const flags = readStandardFlags(cmd);
      const wiring = await managerFromFlags(flags, spec.name, { logStream: opts.logStream });
      await spec.register(wiring.manager, flags, cmd.opts(), wiring);
      return { manager: wiring.manager, close: () => {} };
    },
  };
}
