import { expect } from 'chai';
import { RefreshingCache } from '../../../lib/cloud/refreshing-cache.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

describe('RefreshingCache', () => {
  it('reuses an answer until the TTL passes, then loads again', async () => {
    const clock = new FakeClock();
    const cache = new RefreshingCache<number>(clock, 1_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', load)).to.equal(1);
    clock.step(999);
    expect(await cache.get('k', load)).to.equal(1);
    clock.step(1);
    expect(await cache.get('k', load)).to.equal(2);
    expect(await cache.get('other', load)).to.equal(3);
  });

  it('shares one look-up between concurrent callers of a key', async () => {
    const cache = new RefreshingCache<string>(new FakeClock(), 1_000);
    let loads = 0;
    let release: (v: string) => void = () => {};
    const load = () => {
      loads++;
      return new Promise<string>((r) => (release = r));
    };
    const a = cache.get('k', load);
    const b = cache.get('k', load);
    release('v');
    expect(await Promise.all([a, b])).to.deep.equal(['v', 'v']);
    expect(loads).to.equal(1);
  });

  it('serves the previous answer when a refresh fails, telling onStale why; fails when there is none', async () => {
    const clock = new FakeClock();
    const cache = new RefreshingCache<string>(clock, 10);
    const boom = new Error('cloud down');
    const stale: unknown[] = [];
    await cache.get('k', async () => 'old');
    clock.step(10);
    expect(
      await cache.get(
        'k',
        () => Promise.reject(boom),
        (e) => stale.push(e),
      ),
    ).to.equal('old');
    expect(stale).to.deep.equal([boom]);
    const caught = await cache.get('new', () => Promise.reject(boom)).catch((e: unknown) => e);
    expect(caught).to.equal(boom);
  });

  it('does not stand a previous answer in when serveStale refuses it', async () => {
    const clock = new FakeClock();
    const cache = new RefreshingCache<string | null>(clock, 10, { serveStale: (v) => v !== null });
    await cache.get('k', async () => null);
    clock.step(10);
    const boom = new Error('cloud down');
    expect(await cache.get('k', () => Promise.reject(boom)).catch((e: unknown) => e)).to.equal(boom);
  });
});
