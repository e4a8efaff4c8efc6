// A provider replica that is not (or no longer provably) the leader sends no mutating cloud call: the three
// provider wirings give their clients' rate limiter the manager's write fence, so a launch that waited for a
// token while the process was paused past its lease is refused before it leaves, on every cloud alike.
import { expect } from 'chai';
import {
  FakeClock,
  LeaseLostWriteRefusedError,
  LeaseWriteFence,
  Manager,
  type KubeClient,
  type RegionalRateLimiter,
} from '../../lib/index.js';
import { nullLogger } from '../../lib/base/structured-logger.js';
import { wireAwsProvider } from '../../cmd/machine-api-provider-aws.js';
import { wireGcpProvider } from '../../cmd/machine-api-provider-gcp.js';
import { wireIbmCloudProvider } from '../../cmd/machine-api-provider-ibmcloud.js';

const noClient = {} as KubeClient;

async function outcome(p: Promise<void>): Promise<unknown> {
  return p.then(
    () => 'sent',
    (err: unknown) => err,
  );
}

const wirings: Array<[string, (mgr: Manager) => { limiter: RegionalRateLimiter; close: () => unknown }]> = [
  [
    'aws',
    (mgr) => {
      const p = wireAwsProvider(mgr, noClient);
      return { limiter: p.clients.limiter, close: p.close };
    },
  ],
  [
    'gcp',
    (mgr) => {
      const p = wireGcpProvider(mgr, noClient);
      return { limiter: p.clients.limiter, close: p.close };
    },
  ],
  [
    'ibmcloud',
    (mgr) => {
      const p = wireIbmCloudProvider(mgr, noClient);
      return { limiter: p.clients.limiter, close: () => undefined };
    },
  ],
];

describe('provider binaries: mutating cloud calls pass the leader fence', () => {
  for (const [cloud, wire] of wirings) {
    it(`${cloud}: refuses a mutating call once the lease can no longer be counted on; reads still go`, async () => {
      const clock = new FakeClock();
      const fence = new LeaseWriteFence(clock);
      const mgr = new Manager({ client: noClient, logger: nullLogger(), clock, writeFence: fence });
      const wired = wire(mgr);
      try {
        fence.holdUntil(clock.now() + 10_000);
        expect(await outcome(wired.limiter.acquire('scope-1', 'mutate'))).to.equal('sent');
        clock.step(15_000);
        expect(await outcome(wired.limiter.acquire('scope-1', 'mutate'))).to.be.instanceOf(LeaseLostWriteRefusedError);
        expect(await outcome(wired.limiter.acquire('scope-1', 'describe'))).to.equal('sent');
      } finally {
        await wired.close();
      }
    });
  }
});
