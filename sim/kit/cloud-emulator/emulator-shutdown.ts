// Stopping an emulator, in the order that loses nothing: calls still waiting out a latency end without
// applying, lifecycle timers stop, connections are cut, and only then is the final world saved.
import type { Server } from 'node:http';
import { closeServer } from './loopback-server.js';

export interface EmulatorParts {
  server: Server;
  /** Aborted first, so waiting calls end instead of applying late. */
  shutdown?: AbortController;
  /** The world state: close() cancels its timers. */
  state: { close(): void };
  /** Saved last, when the world persists. */
  snapshot?: { saveNow(): void };
}

/** An idempotent stop(): a second call resolves at once. */
export function emulatorStopper(parts: EmulatorParts): () => Promise<void> {
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    parts.shutdown?.abort();
    parts.state.close();
    await closeServer(parts.server);
    parts.snapshot?.saveNow();
  };
}
