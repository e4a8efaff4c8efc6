// Runs a manager until SIGTERM/SIGINT: stop taking work, let in-flight reconciles finish, release the
// lease, exit 0. Leadership lost or a failed start exits 1; a second signal exits 1 at once.
import { LeaderElectionLostError, type Logger, type Manager } from '../../lib/index.js';

export interface SignalSource {
  on(event: NodeJS.Signals, fn: () => void): unknown;
  off(event: NodeJS.Signals, fn: () => void): unknown;
}

export interface RunOptions {
  logger?: Logger;
  /** Default: the process. */
  signals?: SignalSource;
  /** Default process.exit; tests pass their own. */
  exit?: (code: number) => void;
}

/** Resolves with the exit code after calling exit(code). */
export async function runUntilSignal(manager: Manager, opts: RunOptions = {}): Promise<number> {
  const signals = opts.signals ?? process;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const stop = new AbortController();
  let received = 0;
  const onSignal = (): void => {
    received++;
    if (received === 1) {
      opts.logger?.info('signal received; shutting down gracefully');
      stop.abort(new Error('signal received'));
    } else {
      opts.logger?.error('second signal received; exiting now');
      exit(1);
    }
  };
  signals.on('SIGTERM', onSignal);
  signals.on('SIGINT', onSignal);
  let code = 0;
  try {
    await manager.start(stop.signal);
  } catch (err) {
    code = 1;
    if (err instanceof LeaderElectionLostError) opts.logger?.error('leader election lost; exiting', { error: err });
    else opts.logger?.error('manager failed', { error: err });
  } finally {
    signals.off('SIGTERM', onSignal);
    signals.off('SIGINT', onSignal);
  }
  exit(code);
  return code;
}
