// One loopback port that speaks both plain HTTP and HTTPS, told apart by the first byte of each
// connection (0x16 starts a TLS handshake). In-process clients use plain HTTP: @kubernetes/client-node
// opens a new connection per request, and a TLS handshake each time would make the server the
// bottleneck. kubectl uses HTTPS, because client-go only sends a bearer token over TLS.
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { keepIdleConnections } from '../../lib/base/http-keep-alive.js';

const TLSHandshake = 0x16;

export interface DualServer {
  readonly net: NetServer;
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export function createDualServer(listener: RequestListener, tls: { key: string; cert: string }): DualServer {
  const http: HttpServer = createHttpServer({ keepAlive: true }, listener);
  const https: HttpsServer = createHttpsServer({ keepAlive: true, key: tls.key, cert: tls.cert }, listener);
  // Idle connections stay as long as kube-apiserver keeps them, longer than clients keep theirs.
  keepIdleConnections(http);
  keepIdleConnections(https);
  const sockets = new Set<Socket>();
  const front = createNetServer({ noDelay: true }, (socket) => {
    // Small JSON replies must not wait on Nagle's algorithm.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('error', () => socket.destroy());
    socket.once('readable', () => {
      const first = socket.read(1) as Buffer | null;
      if (first === null) {
        socket.destroy();
        return;
      }
      socket.unshift(first);
      (first[0] === TLSHandshake ? https : http).emit('connection', socket);
    });
  });
  return {
    net: front,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        front.once('error', reject);
        front.listen(port, host, () => {
          front.off('error', reject);
          const addr = front.address();
          resolve(typeof addr === 'object' && addr ? addr.port : port);
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        front.close(() => resolve());
        http.closeAllConnections();
        https.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    },
  };
}
