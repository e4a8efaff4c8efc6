// The emulator's per-instance IMDS, asked over real HTTP the way programs on an EC2 instance ask it.
import { RunInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { ec2Client, workerLaunch } from './ec2-test-env.js';

async function launch(ec2: EC2Client, name: string, extra = {}): Promise<string> {
  const out = await ec2.send(new RunInstancesCommand(workerLaunch(name, extra)));
  return out.Instances![0]!.InstanceId!;
}

async function token(endpoint: string, ttl = '60', headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${endpoint}/latest/api/token`, {
    method: 'PUT',
    headers: { 'X-aws-ec2-metadata-token-ttl-seconds': ttl, ...headers },
  });
}

async function get(endpoint: string, path: string, tok?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${endpoint}${path}`, { headers: tok ? { 'X-aws-ec2-metadata-token': tok } : {} });
  return { status: res.status, body: await res.text() };
}

describe('EC2 emulator: instance metadata (IMDS)', function () {
  let clock: FakeClock;
  let emu: Ec2Emulator;
  let ec2: EC2Client;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 10, 26, 9, 0, 0));
    emu = await startEc2Emulator({ clock, timings: { bootMs: 1000, terminateMs: 700 } });
    ec2 = ec2Client(emu);
  });
  afterEach(async () => {
    ec2.destroy();
    await emu.stop();
  });

  it('gives each instance its own loopback endpoint that describes that instance only', async () => {
    const a = await launch(ec2, 'a');
    const b = await launch(ec2, 'b');
    clock.step(1000);
    const [ea, eb] = [await emu.metadataEndpoint(a), await emu.metadataEndpoint(b)];
    expect(ea).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ea).to.not.equal(eb);
    expect(await emu.metadataEndpoint(a), 'the same listener on every call').to.equal(ea);
    const tok = await (await token(ea)).text();
    expect((await get(ea, '/latest/meta-data/instance-id', tok)).body).to.equal(a);
    expect((await get(eb, '/latest/meta-data/instance-id', await (await token(eb)).text())).body).to.equal(b);
    expect(emu.metadataRequestCount(a)).to.equal(2);
  });

  it('issues IMDSv2 tokens for 1 to 21600 seconds, valid on their own instance until they expire', async () => {
    const a = await launch(ec2, 'a', { MetadataOptions: { HttpTokens: 'required' } });
    const b = await launch(ec2, 'b');
    clock.step(1000);
    const ea = await emu.metadataEndpoint(a);
    expect((await token(ea, '0')).status).to.equal(400);
    expect((await token(ea, '21601')).status).to.equal(400);
    const res = await token(ea, '60');
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-aws-ec2-metadata-token-ttl-seconds')).to.equal('60');
    const tok = await res.text();
    expect((await get(ea, '/latest/meta-data/instance-id')).status, 'IMDSv2 required: no token').to.equal(401);
    expect((await get(ea, '/latest/meta-data/instance-id', 'forged')).status).to.equal(401);
    expect(
      (await get(await emu.metadataEndpoint(b), '/latest/meta-data/instance-id', tok)).status,
      "another instance's token",
    ).to.equal(401);
    expect((await get(ea, '/latest/meta-data/instance-id', tok)).status).to.equal(200);
    clock.step(60_000);
    expect((await get(ea, '/latest/meta-data/instance-id', tok)).status, 'expired').to.equal(401);
  });

  it('refuses a token request relayed by a proxy, and loses the token reply beyond the hop limit', async () => {
    const a = await launch(ec2, 'a');
    clock.step(1000);
    expect((await token(await emu.metadataEndpoint(a), '60', { 'X-Forwarded-For': '10.0.0.9' })).status).to.equal(403);
    const fromContainer = await emu.metadataEndpoint(a, { hops: 2 });
    const lost = await token(fromContainer).catch((e: unknown) => e);
    expect(lost, 'hop limit 1, caller 2 hops away: no reply').to.be.instanceOf(Error);
    const b = await launch(ec2, 'b', { MetadataOptions: { HttpPutResponseHopLimit: 2 } });
    clock.step(1000);
    expect((await token(await emu.metadataEndpoint(b, { hops: 2 }))).status, 'hop limit 2').to.equal(200);
  });

  it('answers 404 for the spot notice until an interruption, then the notice two minutes before the reclaim', async () => {
    const spot = await launch(ec2, 's', { InstanceMarketOptions: { MarketType: 'spot' } });
    clock.step(1000);
    const e = await emu.metadataEndpoint(spot);
    const tok = await (await token(e)).text();
    expect((await get(e, '/latest/meta-data/spot/instance-action', tok)).status).to.equal(404);
    expect((await get(e, '/latest/meta-data/spot/termination-time', tok)).status).to.equal(404);
    emu.spotInterrupt(spot);
    const action = await get(e, '/latest/meta-data/spot/instance-action', tok);
    expect(action.status).to.equal(200);
    expect(JSON.parse(action.body)).to.deep.equal({ action: 'terminate', time: '2026-11-26T09:02:01Z' });
    expect(await get(e, '/latest/meta-data/spot/termination-time', tok)).to.deep.equal({
      status: 200,
      body: '2026-11-26T09:02:01Z',
    });
    expect(emu.instance(spot)?.state).to.equal('running');
    clock.step(120_000);
    expect(emu.instance(spot)?.state).to.equal('shutting-down');
    expect(emu.instance(spot)?.stateReason?.code).to.equal('Server.SpotInstanceTermination');
    clock.step(700);
    const gone = await get(e, '/latest/meta-data/instance-id', tok).catch((err: unknown) => err);
    expect(gone, 'a terminated instance has no metadata service').to.be.instanceOf(Error);
  });

  it('shortens the notice with timings.spotNoticeMs (0 reclaims at once)', async () => {
    emu.setTimings({ spotNoticeMs: 0 });
    const spot = await launch(ec2, 's', { InstanceMarketOptions: { MarketType: 'spot' } });
    clock.step(1000);
    emu.spotInterrupt(spot);
    expect(emu.instance(spot)?.state).to.equal('shutting-down');
  });
});
