import { expect } from 'chai';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import { EmulatorFault, EmulatorKnobs, SeededRandom, type FaultSpec } from '../../../../sim/kit/index.js';

const THROTTLE: FaultSpec = { status: 503, code: 'SlowDown', message: 'too fast' };
const SERVER: FaultSpec = { status: 500, code: 'Boom', message: 'internal' };

function makeKnobs(clock = new FakeClock(), seed = 7): { knobs: EmulatorKnobs; clock: FakeClock } {
  const knobs = new EmulatorKnobs({
    clock,
    seed,
    classify: (a) => (a.startsWith('Describe') ? 'describe' : 'mutate'),
    throttleFault: () => THROTTLE,
    serverFault: () => SERVER,
  });
  return { knobs, clock };
}

async function outcome(p: Promise<void>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof EmulatorFault) return `${err.kind}:${err.code}:${err.status}`;
    throw err;
  }
}

/** Lets promise continuations run between clock steps. */
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('EmulatorKnobs (cloud emulator kit)', () => {
  describe('rate limits', () => {
    it('let a burst through, then answer with the cloud throttling error until tokens refill', async () => {
      const { knobs, clock } = makeKnobs();
      knobs.setRateLimit('mutate', { ratePerSecond: 2, burst: 2 });
      expect(await outcome(knobs.before('RunInstances'))).to.equal('ok');
      expect(await outcome(knobs.before('TerminateInstances'))).to.equal('ok');
      expect(await outcome(knobs.before('RunInstances'))).to.equal('throttle:SlowDown:503');
      expect(await outcome(knobs.before('DescribeInstances')), 'another class is not limited').to.equal('ok');
      clock.step(500);
      expect(await outcome(knobs.before('RunInstances'))).to.equal('ok');
      expect(await outcome(knobs.before('RunInstances'))).to.equal('throttle:SlowDown:503');
      expect(knobs.counts('RunInstances')).to.deep.equal({ total: 4, throttled: 2, failed: 0, lostReplies: 0 });
    });

    it('keep one bucket per action when perAction is set', async () => {
      const { knobs } = makeKnobs();
      knobs.setRateLimit('*', { ratePerSecond: 1, burst: 1, perAction: true });
      expect(await outcome(knobs.before('A'))).to.equal('ok');
      expect(await outcome(knobs.before('B'))).to.equal('ok');
      expect(await outcome(knobs.before('A'))).to.equal('throttle:SlowDown:503');
    });

    it('do not drain one limit when another rejects the call', async () => {
      const { knobs } = makeKnobs();
      knobs.setRateLimit('RunInstances', { ratePerSecond: 1, burst: 1 });
      knobs.setRateLimit('mutate', { ratePerSecond: 1, burst: 5 });
      await knobs.before('RunInstances');
      for (let i = 0; i < 3; i++) expect(await outcome(knobs.before('RunInstances'))).to.equal('throttle:SlowDown:503');
      // The class bucket lost only the one token the successful call used.
      for (let i = 0; i < 4; i++) expect(await outcome(knobs.before('TerminateInstances'))).to.equal('ok');
      expect(await outcome(knobs.before('TerminateInstances'))).to.equal('throttle:SlowDown:503');
    });

    it('reject invalid limits where they are configured', () => {
      const { knobs } = makeKnobs();
      expect(() => knobs.setRateLimit('*', { ratePerSecond: 0, burst: 1 })).to.throw(RangeError, /qps/);
      expect(() => knobs.setRateLimit('*', { ratePerSecond: 1, burst: 0 })).to.throw(RangeError, /burst/);
    });
  });

  describe('injected failures', () => {
    it('fail exactly the next N matching calls with the server fault, overridable per rule', async () => {
      const { knobs } = makeKnobs();
      knobs
        .failNext('RunInstances', 2)
        .failNext('TerminateInstances', 1, { status: 403, code: 'UnauthorizedOperation' });
      expect(await outcome(knobs.before('DescribeInstances'))).to.equal('ok');
      expect(await outcome(knobs.before('RunInstances'))).to.equal('injected:Boom:500');
      expect(await outcome(knobs.before('RunInstances'))).to.equal('injected:Boom:500');
      expect(await outcome(knobs.before('RunInstances'))).to.equal('ok');
      expect(await outcome(knobs.before('TerminateInstances'))).to.equal('injected:UnauthorizedOperation:403');
      expect(knobs.counts('RunInstances')).to.include({ total: 3, failed: 2 });
    });

    it('throttle the next N calls on demand', async () => {
      const { knobs } = makeKnobs();
      knobs.throttleNext(/^Describe/, 1);
      expect(await outcome(knobs.before('DescribeSubnets'))).to.equal('throttle:SlowDown:503');
      expect(await outcome(knobs.before('DescribeSubnets'))).to.equal('ok');
    });

    it('fail with a seeded probability, reproducibly', async () => {
      const run = async (seed: number) => {
        const { knobs } = makeKnobs(new FakeClock(), seed);
        knobs.setFailureRate('*', 0.3);
        const out: string[] = [];
        for (let i = 0; i < 200; i++) out.push(await outcome(knobs.before('X')));
        return out;
      };
      const a = await run(42);
      expect(a).to.deep.equal(await run(42));
      const failures = a.filter((o) => o !== 'ok').length;
      expect(failures).to.be.within(35, 85);
      expect(await run(43)).to.not.deep.equal(a);
    });

    it('validate counts and probabilities', () => {
      const { knobs } = makeKnobs();
      expect(() => knobs.failNext('X', 0)).to.throw(RangeError, /positive integer/);
      expect(() => knobs.setFailureRate('X', 1.5)).to.throw(RangeError, /\[0, 1\]/);
      expect(() => knobs.setLatency(-1)).to.throw(RangeError);
    });
  });

  describe('lost replies', () => {
    it('report a lost reply for the next N matching calls, in the configured mode, after the effect', () => {
      const { knobs } = makeKnobs();
      knobs.loseNextReplies('RunInstances', 1).loseNextReplies('CreateTags', 1, 'server-error');
      expect(knobs.afterEffect('DescribeInstances')).to.equal(undefined);
      expect(knobs.afterEffect('RunInstances')).to.deep.equal({ mode: 'drop-connection' });
      expect(knobs.afterEffect('RunInstances')).to.equal(undefined);
      const lost = knobs.afterEffect('CreateTags');
      expect(lost?.mode).to.equal('server-error');
      expect(lost?.mode === 'server-error' && lost.fault.spec()).to.deep.equal(SERVER);
      expect(knobs.counts('RunInstances').lostReplies).to.equal(1);
    });

    it('lose replies with a probability', () => {
      const { knobs } = makeKnobs();
      knobs.setLostReplyRate('*', 1);
      expect(knobs.afterEffect('A')).to.deep.equal({ mode: 'drop-connection' });
      knobs.reset();
      expect(knobs.afterEffect('A')).to.equal(undefined);
    });
  });

  describe('latency', () => {
    it('delay calls by the fixed latency on the injected clock', async () => {
      const { knobs, clock } = makeKnobs();
      knobs.setLatency(100);
      let done = false;
      const p = knobs.before('X').then(() => (done = true));
      await tick();
      clock.step(99);
      await tick();
      expect(done).to.equal(false);
      clock.step(1);
      await p;
      expect(done).to.equal(true);
    });

    it('draw a random latency within the range, the latest matching rule winning', async () => {
      const { knobs, clock } = makeKnobs();
      knobs.setLatency(1000).setLatency({ minMs: 10, maxMs: 20 }, 'describe');
      let done = false;
      const p = knobs.before('DescribeInstances').then(() => (done = true));
      await tick();
      clock.step(9);
      await tick();
      expect(done).to.equal(false);
      clock.step(11);
      await p;
      expect(done).to.equal(true);
    });
  });

  describe('eventual consistency', () => {
    it('hide a new resource from each view for its delay, falling back to the default delay', () => {
      const { knobs, clock } = makeKnobs();
      knobs.setVisibilityDelay(1000).setVisibilityDelay(200, 'by-id');
      knobs.recordCreation('i-1');
      expect(knobs.isVisible('i-1', 'by-id')).to.equal(false);
      expect(knobs.isVisible('i-1', 'search')).to.equal(false);
      expect(knobs.isVisible('i-unknown', 'search'), 'never-recorded resources are visible').to.equal(true);
      clock.step(200);
      expect(knobs.isVisible('i-1', 'by-id')).to.equal(true);
      expect(knobs.isVisible('i-1', 'search')).to.equal(false);
      clock.step(800);
      expect(knobs.isVisible('i-1', 'search')).to.equal(true);
    });
  });

  it('apply a declarative configuration', async () => {
    const { knobs } = makeKnobs();
    knobs.configure({
      rateLimits: [{ match: ['RunInstances'], ratePerSecond: 1, burst: 1 }],
      failureRates: [{ match: 'TerminateInstances', probability: 1, fault: { code: 'Nope' } }],
      lostReplyRates: [{ match: 'CreateTags', probability: 1, mode: 'server-error' }],
      visibilityDelayMs: { search: 50 },
    });
    await knobs.before('RunInstances');
    expect(await outcome(knobs.before('RunInstances'))).to.equal('throttle:SlowDown:503');
    expect(await outcome(knobs.before('TerminateInstances'))).to.equal('injected:Nope:500');
    expect(knobs.afterEffect('CreateTags')?.mode).to.equal('server-error');
    expect(knobs.visibility.delay('search')).to.equal(50);
    expect(knobs.visibility.delay('by-id')).to.equal(0);
  });

  it('count calls per action and reset the counters', async () => {
    const { knobs } = makeKnobs();
    await knobs.before('A');
    await knobs.before('A');
    knobs.recordError('A');
    await knobs.before('B');
    expect(knobs.allCounts()).to.deep.equal({
      A: { total: 2, throttled: 0, failed: 1, lostReplies: 0 },
      B: { total: 1, throttled: 0, failed: 0, lostReplies: 0 },
    });
    expect(knobs.counters.totalCalls()).to.equal(3);
    knobs.resetCounters();
    expect(knobs.allCounts()).to.deep.equal({});
  });
});

describe('SeededRandom', () => {
  it('repeat its sequence for a seed and stay within the requested ranges', () => {
    const a = new SeededRandom(5);
    const b = new SeededRandom(5);
    const xs = Array.from({ length: 50 }, () => a.int(3, 9));
    expect(xs).to.deep.equal(Array.from({ length: 50 }, () => b.int(3, 9)));
    expect(Math.min(...xs)).to.be.at.least(3);
    expect(Math.max(...xs)).to.be.at.most(9);
    expect(a.hex(17)).to.match(/^[0-9a-f]{17}$/);
    expect(a.uuid()).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
