import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, isTooManyRequests } from '../../../lib/client/errors.js';
import { createKubeClient } from '../../../lib/client/http-kube-client.js';
import { HttpTransport, RequestTimeoutError } from '../../../lib/client/http-transport.js';
import { kubeConfigFor } from '../../../lib/client/kube-config.js';
import { Machines, Nodes } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { signalFollowers } from '../base/support/signal-followers.js';

/** A throwaway server whose answers each test scripts. */
async function scriptedServer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('HTTP transport', () => {
  it('sends the bearer token and user agent, and parses a Status body into an ApiError', async () => {
    let auth: string | undefined;
    let agent: string | undefined;
    const srv = await scriptedServer((req, res) => {
      auth = req.headers.authorization;
      agent = req.headers['user-agent'];
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 404,
          reason: 'NotFound',
          message: 'nodes "x" not found',
          details: { name: 'x', kind: 'nodes' },
        }),
      );
    });
    const c = createKubeClient({ kubeConfig: kubeConfigFor(srv.url, 'tok'), userAgent: 'tester' });
    const err = await c.get(Nodes, { name: 'x' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).status.details?.name).to.equal('x');
    expect((err as ApiError).message).to.equal('nodes "x" not found');
    expect(auth).to.equal('Bearer tok');
    expect(agent).to.equal('tester');
    c.close();
    await srv.close();
  });

  it('builds a Status from a non-JSON error and keeps Retry-After', async () => {
    const srv = await scriptedServer((_req, res) => res.writeHead(429, { 'Retry-After': '7' }).end('slow down'));
    const c = createKubeClient({ kubeConfig: kubeConfigFor(srv.url, 'tok') });
    const err = await c.get(Nodes, { name: 'x' }).catch((e: unknown) => e);
    expect(isTooManyRequests(err)).to.equal(true);
    expect((err as ApiError).status).to.deep.include({ code: 429, reason: 'TooManyRequests', message: 'slow down' });
    expect((err as ApiError).status.details?.retryAfterSeconds).to.equal(7);
    c.close();
    await srv.close();
  });

  it('gives up on a server that never answers after the request timeout on the clock', async () => {
    let received = false;
    const srv = await scriptedServer(() => {
      received = true; // never answers
    });
    const clock = new FakeClock();
    const c = createKubeClient({ kubeConfig: kubeConfigFor(srv.url, 'tok'), clock, requestTimeoutMs: 60_000 });
    const pending = c.get(Nodes, { name: 'x' }).catch((e: unknown) => e);
    for (let i = 0; i < 500 && !received; i++) await new Promise((r) => setTimeout(r, 5));
    expect(received).to.equal(true);
    clock.step(60_000);
    const err = await pending;
    expect(err).to.be.instanceOf(RequestTimeoutError);
    expect(String(err)).to.match(/GET \/api\/v1\/nodes\/x: no answer within 60000 ms/);
    c.close();
    await srv.close();
  });

  it('rejects a caller-aborted request with the abort reason', async () => {
    const srv = await scriptedServer(() => undefined);
    const c = createKubeClient({ kubeConfig: kubeConfigFor(srv.url, 'tok') });
    const ac = new AbortController();
    const pending = c.get(Nodes, { name: 'x' }, { signal: ac.signal }).catch((e: unknown) => e);
    ac.abort(new Error('reconcile cancelled'));
    expect(String(await pending)).to.match(/reconcile cancelled/);
    c.close();
    await srv.close();
  });

  it("leaves nothing on the caller's signal once its requests are answered, so a long-lived one does not grow (20 requests)", async () => {
    const srv = await scriptedServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"kind":"Node","metadata":{"name":"x"}}');
    });
    const c = createKubeClient({ kubeConfig: kubeConfigFor(srv.url, 'tok') });
    const longLived = new AbortController();
    for (let i = 0; i < 20; i++) await c.get(Nodes, { name: 'x' }, { signal: longLived.signal });
    expect(signalFollowers(longLived.signal)).to.deep.equal({ listeners: 0, anyDependants: 0 });
    c.close();
    await srv.close();
  });

  describe('kept-alive connections', () => {
    /**
     * A server that closes a kept-alive connection the moment a second request arrives on it, without a
     * byte of reply: what a server closing idle connections does to a client that reuses one just then.
     * Requests on a fresh connection are answered with `{}` (or the method's usual code).
     */
    async function closingOnReuse() {
      const served = new WeakSet<object>();
      const seen: string[] = [];
      const srv = await scriptedServer((req, res) => {
        seen.push(`${req.method ?? ''} ${served.has(req.socket) ? 'reused' : 'fresh'}`);
        if (served.has(req.socket)) {
          req.socket.destroy();
          return;
        }
        served.add(req.socket);
        req.resume();
        req.on('end', () =>
          res
            .writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' })
            .end('{"metadata":{"name":"m","namespace":"ns","resourceVersion":"2"}}'),
        );
      });
      return { ...srv, seen };
    }
    const machine = { metadata: { name: 'm', namespace: 'ns', resourceVersion: '1' } };

    it('sends again, on a new connection, a read or a conditional write that a reused connection failed before any reply', async () => {
      const srv = await closingOnReuse();
      const c = createKubeClient({ kubeConfig: kubeConfigFor(srv.url, 'tok') });
      await c.get(Nodes, { name: 'first' });
      await c.get(Nodes, { name: 'x' });
      await c.update(Machines, machine);
      await c.patch(
        Machines,
        { namespace: 'ns', name: 'm' },
        { type: 'merge', body: { spec: {} } },
        { resourceVersion: '1' },
      );
      await c.patch(Machines, { namespace: 'ns', name: 'm' }, { type: 'json', body: [] }, { resourceVersion: '1' });
      await c.delete(Machines, { namespace: 'ns', name: 'm' }, { preconditions: { uid: 'u-1' } });
      expect(srv.seen).to.deep.equal([
        'GET fresh',
        ...['GET', 'PUT', 'PATCH', 'PATCH', 'DELETE'].flatMap((m) => [`${m} reused`, `${m} fresh`]),
      ]);
      c.close();
      await srv.close();
    });

    it('leaves a create and an unconditional write failed, since the server may have applied them', async () => {
      const srv = await closingOnReuse();
      const c = createKubeClient({ kubeConfig: kubeConfigFor(srv.url, 'tok') });
      const writes: Array<() => Promise<unknown>> = [
        () => c.create(Machines, { metadata: { generateName: 'm-', namespace: 'ns' } }),
        () => c.create(Machines, { metadata: { name: 'm', namespace: 'ns' } }),
        () => c.update(Machines, { metadata: { name: 'm', namespace: 'ns' } }),
        () => c.patch(Machines, { namespace: 'ns', name: 'm' }, { type: 'merge', body: { spec: {} } }),
        () => c.delete(Machines, { namespace: 'ns', name: 'm' }),
      ];
      for (const write of writes) {
        await c.get(Nodes, { name: 'warm' }); // a fresh connection when the pool had none
        const err = (await write().catch((e: unknown) => e)) as Error;
        expect(err).to.be.instanceOf(Error);
        expect(err.message).to.match(/: (socket hang up|read ECONNRESET)$/);
      }
      expect(srv.seen.filter((s) => !s.startsWith('GET'))).to.deep.equal([
        'POST reused',
        'POST reused',
        'PUT reused',
        'PATCH reused',
        'DELETE reused',
      ]);
      c.close();
      await srv.close();
    });

    it('lets an idle connection go before the server would, so the next request opens a new one', async () => {
      const srv = await closingOnReuse();
      const t = new HttpTransport(kubeConfigFor(srv.url, 'tok'), { idleConnectionTimeoutMs: 50 });
      await t.request({ method: 'GET', path: '/api/v1/nodes/a' });
      await new Promise((r) => setTimeout(r, 300));
      await t.request({ method: 'POST', path: '/api/v1/nodes', body: { metadata: { name: 'b' } } });
      expect(srv.seen).to.deep.equal(['GET fresh', 'POST fresh']);
      t.close();
      await srv.close();
    });
  });
});
