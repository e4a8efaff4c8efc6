import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { MetadataServiceError, metadataRequest, metadataUrl } from '../../../lib/termination/index.js';
import { signalFollowers } from '../base/support/signal-followers.js';

describe('a request to an instance metadata service', () => {
  let server: Server;
  let base: string;
  let seen: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url?.startsWith('/slow')) return; // never answers
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => (seen = []));

  it("appends the path to the endpoint, keeping the endpoint's own path and the query", () => {
    expect(metadataUrl('http://127.0.0.1:9/', '/latest/api/token').href).to.equal(
      'http://127.0.0.1:9/latest/api/token',
    );
    expect(metadataUrl('http://127.0.0.1:9/prefix/', '/a/b?x=1').href).to.equal('http://127.0.0.1:9/prefix/a/b?x=1');
  });

  it('goes to the configured endpoint and returns any HTTP answer', async () => {
    const res = await metadataRequest({
      base,
      path: '/latest/meta-data/spot/instance-action',
      signal: new AbortController().signal,
    });
    expect(res).to.include({ status: 200, body: 'ok' });
    expect(seen).to.deep.equal(['GET /latest/meta-data/spot/instance-action']);
  });

  it('gives up on a service that does not answer in time, with a typed error naming the path', async () => {
    const err = await metadataRequest({
      base,
      path: '/slow',
      signal: new AbortController().signal,
      timeoutMs: 100,
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MetadataServiceError);
    expect((err as MetadataServiceError).path).to.equal('/slow');
    expect((err as MetadataServiceError).status).to.equal(undefined);
  });

  it("rejects with the caller's abort reason when stopped, not as a metadata failure", async () => {
    const stop = new AbortController();
    const pending = metadataRequest({ base, path: '/slow', signal: stop.signal });
    stop.abort(new Error('stopping'));
    const err = await pending.catch((e: unknown) => e);
    expect(err).to.not.be.instanceOf(MetadataServiceError);
    expect((err as Error).message).to.equal('stopping');
  });

  it("leaves nothing on the handler's long-lived stop signal once a request is over, answered or timed out", async () => {
    const stop = new AbortController().signal;
    for (let i = 0; i < 5; i++) await metadataRequest({ base, path: '/ok', signal: stop });
    await metadataRequest({ base, path: '/slow', signal: stop, timeoutMs: 50 }).catch(() => undefined);
    expect(signalFollowers(stop)).to.deep.equal({ listeners: 0, anyDependants: 0 });
  });
});
