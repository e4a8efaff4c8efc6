// How long a kept-alive HTTP connection may sit idle, on both ends of the connections we make and serve. A
// server that closes an idle connection just as a client sends a request on it fails that request with
// "socket hang up" (or ECONNRESET) before any byte of a reply. kube-apiserver keeps idle connections 90 s, as
// long as Go clients keep theirs, and waits 32 s at most for a request's headers; the servers we run (the
// local control plane, the cloud emulators) do the same, and our clients let an idle connection go after
// 30 s, so a client never picks a connection its server is about to close, even when timers run late on a
// busy machine.
import type { Server } from 'node:http';

/** How long a server keeps an idle kept-alive connection open (kube-apiserver's IdleTimeout). */
export const ServerIdleTimeoutMs = 90_000;

/** How long a server waits for a request's headers (kube-apiserver's ReadHeaderTimeout). */
export const ServerHeadersTimeoutMs = 32_000;

/** How long our clients keep an idle connection for reuse: well within what every server here keeps. */
export const ClientIdleTimeoutMs = 30_000;

/**
 * Sets a server's keep-alive timeouts to ServerIdleTimeoutMs and ServerHeadersTimeoutMs (Node's defaults are
 * 5 s idle and 60 s for headers). The headers timeout only runs once a request has begun, so it never closes
 * an idle connection early.
 */
export function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = ServerIdleTimeoutMs;
  server.headersTimeout = ServerHeadersTimeoutMs;
}
