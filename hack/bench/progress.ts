// A scenario's progress while it runs: how many of the wanted Machines are there yet, and the time so far. The
// full run lasts up to 20 minutes and each scenario waits minutes on polls; without this it is silent meanwhile.
// On a terminal one line rewrites itself; into a file or a pipe (CI logs) a plain line every few seconds, so the
// log stays readable and short.

/** Where the lines go: process.stderr in the bench, a recorder in tests. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  stream: ProgressStream;
  /** Milliseconds, monotonic (performance.now in the bench). */
  now: () => number;
  /** Least time between two lines into a file or pipe; default 5 s. */
  plainEveryMs?: number;
  /** Least time between two rewrites of the terminal line; default 1 s. */
  ttyEveryMs?: number;
  /** Put before every line, e.g. "bench: ". */
  prefix?: string;
}

/** One scenario's progress line. */
export interface Progress {
  /** `count` of the wanted (Machines Running, Machines deleted, resync periods waited), and what else to say. */
  update(count: number, detail?: string): void;
  /** The scenario is over: a terminal line is erased so the scenario's result line takes its place. */
  end(): void;
}

/** Starts the progress of scenario `name`, which waits for `wanted` of `counted` ("Running"). */
export type StartProgress = (name: string, wanted: number, counted: string) => Progress;

export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

export function progressPrinter(o: ProgressOptions): StartProgress {
  const tty = o.stream.isTTY === true;
  const every = tty ? (o.ttyEveryMs ?? 1_000) : (o.plainEveryMs ?? 5_000);
  const prefix = o.prefix ?? '';
  return (name, wanted, counted) => {
    const start = o.now();
    let last: number | undefined;
    let shown = false;
    return {
      update(count, detail) {
        const at = o.now();
        if (last !== undefined && at - last < every) return;
        last = at;
        const line = `${prefix}${name}: ${count}/${wanted} ${counted}, ${formatElapsed(at - start)}${detail ? ` (${detail})` : ''}`;
        // \r back to the line's start, then \x1b[K erases what a longer line before left to the right.
        o.stream.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
        shown = true;
      },
      end() {
        if (tty && shown) o.stream.write('\r\x1b[K');
        shown = false;
      },
    };
  };
}

/** For callers that want no progress (tests, library use). */
export const noProgress: StartProgress = () => ({ update() {}, end() {} });
