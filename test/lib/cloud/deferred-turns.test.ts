import { expect } from 'chai';
import {
  CloudRateLimitedError,
  DeferredTurns,
  FakeClock,
  RegionalRateLimiter,
  RequeueAfterError,
  isCloudCallDeferred,
  requeueAfterOf,
  withCloudCallContext,
} from '../../../lib/index.js';

/** Moves the clock on in 50 ms steps, letting woken callers run between them. */
async function stepThrough(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 50) {
    clock.step(50);
    await new Promise((r) => setImmediate(r));
  }
}

function deferredTurns(): { clock: FakeClock; turns: DeferredTurns } {
  const clock = new FakeClock();
  return { clock, turns: new DeferredTurns(clock) };
}

describe('DeferredTurns', () => {
  it('lets a caller join a short line (three token intervals at most), and sends the rest away in order, one interval apart', () => {
    const { turns } = deferredTurns();
    expect(turns.admit('a', 500, 200, 2_000), 'a short line is joined').to.equal(undefined);
    expect(turns.admit('b', 700, 200, 2_000), 'beyond three intervals, it is not').to.be.a('number');
    // b comes back when the line ahead of it is down to half the bound; c one interval after b.
    const c = turns.admit('c', 5_000, 200, 2_000);
    const d = turns.admit('d', 5_000, 200, 2_000);
    expect(c).to.equal(5_000 + 200 - 300);
    expect(d).to.equal(5_000 + 400 - 300);
    expect(turns.pending).to.equal(3);
  });

  it('never lets more than deferBeyondMs of line hold a caller, however slow the rate', () => {
    const { turns } = deferredTurns();
    expect(turns.admit('a', 1_500, 4_000, 1_000), "a 1.5 s wait is beyond the caller's 1 s").to.equal(1_000);
  });

  it("keeps a caller's place and works its wait out again at the rate of the moment", () => {
    const { clock, turns } = deferredTurns();
    expect(turns.admit('first', 5_000, 200, 2_000)).to.equal(5_000 - 300);
    expect(turns.admit('second', 5_000, 200, 2_000)).to.equal(5_200 - 300);
    clock.step(1_000);
    // second is back early (its Machine changed) and the rate has fallen to a token every 400 ms: first is
    // still ahead of it, and its wait is worked out at the new rate.
    expect(turns.admit('second', 4_000, 400, 2_000)).to.equal(4_000 + 400 - 600);
    clock.step(3_700);
    expect(turns.admit('first', 400, 400, 2_000), 'first, back at its time, joins').to.equal(undefined);
    clock.step(100);
    expect(turns.admit('second', 800, 400, 2_000), 'then second').to.equal(undefined);
    expect(turns.pending).to.equal(0);
  });

  it('does not count a caller whose time has come as ahead: it is on its way back and joins as it arrives', () => {
    const { clock, turns } = deferredTurns();
    const first = turns.admit('first', 5_000, 200, 2_000) ?? 0;
    turns.admit('second', 5_000, 200, 2_000);
    clock.step(first + 200);
    expect(turns.admit('second', 500, 200, 2_000), 'first is still in its reconcile').to.equal(undefined);
    expect(turns.pending).to.equal(1);
  });

  it('forgets a caller that has not come back long after its time (its Machine was deleted)', () => {
    const { clock, turns } = deferredTurns();
    const back = turns.admit('gone', 5_000, 200, 2_000) ?? 0;
    clock.step(back + 31_000);
    expect(turns.admit('next', 200, 200, 2_000), 'nobody ahead of it any more').to.equal(undefined);
    expect(turns.pending).to.equal(0);
  });

  it("keeps a caller let in at the front when it asks again (the SDK's retry of a refused attempt), and when that retry must wait, brings it back ahead of those sent away", () => {
    const { clock, turns } = deferredTurns();
    for (const k of ['a', 'b', 'c', 'd', 'e']) turns.admit(k, 5_000, 200, 1_000);
    expect(turns.admit('m', 0, 200, 1_000), 'a token is free').to.equal(undefined);
    // The cloud refused m's attempt; its retry is not sent behind the five waiting.
    expect(turns.admit('m', 400, 200, 1_000, true)).to.equal(undefined);
    // Refused again, and now the class is paused: the retry waits, and comes back first.
    expect(turns.admit('m', 900, 200, 1_000, true)).to.equal(900 - 300);
    clock.step(600);
    expect(turns.admit('m', 300, 200, 1_000)).to.equal(undefined);
  });

  it('gives a free token to whoever asks, even while others hold turns: late callers leave no token unused', () => {
    const { clock, turns } = deferredTurns();
    turns.admit('early', 5_000, 200, 2_000);
    turns.admit('promised', 5_000, 200, 2_000);
    // The line has emptied and a token is free before the callers with turns are back.
    clock.step(3_000);
    expect(turns.admit('newcomer', 0, 200, 2_000), 'a newcomer takes the free token').to.equal(undefined);
    expect(turns.admit('early', 0, 200, 2_000), 'back before its turn, with a token free').to.equal(undefined);
    expect(turns.pending, "the early caller's turn is given up").to.equal(1);
  });
});

describe('DeferredTurns promising turns before the call', () => {
  /** How long until a bucket of `tokens` tokens at `qps` holds n of them. */
  const bucketOf = (tokens: number, qps: number) => (n: number) => (n <= tokens ? 0 : ((n - tokens) / qps) * 1000);

  it('promises a token at once while the bucket holds one for every caller promised before, then sends callers away one interval apart', () => {
    const { turns } = deferredTurns();
    const wait = bucketOf(3, 5);
    const told = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((k) => turns.promise(k, wait, 200, 2_000));
    // a, b, c take the three tokens; d, e, f stand within the line's bound (three intervals of 200 ms).
    expect(told.slice(0, 6)).to.deep.equal([undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(told.slice(6)).to.deep.equal([800 - 300, 1_000 - 300]);
    expect(turns.promisedNow).to.equal(6);
    expect(turns.pending).to.equal(2);
  });

  it('releases a promised token when its call comes, and gives up one whose call has not come in 10 s', () => {
    const { clock, turns } = deferredTurns();
    expect(turns.promise('a', bucketOf(1, 5), 200, 2_000)).to.equal(undefined);
    expect(turns.promise('b', bucketOf(1, 5), 200, 2_000), 'a holds the one token: b stands in line').to.equal(
      undefined,
    );
    // a's call comes and takes its token from the bucket: the bucket now counts it, the promises do not.
    expect(turns.admit('a', 0, 200, 2_000)).to.equal(undefined);
    expect(turns.promisedNow).to.equal(1);
    clock.step(10_001);
    expect(turns.promise('c', bucketOf(1, 5), 200, 2_000), "b's promise is given up").to.equal(undefined);
    expect(turns.promisedNow).to.equal(1);
  });

  it('counts, ahead of a turn it promises, callers whose time has come but whose calls have not (a call placed then does not)', () => {
    const { clock, turns } = deferredTurns();
    const empty = bucketOf(0, 5);
    const first = turns.promise('first', bucketOf(-3, 5), 200, 300) ?? 0;
    clock.step(first);
    // first is due and on its way (in the work queue): its token is not taken yet, and will be before the
    // next newcomer's; a call made now, though, would not wait for it.
    expect(turns.admit('now', 200, 200, 300)).to.equal(undefined);
    expect(turns.promise('next', empty, 200, 300)).to.equal(200 + 200 - 150);
  });

  it('lets a caller sent away at its promise come back at its turn and go', () => {
    const { clock, turns } = deferredTurns();
    // Three calls already wait for the bucket's next tokens.
    const back = turns.promise('m', bucketOf(-3, 5), 200, 500) ?? 0;
    expect(back).to.equal(800 - 250);
    clock.step(back);
    expect(turns.admit('m', 250, 200, 500)).to.equal(undefined);
    expect(turns.pending).to.equal(0);
  });
});

describe('RegionalRateLimiter deferring calls made in a reconcile', () => {
  const limits = { describe: { qps: 5, burst: 1 }, mutate: { qps: 5, burst: 1 } };
  const context = (key: string) => ({ key, deferBeyondMs: 1_000 });

  it('throws CloudRateLimitedError, a RequeueAfterError with the time of its turn, instead of queueing a mutating call for long', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter(limits, clock);
    // Ten calls already wait in line: two seconds at 5/s.
    const waiting = Array.from({ length: 11 }, () => limiter.acquire('r', 'mutate'));
    let caught: unknown;
    await withCloudCallContext(context('m1'), () => limiter.acquire('r', 'mutate')).catch((e: unknown) => (caught = e));
    expect(caught).to.be.instanceOf(CloudRateLimitedError).and.instanceOf(RequeueAfterError);
    expect(isCloudCallDeferred(caught)).to.equal(true);
    expect(requeueAfterOf(caught)).to.be.within(1_000, 2_500);
    expect((caught as Error).message).to.contain("waiting for the cloud's request rate (r, mutate calls)");
    await stepThrough(clock, 3_000);
    await Promise.all(waiting);
  });

  it('keeps reads and calls outside a reconcile waiting in line as before', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter(limits, clock);
    const waiting = Array.from({ length: 11 }, () => limiter.acquire('r', 'describe'));
    const read = withCloudCallContext(context('m1'), () => limiter.acquire('r', 'describe'));
    const outside = limiter.acquire('r', 'mutate');
    await stepThrough(clock, 5_000);
    await Promise.all([...waiting, read, outside]);
  });

  it('keeps the retry of an attempt the cloud refused for its rate at the front of the line, not a later reconcile of the same Machine', async () => {
    /**
     * m's attempt is refused for the cloud's rate (the class's rate halves to 2.5/s); three calls then stand in
     * line and two are sent away behind them.
     */
    const lineWithM = async () => {
      const clock = new FakeClock();
      const limiter = new RegionalRateLimiter({ ...limits, mutate: { qps: 5, burst: 1 } }, clock);
      const reconcile = context('m');
      const refusal = new Error('RequestLimitExceeded');
      await withCloudCallContext(reconcile, () =>
        limiter.send('r', 'mutate', () => Promise.reject(refusal), { isThrottling: (e) => e === refusal }),
      ).catch(() => undefined);
      const others = ['a', 'b', 'c', 'd', 'e'].map((k) =>
        withCloudCallContext(context(k), () => limiter.acquire('r', 'mutate')).catch((e: unknown) => e),
      );
      const requeueOf = (p: Promise<unknown>) =>
        p.then(
          () => undefined,
          (e: unknown) => requeueAfterOf(e),
        );
      return { clock, limiter, reconcile, others, requeueOf };
    };
    const first = await lineWithM();
    // The retry waits for the line ahead, not also for the two sent away after it was refused.
    const retry = await first.requeueOf(
      withCloudCallContext(first.reconcile, () => first.limiter.acquire('r', 'mutate')),
    );
    const second = await lineWithM();
    // A later reconcile of m is a call like any other: behind those sent away.
    const later = await second.requeueOf(
      withCloudCallContext(context('m'), () => second.limiter.acquire('r', 'mutate')),
    );
    expect(retry).to.be.a('number');
    expect(later).to.be.above(retry ?? Infinity);
    for (const bed of [first, second]) {
      await stepThrough(bed.clock, 4_000);
      await Promise.all(bed.others);
    }
  });

  it('tells a reconcile-to-be its turn (turnIn) so that, called at that turn, every call goes at once: none deferred', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter({ ...limits, mutate: { qps: 5, burst: 3 } }, clock);
    const keys = Array.from({ length: 12 }, (_, i) => `m${i}`);
    const due = new Map(keys.map((k) => [k, clock.now() + (limiter.turnIn('r', 'mutate', k, 1_000) ?? 0)]));
    const sent: string[] = [];
    const calls: Promise<unknown>[] = [];
    let deferred = 0;
    for (let t = 0; t < 5_000 && sent.length < keys.length; t += 50) {
      for (const [key, at] of [...due]) {
        if (at > clock.now()) continue;
        due.delete(key);
        const call = withCloudCallContext(context(key), () => limiter.acquire('r', 'mutate'));
        calls.push(
          call.then(
            () => sent.push(key),
            () => deferred++,
          ),
        );
      }
      clock.step(50);
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(calls);
    expect(sent).to.deep.equal(keys);
    expect(deferred).to.equal(0);
  });

  it('defers none of a scale-up whose work queue is slower than the burst: the turns promised as Machines appear hold the tokens for those promised before', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const limiter = new RegionalRateLimiter({ ...limits, mutate: { qps: 20, burst: 100 } }, clock);
    // 300 Machines appear at 100 a second; the workers reach 50 a second, so for seconds the bucket holds tokens
    // that belong to Machines promised before, still waiting in the queue.
    const due: { key: string; at: number }[] = [];
    const calls: Promise<unknown>[] = [];
    let appeared = 0;
    let nextWorkAt = start;
    let launched = 0;
    let deferred = 0;
    while (launched < 300 && clock.now() - start < 30_000) {
      for (; appeared < Math.min(300, ((clock.now() - start) / 1000) * 100 + 1); appeared++) {
        const key = `m${appeared}`;
        due.push({ key, at: clock.now() + (limiter.turnIn('r', 'mutate', key, 2_000) ?? 0) });
      }
      due.sort((a, b) => a.at - b.at);
      if (nextWorkAt <= clock.now() && due[0] && due[0].at <= clock.now()) {
        const { key } = due.shift()!;
        nextWorkAt = clock.now() + 20;
        const call = withCloudCallContext({ key, deferBeyondMs: 2_000 }, () => limiter.acquire('r', 'mutate'));
        calls.push(
          call.then(
            () => launched++,
            () => deferred++,
          ),
        );
      }
      clock.step(5);
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(calls);
    expect(deferred).to.equal(0);
    expect(launched).to.equal(300);
    expect(clock.now() - start, "the bucket's floor: 200 past the burst at 20 a second").to.be.below(10_500);
  });

  it('serves deferred callers at their turns: each comes back once and gets its token', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const limiter = new RegionalRateLimiter(limits, clock);
    const sent: string[] = [];
    const comeBack = new Map<string, number>();
    const keys = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const attempt = async (key: string) => {
      try {
        await withCloudCallContext(context(key), () => limiter.acquire('r', 'mutate'));
        sent.push(key);
      } catch (err) {
        comeBack.set(key, clock.now() + (requeueAfterOf(err) ?? 0));
      }
    };
    const inFlight = keys.map((k) => attempt(k));
    let deferrals = comeBack.size;
    for (let t = 0; t < 10_000 && sent.length < keys.length; t += 50) {
      clock.step(50);
      await new Promise((r) => setImmediate(r));
      for (const [key, at] of [...comeBack]) {
        if (at > clock.now()) continue;
        comeBack.delete(key);
        inFlight.push(attempt(key));
        deferrals++;
      }
    }
    await Promise.all(inFlight);
    expect([...sent].sort()).to.deep.equal([...keys].sort());
    expect(clock.now() - start, '20 calls at 5/s').to.be.below(5_500);
    expect(deferrals, 'nobody deferred twice').to.be.at.most(keys.length);
  });
});
