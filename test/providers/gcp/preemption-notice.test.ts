// The GCP preemption notice reader against the GCE emulator's metadata server of one instance, over real HTTP.
import { expect } from 'chai';
import { MetadataServiceError } from '../../../lib/index.js';
import { PreemptionNoticeSource, metadataBaseOf } from '../../../providers/gcp/index.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { clientsFor, closeClients, insert, waitDone, type Clients } from '../../sim/gcp/fixtures.js';

describe('the GCP preemption notice reader', function () {
  this.timeout(30_000);
  let emu: GceEmulator;
  let c: Clients;
  const signal = new AbortController().signal;

  before(async () => {
    emu = await startGceEmulator({ bootDelayMs: 20 });
    c = clientsFor(emu);
  });
  after(async () => {
    await closeClients(c);
    await emu.stop();
  });

  async function spot(name: string): Promise<string> {
    await waitDone(c, await insert(c, name, { scheduling: { provisioningModel: 'SPOT' } }));
    return emu.metadataHost(name);
  }

  it('reports no notice while instance/preempted is FALSE, and a notice once it is TRUE', async () => {
    const host = await spot('reader-a');
    const source = new PreemptionNoticeSource({ host });
    expect(await source.check(signal)).to.equal(undefined);
    emu.preempt('reader-a');
    expect(await source.check(signal)).to.deep.equal({});
    expect(emu.metadataRequestCount('reader-a'), 'only the host it was given').to.equal(2);
  });

  it('with wait_for_change, sees the notice the moment it comes instead of at the next poll', async () => {
    const host = await spot('reader-b');
    const source = new PreemptionNoticeSource({ host, waitForChangeSec: 60 });
    expect(await source.check(signal), 'the first ask learns the ETag').to.equal(undefined);
    const held = source.check(signal);
    await new Promise((r) => setTimeout(r, 100));
    emu.preempt('reader-b');
    expect(await held).to.deep.equal({});
  });

  it('fails with a typed error, for the handler to retry, when the answer is not from a metadata server', async () => {
    // The compute API's endpoint is a server, but not a metadata server: no Metadata-Flavor comes back.
    const source = new PreemptionNoticeSource({ host: new URL(emu.endpoint).host });
    const err = await source.check(signal).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MetadataServiceError);
  });

  it("takes GCE_METADATA_HOST's form, host or host:port, and refuses anything else naming the rule", () => {
    expect(metadataBaseOf('127.0.0.1:8080')).to.equal('http://127.0.0.1:8080');
    expect(metadataBaseOf('metadata.google.internal')).to.equal('http://metadata.google.internal');
    for (const bad of ['', 'http://127.0.0.1', '127.0.0.1/x', 'a b']) {
      expect(() => metadataBaseOf(bad), bad).to.throw(/must be "host" or "host:port"/);
    }
  });
});
