import { expect } from 'chai';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientIdleTimeoutMs, ServerIdleTimeoutMs } from '../../../../lib/base/http-keep-alive.js';
import { closeServer, listenOnLoopback, LOOPBACK_HOST } from '../../../../sim/kit/index.js';

describe('loopback server helpers', () => {
  it('listenOnLoopback binds 127.0.0.1 on a free port and resolves that port', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listenOnLoopback(server);
    try {
      const addr = server.address() as AddressInfo;
      expect(addr.address).to.equal(LOOPBACK_HOST);
      expect(port).to.equal(addr.port).and.to.be.greaterThan(0);
      const res = await fetch(`http://${LOOPBACK_HOST}:${port}/`);
      expect(await res.text()).to.equal('ok');
    } finally {
      await closeServer(server);
    }
  });

  it('listenOnLoopback keeps idle connections 90 s, as kube-apiserver does, longer than our clients keep theirs', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listenOnLoopback(server);
    try {
      expect(server.keepAliveTimeout).to.equal(ServerIdleTimeoutMs).and.be.greaterThan(ClientIdleTimeoutMs);
      const res = await fetch(`http://${LOOPBACK_HOST}:${port}/`);
      await res.text();
      // What the SDKs' agents read to let a connection go before the server does.
      expect(res.headers.get('keep-alive')).to.equal('timeout=90');
    } finally {
      await closeServer(server);
    }
  });

  it('listenOnLoopback rejects when the port is taken', async () => {
    const first = createServer();
    const port = await listenOnLoopback(first);
    const second = createServer();
    try {
      const err = await listenOnLoopback(second, port).then(
        () => undefined,
        (e: unknown) => e as NodeJS.ErrnoException,
      );
      expect(err?.code).to.equal('EADDRINUSE');
    } finally {
      await closeServer(first);
    }
  });

  it('closeServer resolves without waiting for a request still in flight, whose connection is cut', async () => {
    const server = createServer(() => {
      // Never answers: only closeServer ends this request.
    });
    const port = await listenOnLoopback(server);
    const failed = new Promise<string>((resolve) => {
      const req = request({ host: LOOPBACK_HOST, port, path: '/' }, () => resolve('answered'));
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.end();
    });
    const deadline = Date.now() + 5_000;
    while ((await connections(server)) === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    await closeServer(server);
    expect(await failed).to.equal('ECONNRESET');
    expect(server.listening).to.equal(false);
  });
});

function connections(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}
