// Test doubles for outbound-HTTP tests: a forward proxy that answers CONNECT (and counts the tunnels it
// opened) and a TLS front that serves a plain-HTTP emulator over HTTPS with a certificate made by the test.
// Both listen on loopback and only ever connect to loopback.
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { generateServingCert, type ServingCert } from '../../../sim/apiserver/tls-cert.js';

export interface ConnectProxy {
  /** "http://127.0.0.1:<port>" */
  readonly url: string;
  /** The "host:port" of every CONNECT, in order. */
  readonly connects: string[];
  /** The Proxy-Authorization headers received. */
  readonly authorizations: string[];
  stop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function listen(server: Server | TlsServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** A forward proxy that answers CONNECT to loopback targets (403 otherwise) and refuses plain requests. */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((_req, res) => {
    res.writeHead(405).end('this test proxy only tunnels (CONNECT)');
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    connects.push(target);
    if (req.headers['proxy-authorization']) authorizations.push(req.headers['proxy-authorization']);
    const colon = target.lastIndexOf(':');
    const host = target.slice(0, colon);
    const port = Number(target.slice(colon + 1));
    if (!LOOPBACK.has(host) || !Number.isInteger(port)) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = netConnect(port, host.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(client).add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => sockets.delete(upstream));
    client.on('close', () => sockets.delete(client));
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    authorizations,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface TlsFront {
  /** "https://127.0.0.1:<port>" */
  readonly endpoint: string;
  readonly port: number;
  /** The CA (the self-signed serving certificate) a client must trust. */
  readonly caPem: string;
  stop(): Promise<void>;
}

/** Terminates TLS on a loopback port and passes the bytes to a plain-HTTP server at `targetPort`. */
export async function startTlsFront(
  targetPort: number,
  cert: ServingCert = generateServingCert('emulator-tls-front'),
): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const server = createTlsServer({ cert: cert.certPem, key: cert.keyPem }, (client) => {
    const upstream = netConnect(targetPort, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    sockets.add(client).add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('close', () => sockets.delete(upstream));
    client.on('close', () => sockets.delete(client));
  });
  // A client that rejects the certificate resets the handshake; that is the test's point, not a failure.
  server.on('tlsClientError', () => undefined);
  const port = await listen(server);
  return {
    endpoint: `https://127.0.0.1:${port}`,
    port,
    caPem: cert.certPem,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
