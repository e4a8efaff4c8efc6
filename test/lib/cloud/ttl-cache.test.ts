import { expect } from 'chai';
import { TtlCache } from '../../../lib/cloud/ttl-cache.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

describe('TtlCache', () => {
  it('forgets an entry once its time is up', () => {
    const clock = new FakeClock();
    const c = new TtlCache<string>(clock, 1_000);
    c.set('k', 'v');
    clock.step(999);
    expect(c.get('k')).to.equal('v');
    clock.step(1);
    expect(c.get('k')).to.equal(undefined);
  });

  it('take() answers once, and nothing for an expired entry', () => {
    const clock = new FakeClock();
    const c = new TtlCache<string>(clock, 1_000);
    c.set('k', 'v');
    expect(c.take('k')).to.equal('v');
    expect(c.take('k')).to.equal(undefined);
    c.set('k', 'w');
    clock.step(1_000);
    expect(c.take('k')).to.equal(undefined);
  });

  it('drops expired entries that are never read again, so one per Machine ever seen does not pile up', () => {
    const clock = new FakeClock();
    const cache = new TtlCache<string>(clock, 5_000);
    for (let i = 0; i < 100; i++) cache.set(`m${i}`, 'instance');
    clock.step(6_000);
    cache.set('new', 'instance');
    expect(cache.size).to.equal(1);
  });
});
