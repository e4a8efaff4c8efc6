import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { PromiseCache } from '../../../lib/cloud/promise-cache.js';

function counter(results: Array<() => Promise<string>>) {
  const load = () => {
    load.calls++;
    const next = results.shift();
    if (!next) throw new Error('no more answers');
    return next();
  };
  load.calls = 0;
  return load;
}

describe('PromiseCache', () => {
  it('shares one call among concurrent callers and keeps its answer until the TTL passes', async () => {
    const clock = new FakeClock();
    const cache = new PromiseCache<string>(clock, 1_000);
    const load = counter([() => Promise.resolve('a'), () => Promise.resolve('b')]);
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).to.deep.equal(['a', 'a']);
    clock.step(999);
    expect(await cache.get('k', load)).to.equal('a');
    clock.step(1);
    expect(await cache.get('k', load)).to.equal('b');
    expect(load.calls).to.equal(2);
  });

  it('forgets a failed call at once, so the next caller tries again', async () => {
    const cache = new PromiseCache<string>(new FakeClock(), 60_000);
    const load = counter([() => Promise.reject(new Error('unavailable')), () => Promise.resolve('ok')]);
    await cache.get('k', load).then(
      () => expect.fail('should reject'),
      (err: Error) => expect(err.message).to.equal('unavailable'),
    );
    expect(await cache.get('k', load)).to.equal('ok');
    expect(load.calls).to.equal(2);
  });

  it('a late failure of an expired call does not drop the newer answer', async () => {
    const clock = new FakeClock();
    const cache = new PromiseCache<string>(clock, 1_000);
    let failOld!: (err: Error) => void;
    const old = cache.get('k', () => new Promise<string>((_resolve, reject) => (failOld = reject)));
    clock.step(1_000);
    const load = counter([() => Promise.resolve('new'), () => Promise.resolve('newer')]);
    expect(await cache.get('k', load)).to.equal('new');
    failOld(new Error('late'));
    await old.catch(() => undefined);
    expect(await cache.get('k', load)).to.equal('new');
    expect(load.calls).to.equal(1);
  });

  it('keeps answers forever with an infinite TTL, until deleted', async () => {
    const clock = new FakeClock();
    const cache = new PromiseCache<string>(clock, Infinity);
    const load = counter([() => Promise.resolve('a'), () => Promise.resolve('b')]);
    await cache.get('k', load);
    clock.step(365 * 24 * 3_600_000);
    expect(await cache.get('k', load)).to.equal('a');
    cache.delete('k');
    expect(await cache.get('k', load)).to.equal('b');
  });
});
