// The deadline and cancellation of every Compute call, kept by the provider rather than by gax (whose own
// deadline kept each reply in the heap until it expired: instance-listing.test.ts holds that to a budget).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { PassThroughClient } from 'google-auth-library';
import { GceCallTimedOut } from '../../../providers/gcp/call-deadline.js';
import { classifyGceError } from '../../../providers/gcp/errors.js';
import { SdkComputeApi } from '../../../providers/gcp/sdk-compute-api.js';
import { PROJECT, until, ZONE } from '../../sim/gcp/fixtures.js';

describe('GCP Compute calls against an endpoint that accepts and never answers', () => {
  let server: Server;
  let endpoint: string;
  const requests: IncomingMessage[] = [];

  before(async () => {
    server = createServer((req) => void requests.push(req));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (e: unknown) => e,
    );
  /** A ComputeApi whose instances client is built already: building the first takes seconds of parsing. */
  const api = async (callTimeoutMs: number) => {
    const compute = new SdkComputeApi({
      apiEndpoint: endpoint,
      auth: { authClient: new PassThroughClient() },
      callTimeoutMs,
    });
    // A call whose signal has aborted builds the client and sends nothing.
    await failureOf(compute.getInstance(PROJECT, ZONE, 'w-0', { signal: AbortSignal.abort() }));
    return compute;
  };

  it('gives up at its deadline with a transient error, and closes the request', async () => {
    const compute = await api(300);
    const seen = requests.length;
    const err = await failureOf(compute.getInstance(PROJECT, ZONE, 'w-0'));
    expect(err).to.be.instanceOf(GceCallTimedOut);
    expect(classifyGceError(err)).to.equal('transient');
    expect(requests.length).to.be.above(seen);
    // Every request this server was sent is closed: none is left waiting for an answer.
    await Promise.all(requests.map(closed));
    await compute.close();
  });

  it("cancels the request when the caller's signal aborts", async () => {
    const compute = await api(600_000);
    const ctl = new AbortController();
    const seen = requests.length;
    const call = failureOf(compute.getInstance(PROJECT, ZONE, 'w-0', { signal: ctl.signal }));
    await until(() => requests.length > seen);
    ctl.abort();
    expect(await call).to.have.property('name', 'AbortError');
    // Every request this server was sent is closed: none is left waiting for an answer.
    await Promise.all(requests.map(closed));
    await compute.close();
  });
});

/** Resolves once the client has closed the request's connection. */
function closed(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => (req.socket.destroyed ? resolve() : req.socket.once('close', () => resolve())));
}
