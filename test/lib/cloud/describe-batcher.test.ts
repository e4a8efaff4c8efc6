import { expect } from 'chai';
import { DescribeBatcher, FakeClock } from '../../../lib/index.js';

const flush = () => new Promise((r) => setImmediate(r));

describe('DescribeBatcher', () => {
  function setup(maxBatch = 1000) {
    const clock = new FakeClock();
    const calls: string[][] = [];
    let fail: Error | undefined;
    const batcher = new DescribeBatcher<string>({
      windowMs: 5,
      maxBatch,
      clock,
      fetch: async (keys) => {
        calls.push(keys);
        if (fail) throw fail;
        return new Map(keys.filter((k) => !k.startsWith('gone')).map((k) => [k, `value-${k}`]));
      },
    });
    return { clock, calls, batcher, failWith: (e: Error) => (fail = e) };
  }

  it('coalesces look-ups arriving within the window into one call, and de-duplicates keys', async () => {
    const { clock, calls, batcher } = setup();
    const results = Promise.all([batcher.get('a'), batcher.get('b'), batcher.get('a'), batcher.get('gone-1')]);
    await flush();
    expect(calls).to.deep.equal([], 'nothing is sent before the window closes');
    clock.step(5);
    expect(await results).to.deep.equal(['value-a', 'value-b', 'value-a', undefined]);
    expect(calls).to.deep.equal([['a', 'b', 'gone-1']]);
  });

  it('starts a new batch for look-ups after the window', async () => {
    const { clock, calls, batcher } = setup();
    const first = batcher.get('a');
    clock.step(5);
    await first;
    const second = batcher.get('b');
    clock.step(5);
    await second;
    expect(calls).to.deep.equal([['a'], ['b']]);
  });

  it('sends a full batch at once without waiting for the window', async () => {
    const { calls, batcher } = setup(2);
    const results = Promise.all([batcher.get('a'), batcher.get('b')]);
    expect(await results).to.deep.equal(['value-a', 'value-b']);
    expect(calls).to.deep.equal([['a', 'b']]);
  });

  it('fails every caller of a batch whose call fails', async () => {
    const { clock, batcher, failWith } = setup();
    failWith(new Error('RequestLimitExceeded'));
    const a = batcher.get('a');
    const b = batcher.get('b');
    clock.step(5);
    for (const p of [a, b]) {
      try {
        await p;
        expect.fail('should reject');
      } catch (err) {
        expect((err as Error).message).to.equal('RequestLimitExceeded');
      }
    }
  });

  it('lets an aborted caller stop waiting while the batch still serves the others', async () => {
    const { clock, batcher, calls } = setup();
    const ac = new AbortController();
    const a = batcher.get('a', ac.signal);
    const b = batcher.get('b');
    ac.abort(new Error('cancelled'));
    try {
      await a;
      expect.fail('should reject');
    } catch (err) {
      expect((err as Error).message).to.equal('cancelled');
    }
    clock.step(5);
    expect(await b).to.equal('value-b');
    expect(calls).to.have.length(1);
  });

  it("holds a closed window's batch open until admitted, so look-ups queued behind a rate limit ride one call", async () => {
    const clock = new FakeClock();
    const calls: string[][] = [];
    let admit!: () => void;
    const batcher = new DescribeBatcher<string>({
      windowMs: 5,
      maxBatch: 1000,
      clock,
      admit: () => new Promise<void>((r) => (admit = r)),
      fetch: async (keys) => {
        calls.push(keys);
        return new Map(keys.map((k) => [k, `value-${k}`]));
      },
    });
    const first = batcher.get('a');
    clock.step(5);
    await flush();
    const late = [batcher.get('b'), batcher.get('c')];
    clock.step(50);
    await flush();
    expect(calls).to.deep.equal([], 'nothing is sent before admission');
    admit();
    expect(await Promise.all([first, ...late])).to.deep.equal(['value-a', 'value-b', 'value-c']);
    expect(calls).to.deep.equal([['a', 'b', 'c']]);
  });
});
