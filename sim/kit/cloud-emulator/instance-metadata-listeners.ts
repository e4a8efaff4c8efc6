// Per-instance metadata endpoints for the cloud emulators. On a cloud every instance reaches its own metadata
// service at the same link-local address, and the service knows who asks from the network the request
// arrives on. On loopback there is no such network, so each instance gets its own listener (its own port on
// 127.0.0.1): a program given just that endpoint — through the same environment variable it would read on the
// cloud — sees its own instance and nobody else's. Listeners start on first use and stop with the emulator.
import { createServer, type RequestListener, type Server } from 'node:http';
import { closeServer, listenOnLoopback, LOOPBACK_HOST } from './loopback-server.js';

export class InstanceMetadataListeners {
  private readonly listeners = new Map<string, Promise<{ server: Server; port: number }>>();
  private readonly requests = new Map<string, number>();
  private closed = false;

  /**
   * The "127.0.0.1:<port>" of the listener for `key` (an instance, or an instance seen from some distance),
   * started with `handler` on first use; later calls return the same listener. Its requests are counted under
   * `countAs` (default the key), e.g. the instance whatever distance it is asked from.
   */
  async hostFor(key: string, handler: () => RequestListener, countAs = key): Promise<string> {
    if (this.closed) throw new Error('the emulator is stopped; its metadata listeners are gone');
    let started = this.listeners.get(key);
    if (!started) {
      const serve = handler();
      const server = createServer((req, res) => {
        this.requests.set(countAs, (this.requests.get(countAs) ?? 0) + 1);
        serve(req, res);
      });
      started = listenOnLoopback(server).then((port) => ({ server, port }));
      this.listeners.set(key, started);
    }
    return `${LOOPBACK_HOST}:${(await started).port}`;
  }

  /** How many requests the listeners counted under `countAs` received (0 when none started). */
  requestCount(countAs: string): number {
    return this.requests.get(countAs) ?? 0;
  }

  /** Stops every listener; later hostFor() calls fail. Idempotent. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.listeners.values()];
    this.listeners.clear();
    await Promise.all(all.map(async (p) => closeServer((await p).server)));
  }
}
