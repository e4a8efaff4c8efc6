// The AWS Spot notice reader against the EC2 emulator's IMDS of one instance, over real HTTP.
import { RunInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock, MetadataServiceError } from '../../../lib/index.js';
import { SpotInstanceActionSource } from '../../../providers/aws/index.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { ec2Client, workerLaunch } from '../../sim/aws/ec2-test-env.js';

describe('the AWS Spot interruption notice reader (IMDSv2)', function () {
  let clock: FakeClock;
  let emu: Ec2Emulator;
  let ec2: EC2Client;
  let spot: string;
  const signal = new AbortController().signal;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 10, 26, 9, 0, 0));
    emu = await startEc2Emulator({ clock, timings: { bootMs: 1000 } });
    ec2 = ec2Client(emu);
    const out = await ec2.send(
      new RunInstancesCommand(
        workerLaunch('s', {
          InstanceMarketOptions: { MarketType: 'spot' },
          MetadataOptions: { HttpTokens: 'required' },
        }),
      ),
    );
    spot = out.Instances![0]!.InstanceId!;
    clock.step(1000);
  });
  afterEach(async () => {
    ec2.destroy();
    await emu.stop();
  });

  it("reports no notice while IMDS answers 404, and EC2's action and time once it gives one", async () => {
    const source = new SpotInstanceActionSource({ endpoint: await emu.metadataEndpoint(spot), clock });
    expect(await source.check(signal)).to.equal(undefined);
    emu.spotInterrupt(spot);
    expect(await source.check(signal)).to.deep.equal({ action: 'terminate', time: '2026-11-26T09:02:01Z' });
  });

  it('asks only the endpoint it was given, with one token reused across checks', async () => {
    const endpoint = await emu.metadataEndpoint(spot);
    const source = new SpotInstanceActionSource({ endpoint, clock });
    for (let i = 0; i < 3; i++) await source.check(signal);
    expect(emu.metadataRequestCount(spot), '1 token PUT + 3 GETs').to.equal(4);
  });

  it('renews its token before it expires', async () => {
    const source = new SpotInstanceActionSource({
      endpoint: await emu.metadataEndpoint(spot),
      clock,
      tokenTtlSeconds: 120,
    });
    await source.check(signal);
    clock.step(61_000); // past the renewal point (ttl - 60 s): a new PUT, and no 401 on the way
    await source.check(signal);
    expect(emu.metadataRequestCount(spot), 'PUT GET PUT GET').to.equal(4);
  });

  it('fetches a new token and asks again when IMDS no longer accepts its token (401)', async () => {
    // The reader's own clock stands still, so it believes its token is fresh while IMDS has let it expire.
    const source = new SpotInstanceActionSource({
      endpoint: await emu.metadataEndpoint(spot),
      clock: new FakeClock(clock.now()),
      tokenTtlSeconds: 120,
    });
    await source.check(signal);
    emu.setTimings({ spotNoticeMs: 300_000 });
    emu.spotInterrupt(spot);
    clock.step(121_000);
    expect((await source.check(signal))?.action).to.equal('terminate');
    expect(emu.metadataRequestCount(spot), 'PUT GET, then GET (401) PUT GET').to.equal(5);
  });

  it('fails with a typed error, for the handler to retry, when IMDS cannot be reached or refuses the token', async () => {
    const unreachable = new SpotInstanceActionSource({
      endpoint: await emu.metadataEndpoint(spot, { hops: 2 }),
      timeoutMs: 500,
    });
    const err = await unreachable.check(signal).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MetadataServiceError);
    expect((err as MetadataServiceError).path).to.equal('/latest/api/token');
  });

  it('refuses a malformed endpoint or token lifetime at construction', () => {
    expect(() => new SpotInstanceActionSource({ endpoint: 'not a url' })).to.throw(TypeError);
    expect(() => new SpotInstanceActionSource({ endpoint: 'http://127.0.0.1:1', tokenTtlSeconds: 0 })).to.throw(
      /tokenTtlSeconds must be an integer from 1 to 21600/,
    );
  });
});
