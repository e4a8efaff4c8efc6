import { expect } from 'chai';
import { RealClock, RegionalRateLimiter } from '../../../lib/index.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { MeteredVpcApi } from '../../../providers/ibmcloud/metered-vpc-api.js';
import type { VpcApi } from '../../../providers/ibmcloud/vpc-api.js';
import { VpcApiError } from '../../../providers/ibmcloud/vpc-api-error.js';
import type { VpcInstance, Vpc } from '../../../providers/ibmcloud/vpc-types.js';

const apiError = (status: number, code: string, retryAfterSeconds?: number) =>
  new VpcApiError({ service: 'vpc', operation: 'x', status, code, message: 'm', retryAfterSeconds });

/** Lets settled promises run their continuations. */
const settle = () => new Promise((r) => setImmediate(r));

/** A VpcApi whose listVpcs, createInstance and getAccountId answer from scripts; every other call is a test bug. */
function fakeApi(script: {
  listVpcs?: Array<Error | Vpc[]>;
  createInstance?: Array<Error | VpcInstance>;
  getAccountId?: Array<Error | string>;
}): VpcApi & { calls: string[] } {
  const calls: string[] = [];
  const next = <T>(name: string, list: Array<Error | T> | undefined): Promise<T> => {
    calls.push(name);
    const v = list?.shift();
    if (v === undefined) return Promise.reject(new Error(`unexpected call ${name}`));
    return v instanceof Error ? Promise.reject(v) : Promise.resolve(v);
  };
  return new Proxy({ calls } as unknown as VpcApi & { calls: string[] }, {
    get(target, prop) {
      if (prop === 'calls') return calls;
      if (prop === 'listVpcs') return () => next('listVpcs', script.listVpcs);
      if (prop === 'createInstance') return () => next('createInstance', script.createInstance);
      if (prop === 'getAccountId') return () => next('getAccountId', script.getAccountId);
      return (target as unknown as Record<string | symbol, unknown>)[prop];
    },
  });
}

const retry = { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 2 };

describe('the metered VPC client', () => {
  it('makes callers wait for the shared rate limiter once the burst is spent', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter({ describe: { qps: 1, burst: 2 }, mutate: { qps: 1, burst: 1 } }, clock);
    const api = fakeApi({ listVpcs: [[], [], []] });
    const metered = new MeteredVpcApi(api, { limiter, scope: 'us-south', retry });
    const done: number[] = [];
    const calls = [0, 1, 2].map((i) => metered.listVpcs({}).then(() => done.push(i)));
    await Promise.all(calls.slice(0, 2));
    await new Promise((r) => setImmediate(r));
    expect(done).to.deep.equal([0, 1]);
    clock.step(1_000);
    await calls[2];
    expect(done).to.deep.equal([0, 1, 2]);
  });

  it('retries a read throttled (429) or failed with a 5xx, and gives up on a bad request at once', async () => {
    // Real time: the 429's pause and the backoffs are a few milliseconds.
    const limiter = new RegionalRateLimiter(
      { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      new RealClock(),
    );
    const api = fakeApi({
      listVpcs: [
        apiError(429, 'rate_limit_exceeded'),
        apiError(503, 'unavailable'),
        [],
        apiError(400, 'bad_parameter'),
      ],
    });
    const metered = new MeteredVpcApi(api, { limiter, scope: 'r', retry });
    expect(await metered.listVpcs({})).to.deep.equal([]);
    expect(api.calls).to.have.length(3);
    let caught: unknown;
    await metered.listVpcs({}).catch((e: unknown) => (caught = e));
    expect(caught).to.be.instanceOf(VpcApiError).with.property('status', 400);
    expect(api.calls).to.have.length(4);
  });

  it("waits out a 429's Retry-After, and holds every other caller of that class back meanwhile", async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter(
      { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      clock,
    );
    const api = fakeApi({ listVpcs: [apiError(429, 'rate_limit_exceeded', 2), [], []] });
    const metered = new MeteredVpcApi(api, { limiter, scope: 'r', retry: { ...retry, maxTimeoutMs: 5_000 }, clock });
    const first = metered.listVpcs({});
    await settle();
    expect(api.calls).to.have.length(1);
    const second = metered.listVpcs({});
    clock.step(1_000);
    await settle();
    expect(api.calls, 'nobody calls during the pause').to.have.length(1);
    clock.step(1_600);
    expect(await first).to.deep.equal([]);
    expect(await second).to.deep.equal([]);
    expect(api.calls).to.have.length(3);
  });

  it('sends POST /instances again after a 429, which refused it unread', async () => {
    const limiter = new RegionalRateLimiter(
      { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      new RealClock(),
    );
    const instance = { id: 'i-1', name: 'w' } as VpcInstance;
    const api = fakeApi({ createInstance: [apiError(429, 'rate_limit_exceeded'), instance] });
    const metered = new MeteredVpcApi(api, { limiter, scope: 'r', retry });
    expect(await metered.createInstance({} as never)).to.equal(instance);
    expect(api.calls).to.deep.equal(['createInstance', 'createInstance']);
  });

  it('never retries POST /instances after a lost reply or a 5xx: the next reconcile settles it by name', async () => {
    const limiter = new RegionalRateLimiter(
      { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      new FakeClock(),
    );
    const api = fakeApi({ createInstance: [apiError(0, 'ECONNRESET'), apiError(503, 'service_unavailable')] });
    const metered = new MeteredVpcApi(api, { limiter, scope: 'r', retry });
    for (const status of [0, 503]) {
      let caught: unknown;
      await metered.createInstance({} as never).catch((e: unknown) => (caught = e));
      expect(caught).to.be.instanceOf(VpcApiError).with.property('status', status);
    }
    expect(api.calls).to.deep.equal(['createInstance', 'createInstance']);
  });

  it('retries the IAM token fetch behind getAccountId after a 5xx or a 429 (its Retry-After waited out), and not after a bad request', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter(
      { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
      clock,
    );
    const iamError = (status: number, code: string, retryAfterSeconds?: number) =>
      new VpcApiError({ service: 'iam', operation: 'getToken', status, code, message: 'm', retryAfterSeconds });
    const api = fakeApi({
      getAccountId: [
        iamError(503, 'unavailable'),
        iamError(429, 'rate_limit_exceeded', 2),
        'acct-1',
        iamError(400, 'BXNIM0415E'),
      ],
    });
    const metered = new MeteredVpcApi(api, { limiter, scope: 'r', retry: { ...retry, maxTimeoutMs: 5_000 }, clock });
    const account = metered.getAccountId();
    await settle();
    expect(api.calls, 'the 503 is retried after the backoff').to.have.length(1);
    clock.step(2);
    await settle();
    expect(api.calls).to.have.length(2);
    clock.step(1_900);
    await settle();
    expect(api.calls, 'the 429 asked for 2 s').to.have.length(2);
    clock.step(600);
    expect(await account).to.equal('acct-1');
    let caught: unknown;
    await metered.getAccountId().catch((e: unknown) => (caught = e));
    expect(caught).to.be.instanceOf(VpcApiError).with.property('status', 400);
    expect(api.calls).to.have.length(4);
  });
});
