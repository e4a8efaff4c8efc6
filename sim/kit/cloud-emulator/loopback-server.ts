// Starting and stopping an emulator's HTTP server: it listens on 127.0.0.1 only, never on a public interface,
// and keeps idle kept-alive connections longer than the SDKs' and our clients' agents keep them.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from '../../../lib/base/http-keep-alive.js';

export const LOOPBACK_HOST = '127.0.0.1';

/**
 * Listens on 127.0.0.1 (port 0 = any free port) with the shared keep-alive timeouts and resolves the bound port;
 * a listen error rejects.
 */
export function listenOnLoopback(server: Server, port = 0): Promise<number> {
  keepIdleConnections(server);
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
