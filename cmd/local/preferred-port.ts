// Reusing the last run's ports: a port is taken again only if it can be bound on 127.0.0.1 right now;
// otherwise (another program has it) any free port is used and the new one is recorded.
import { createServer, type Server } from 'node:net';

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

const RECENT_PORTS_KEPT = 512;
const recentlyHandedOut = new Set<number>();

/**
 * `count` distinct ports free on 127.0.0.1 now, for servers started a moment later. Every probe stays bound until
 * all are chosen: probing one at a time lets the kernel hand a just-released port out again, and two of our own
 * servers then race for it (the loser's binary never starts). Nor is a port handed out earlier by this process
 * handed out again, since the server it was chosen for may not have bound it yet.
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const probes: Server[] = [];
  try {
    const ports: number[] = [];
    while (ports.length < count) {
      const probe = createServer();
      probes.push(probe);
      const port = await new Promise<number>((resolve, reject) => {
        probe.once('error', reject);
        probe.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
          const address = probe.address();
          resolve(typeof address === 'object' && address ? address.port : 0);
        });
      });
      if (recentlyHandedOut.has(port)) continue;
      ports.push(port);
      recentlyHandedOut.add(port);
    }
    // Bounded: a port handed out long ago has had ample time to be bound by its server.
    for (const old of recentlyHandedOut) {
      if (recentlyHandedOut.size <= RECENT_PORTS_KEPT) break;
      recentlyHandedOut.delete(old);
    }
    return ports;
  } finally {
    await Promise.all(probes.map((probe) => new Promise<void>((resolve) => probe.close(() => resolve()))));
  }
}

/** One port for a server started a moment later, by the rule of freeLoopbackPorts. */
export async function freeLoopbackPort(): Promise<number> {
  const [port] = await freeLoopbackPorts(1);
  return port ?? 0;
}
