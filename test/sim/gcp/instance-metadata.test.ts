// The emulator's per-instance GCE metadata server, asked over real HTTP as a program on the instance asks it.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { clientsFor, closeClients, insert, type Clients } from './fixtures.js';

const flavor = { 'Metadata-Flavor': 'Google' };

async function get(
  host: string,
  path: string,
  headers: Record<string, string> = flavor,
): Promise<{ status: number; body: string; etag: string | null; flavor: string | null }> {
  const res = await fetch(`http://${host}/computeMetadata/v1/${path}`, { headers });
  return {
    status: res.status,
    body: await res.text(),
    etag: res.headers.get('etag'),
    flavor: res.headers.get('metadata-flavor'),
  };
}

describe('GCE emulator: instance metadata server', function () {
  let clock: FakeClock;
  let emu: GceEmulator;
  let c: Clients;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 10, 26, 9, 0, 0));
    emu = await startGceEmulator({ clock, bootDelayMs: 1000, stopDelayMs: 500 });
    c = clientsFor(emu);
    await insert(c, 'spot-a', { scheduling: { provisioningModel: 'SPOT' } });
    await insert(c, 'plain-b');
    clock.step(1000);
  });
  afterEach(async () => {
    await closeClients(c);
    await emu.stop();
  });

  it('gives each instance its own loopback host that describes that instance only', async () => {
    const [a, b] = [await emu.metadataHost('spot-a'), await emu.metadataHost('plain-b')];
    expect(a).to.match(/^127\.0\.0\.1:\d+$/);
    expect(a).to.not.equal(b);
    expect((await get(a, 'instance/name')).body).to.equal('spot-a');
    expect((await get(b, 'instance/name')).body).to.equal('plain-b');
    expect((await get(a, 'instance/zone')).body).to.match(/^projects\/\d+\/zones\/us-central1-a$/);
    expect(emu.metadataRequestCount('spot-a')).to.equal(2);
  });

  it('answers only with Metadata-Flavor: Google, never through a proxy, and signs every answer with it', async () => {
    const host = await emu.metadataHost('spot-a');
    expect((await get(host, 'instance/preempted', {})).status).to.equal(403);
    expect((await get(host, 'instance/preempted', { ...flavor, 'X-Forwarded-For': '10.0.0.9' })).status).to.equal(403);
    const ok = await get(host, 'instance/preempted');
    expect(ok).to.include({ status: 200, body: 'FALSE', flavor: 'Google' });
    expect(ok.etag).to.be.a('string');
  });

  it('says TRUE from the start of a preemption, and stops the instance thirty seconds later', async () => {
    const host = await emu.metadataHost('spot-a');
    emu.preempt('spot-a');
    expect((await get(host, 'instance/preempted')).body).to.equal('TRUE');
    expect(emu.instance('spot-a')?.status).to.equal('RUNNING');
    clock.step(30_000);
    expect(emu.instance('spot-a')).to.deep.include({ status: 'STOPPING', statusMessage: 'Instance was preempted.' });
    clock.step(500);
    expect(emu.instance('spot-a')?.status).to.equal('TERMINATED');
    const gone = await get(host, 'instance/preempted').catch((e: unknown) => e);
    expect(gone, 'a stopped instance runs no metadata server').to.be.instanceOf(Error);
  });

  it('holds a wait_for_change request until the value changes', async () => {
    const host = await emu.metadataHost('spot-a');
    const first = await get(host, 'instance/preempted');
    const waiting = get(host, `instance/preempted?wait_for_change=true&timeout_sec=60&last_etag=${first.etag}`);
    let answered = false;
    void waiting.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered, 'still waiting').to.equal(false);
    emu.preempt('spot-a');
    const changed = await waiting;
    expect(changed.body).to.equal('TRUE');
    expect(changed.etag).to.not.equal(first.etag);
  });

  it('answers a wait_for_change at once when the ETag is already stale, and with the same value at its timeout', async () => {
    const host = await emu.metadataHost('spot-a');
    expect((await get(host, 'instance/preempted?wait_for_change=true&timeout_sec=60&last_etag=0000')).body).to.equal(
      'FALSE',
    );
    const { etag } = await get(host, 'instance/preempted');
    const waiting = get(host, `instance/preempted?wait_for_change=true&timeout_sec=5&last_etag=${etag}`);
    await new Promise((r) => setTimeout(r, 50));
    clock.step(5_000);
    expect((await waiting).body).to.equal('FALSE');
  });
});
