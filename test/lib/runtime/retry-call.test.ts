// retryCall on a FakeClock: the waits are read off the clock's pending timer, so no test sleeps.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { retryCall } from '../../../lib/runtime/retry-call.js';
import { eventually } from '../../../sim/kit/index.js';

class Transient extends Error {
  override readonly name = 'Transient';
}
class Invalid extends Error {
  override readonly name = 'Invalid';
}
const retryable = (err: unknown) => err instanceof Transient;

/** A call that answers each attempt with the next scripted step (the last one repeats), counting attempts. */
function scripted<T>(steps: Array<T | Error>): { fn: () => Promise<T>; calls: () => number } {
  let n = 0;
  return {
    fn: () => {
      const step = steps[Math.min(n++, steps.length - 1)] as T | Error;
      return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
    },
    calls: () => n,
  };
}

/** Waits until the retry sleeps on the clock, then moves the clock to its wake-up; returns the wait. */
async function stepToNextWake(clock: FakeClock): Promise<number> {
  const at = await eventually('the retry waiting on the clock', async () => clock.nextTimerAt());
  const waited = at - clock.now();
  clock.setTime(at);
  return waited;
}

const settled = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => 'resolved',
    (e: unknown) => e,
  );

describe('retryCall', () => {
  it('retries a retryable error after jittered doubling waits, at most `retries` times, then throws the last error', async () => {
    const clock = new FakeClock();
    const call = scripted<string>([new Transient('1'), new Transient('2'), new Transient('3'), new Transient('4')]);
    const outcome = settled(retryCall(call.fn, { retryable, retries: 3, minTimeoutMs: 100, clock }));
    const waits = [await stepToNextWake(clock), await stepToNextWake(clock), await stepToNextWake(clock)];
    const err = await outcome;
    expect(err).to.be.instanceOf(Transient).with.property('message', '4');
    expect(call.calls()).to.equal(4);
    waits.forEach((w, i) => expect(w, `wait ${i}`).to.be.within(100 * 2 ** i, 2 * 100 * 2 ** i));
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('returns the first success', async () => {
    const clock = new FakeClock();
    const call = scripted<string>([new Transient('1'), 'ok']);
    const result = retryCall(call.fn, { retryable, retries: 5, minTimeoutMs: 10, clock });
    await stepToNextWake(clock);
    expect(await result).to.equal('ok');
    expect(call.calls()).to.equal(2);
  });

  it('throws a non-retryable error at once, without waiting', async () => {
    const clock = new FakeClock();
    const call = scripted<string>([new Invalid('bad request')]);
    const err = await settled(retryCall(call.fn, { retryable, retries: 5, minTimeoutMs: 10, clock }));
    expect(err).to.be.instanceOf(Invalid);
    expect(call.calls()).to.equal(1);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('never retries a programming error (a TypeError that is no network failure), whatever the classifier says', async () => {
    const call = scripted<string>([new TypeError('x is not a function')]);
    const err = await settled(
      retryCall(call.fn, { retryable: () => true, retries: 5, minTimeoutMs: 0, clock: new FakeClock() }),
    );
    expect(err).to.be.instanceOf(TypeError);
    expect(call.calls()).to.equal(1);
  });

  it("stops when the signal aborts during a wait, with the signal's reason, and calls no more", async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const call = scripted<string>([new Transient('1')]);
    const outcome = settled(
      retryCall(call.fn, { retryable, retries: 5, minTimeoutMs: 10, clock, signal: stop.signal }),
    );
    await eventually('the retry waiting on the clock', async () => clock.nextTimerAt());
    const reason = new Error('shutting down');
    stop.abort(reason);
    expect(await outcome).to.equal(reason);
    clock.step(1_000);
    expect(call.calls()).to.equal(1);
  });

  it('does not retry an attempt that failed after the signal aborted: its own error is thrown', async () => {
    const stop = new AbortController();
    let calls = 0;
    const fn = () => {
      calls++;
      stop.abort(new Error('deadline'));
      return Promise.reject(new Transient('cut short'));
    };
    const err = await settled(
      retryCall(fn, { retryable, retries: 5, minTimeoutMs: 0, clock: new FakeClock(), signal: stop.signal }),
    );
    expect(err).to.be.instanceOf(Transient).with.property('message', 'cut short');
    expect(calls).to.equal(1);
  });

  it('starts no attempt once the signal has aborted, and returns a result that arrived after the abort', async () => {
    const aborted = AbortSignal.abort(new Error('gone'));
    let calls = 0;
    const err = await settled(
      retryCall(async () => calls++, { retryable, retries: 1, minTimeoutMs: 0, signal: aborted }),
    );
    expect(err).to.have.property('message', 'gone');
    expect(calls).to.equal(0);

    const stop = new AbortController();
    const made = await retryCall(
      async () => {
        stop.abort();
        return 'instance-1';
      },
      { retryable, retries: 1, minTimeoutMs: 0, signal: stop.signal },
    );
    expect(made, 'the reply to a write that was made').to.equal('instance-1');
  });

  it('waits what waitMs asks (a Retry-After), capped at maxTimeoutMs, and not at all when it says 0', async () => {
    const clock = new FakeClock();
    const asked = [3_000, 60_000, 0];
    const call = scripted<string>([new Transient('1'), new Transient('2'), new Transient('3'), 'ok']);
    const result = retryCall(call.fn, {
      retryable,
      retries: 3,
      minTimeoutMs: 10,
      maxTimeoutMs: 5_000,
      clock,
      waitMs: () => asked.shift() ?? 0,
    });
    expect(await stepToNextWake(clock)).to.equal(3_000);
    expect(await stepToNextWake(clock)).to.equal(5_000);
    expect(await result).to.equal('ok');
    expect(call.calls()).to.equal(4);
  });

  it('names the field and the rule of a bad option', async () => {
    const call = scripted<string>(['ok']);
    for (const [opts, field] of [
      [{ retries: -1, minTimeoutMs: 0 }, 'retries'],
      [{ retries: 1.5, minTimeoutMs: 0 }, 'retries'],
      [{ retries: 1, minTimeoutMs: Number.NaN }, 'minTimeoutMs'],
      [{ retries: 1, minTimeoutMs: 0, factor: 0.5 }, 'factor'],
      [{ retries: 1, minTimeoutMs: 0, maxTimeoutMs: -1 }, 'maxTimeoutMs'],
    ] as const) {
      const err = await settled(retryCall(call.fn, { retryable, ...opts }));
      expect(err).to.be.instanceOf(RangeError);
      expect((err as Error).message.startsWith(`retryCall: ${field} must be`), (err as Error).message).to.equal(true);
    }
    expect(call.calls()).to.equal(0);
  });
});
