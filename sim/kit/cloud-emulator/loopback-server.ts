// Starting and stopping an emulator's HTTP server: it listens on 127.0.0.1 only, never on a public interface.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const LOOPBACK_HOST = '127.0.0.1';

/** Listens on 127.0.0.1 (port 0 = any free port) and resolves the bound port; a listen error rejects. */
export function listenOnLoopback(server: Server, port = 0): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK_HOST, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting connections and cuts the open ones (keep-alive and in-flight) instead of waiting for them. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
