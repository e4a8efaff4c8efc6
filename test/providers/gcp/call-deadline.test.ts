// The deadline and cancellation of every Compute call, kept by the provider rather than by gax: gax's own
// deadline kept each reply in the heap until it expired (600 s), so a provider listing its instances
// repeatedly ran out of heap. Against the GCE emulator, through the provider's real client.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { GcpClientFactory } from '../../../providers/gcp/index.js';
import { GceCallTimedOut } from '../../../providers/gcp/call-deadline.js';
import { classifyGceError } from '../../../providers/gcp/errors.js';
import { SdkComputeApi } from '../../../providers/gcp/sdk-compute-api.js';
import { growthOver } from '../retained-heap.js';
import {
  addCopies,
  clientsFor,
  closeClients,
  insert,
  PROJECT,
  until,
  ZONE,
  type Clients,
} from '../../sim/gcp/fixtures.js';
import { PassThroughClient } from 'google-auth-library';

const INSTANCES = 300;
const LISTS = 20;

describe('GCP Compute calls: deadline and cancellation', () => {
  describe('against the emulator', () => {
    let emu: GceEmulator;
    let c: Clients;
    let factory: GcpClientFactory;

    before(async () => {
      emu = await startGceEmulator({ bootDelayMs: 0 });
      c = clientsFor(emu);
      await insert(c, 'w-0', {});
      addCopies(emu, 'w-', INSTANCES - 1);
      factory = new GcpClientFactory({ clock: new RealClock(), endpoint: emu.endpoint });
    });
    after(async () => {
      await factory.close();
      await closeClients(c);
      await emu.stop();
    });

    it(`keeps no reply reachable once a list returns (${INSTANCES} instances listed ${LISTS} times)`, async () => {
      const { compute } = factory.get(undefined);
      const grown = await growthOver(LISTS, async () => {
        expect(await compute.listInstances(PROJECT, ZONE, '')).to.have.length(INSTANCES);
      });
      // A listed instance decodes to about 9 KB, which gax's deadline kept for 600 s: 50 MB here.
      const perInstancePerList = grown / (INSTANCES * LISTS);
      expect(perInstancePerList, `${Math.round(grown / 1024)} KB retained`).to.be.below(500);
    });
  });

  describe('against an endpoint that accepts and never answers', () => {
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

    const api = (callTimeoutMs: number) =>
      new SdkComputeApi({ apiEndpoint: endpoint, auth: { authClient: new PassThroughClient() }, callTimeoutMs });

    it('gives up at its deadline with a transient error, and closes the request', async () => {
      const compute = api(300);
      const err = await compute.getInstance(PROJECT, ZONE, 'w-0').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(GceCallTimedOut);
      expect(classifyGceError(err)).to.equal('transient');
      await closed(requests.at(-1)!);
      await compute.close();
    });

    it("cancels the request when the caller's signal aborts", async () => {
      const compute = api(600_000);
      const ctl = new AbortController();
      const seen = requests.length;
      const call = compute.getInstance(PROJECT, ZONE, 'w-0', { signal: ctl.signal });
      await until(() => requests.length > seen);
      ctl.abort();
      const err = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.have.property('name', 'AbortError');
      await closed(requests.at(-1)!);
      await compute.close();
    });
  });
});

/** Resolves once the client has closed the request's connection. */
function closed(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => (req.socket.destroyed ? resolve() : req.socket.once('close', () => resolve())));
}
