import { expect } from 'chai';
import { ConfigMaps } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { cacheCaughtUp } from '../../../lib/runtime/cache-catch-up.js';
import { FakeInformer, obj } from './support/fake-informer.js';

const settle = () => new Promise<void>((r) => setImmediate(r));

describe('cacheCaughtUp', () => {
  const setup = () => {
    const clock = new FakeClock();
    const informer = new FakeInformer(ConfigMaps);
    informer.fire('add', obj('a', 'ns', { resourceVersion: '1' }));
    const rv = () => Number(informer.get({ namespace: 'ns', name: 'a' })?.metadata.resourceVersion);
    return { clock, informer, rv };
  };

  it('resolves true at once when the cache holds the write already', async () => {
    const { clock, informer, rv } = setup();
    expect(await cacheCaughtUp([informer], () => rv() >= 1, clock, 100)).to.equal(true);
  });

  it('resolves true on the update that brings the write, before the bound, and leaves no handler behind', async () => {
    const { clock, informer, rv } = setup();
    let result: boolean | undefined;
    void cacheCaughtUp([informer], () => rv() >= 3, clock, 100).then((r) => (result = r));
    informer.fire('update', obj('a', 'ns', { resourceVersion: '2' }), obj('a'));
    await settle();
    expect(result).to.equal(undefined);
    informer.fire('update', obj('a', 'ns', { resourceVersion: '3' }), obj('a'));
    await settle();
    expect(result).to.equal(true);
    clock.step(1_000);
    expect((informer as unknown as { handlers: { update: Set<unknown> } }).handlers.update.size).to.equal(0);
  });

  it('resolves false once the bound has passed without it, or when the reconcile is aborted', async () => {
    const { clock, informer, rv } = setup();
    const late = cacheCaughtUp([informer], () => rv() >= 3, clock, 100);
    clock.step(100);
    expect(await late).to.equal(false);
    const abort = new AbortController();
    const aborted = cacheCaughtUp([informer], () => rv() >= 3, clock, 100, abort.signal);
    abort.abort();
    expect(await aborted).to.equal(false);
  });
});
