// Reusing the last run's ports: a port is taken again only if it can be bound on 127.0.0.1 right now;
// otherwise (another program has it) any free port is used and the new one is recorded.
import { createServer } from 'node:net';

/** Whether `port` can be bound on 127.0.0.1 at this moment. */
export function loopbackPortIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** `explicit` when given; else `previous` when it is free; else 0 (any free port). */
export async function choosePort(
  explicit: number | undefined,
  previous: number | undefined,
  isFree = loopbackPortIsFree,
): Promise<number> {
  if (explicit !== undefined) return explicit;
  if (previous !== undefined && (await isFree(previous))) return previous;
  return 0;
}

/** A port free on 127.0.0.1 now, for a server started a moment later (a small window, fine for a local run). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port: 0, host: '127.0.0.1' }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
