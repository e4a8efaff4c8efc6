import { expect } from 'chai';
import { FakeClock, ListingSnapshot, type Widening } from '../../../lib/index.js';

const flush = () => new Promise((r) => setImmediate(r));

interface Call {
  keys: string[];
  widened: boolean;
  recent: string[];
}

/** A cloud scope holding `world`; a widened fetch lists all of it, a plain one only the keys asked. */
function setup(
  opts: {
    world?: string[];
    reuseMs?: number;
    burstSize?: number;
    worthWatching?: (v: string) => boolean;
    settled?: (v: string) => boolean;
    maxWidened?: number;
    fetchListsScope?: boolean;
  } = {},
) {
  const clock = new FakeClock();
  const world = new Map((opts.world ?? []).map((k) => [k, `v1-${k}`]));
  const calls: Call[] = [];
  let gate: Promise<void> | undefined;
  let fail: Error | undefined;
  const snapshot = new ListingSnapshot<string>({
    clock,
    maxBatch: 100,
    reuseMs: opts.reuseMs,
    burstSize: opts.burstSize,
    worthWatching: opts.worthWatching,
    settled: opts.settled,
    maxWidened: opts.maxWidened,
    fetchListsScope: opts.fetchListsScope,
    fetch: async (keys: string[], widen: Widening | undefined) => {
      calls.push({ keys, widened: widen !== undefined, recent: widen?.recent ?? [] });
      // Read the world when the call is made, as a cloud would, and answer when the gate opens.
      const seen = widen
        ? new Map(world)
        : new Map(keys.flatMap((k) => (world.has(k) ? [[k, world.get(k) as string] as const] : [])));
      if (gate) await gate;
      if (fail) throw fail;
      return seen;
    },
  });
  /** Looks keys up together, letting the batch window close. */
  const check = async (...keys: string[]) => {
    const pending = Promise.all(keys.map((k) => snapshot.get(k)));
    await flush();
    clock.step(5);
    return pending;
  };
  const hold = () => {
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    return () => {
      gate = undefined;
      open();
    };
  };
  return { clock, world, calls, snapshot, check, hold, failWith: (e: Error | undefined) => (fail = e) };
}

const names = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('ListingSnapshot', () => {
  it('coalesces look-ups within the window into one plain fetch when the batch is not a burst', async () => {
    const { calls, check } = setup({ world: ['a', 'b', 'c'] });
    expect(await check('a', 'b', 'gone')).to.deep.equal(['v1-a', 'v1-b', undefined]);
    expect(calls).to.deep.equal([{ keys: ['a', 'b', 'gone'], widened: false, recent: [] }]);
  });

  it('answers the other keys of a burst-widened listing from it, so a resync of many keys costs one fetch', async () => {
    const world = names(20);
    const { calls, check } = setup({ world });
    expect(await check('m0', 'm1', 'm2', 'm3')).to.deep.equal(['v1-m0', 'v1-m1', 'v1-m2', 'v1-m3']);
    for (const k of world.slice(4)) expect(await check(k)).to.deep.equal([`v1-${k}`]);
    expect(calls).to.have.length(1);
    expect(calls[0]?.widened).to.equal(true);
  });

  it('serves a snapshot answer once per key: the next look-up of that key reads the cloud afresh', async () => {
    const { world, calls, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    expect(await check('m4')).to.deep.equal(['v1-m4']);
    world.delete('m4');
    expect(await check('m4')).to.deep.equal(
      [undefined],
      'an event-driven re-check is not answered from the old listing',
    );
    expect(calls.map((c) => c.keys)).to.deep.equal([['m0', 'm1', 'm2', 'm3'], ['m4']]);
  });

  it('never reports a key gone from a snapshot: a key the listing did not show goes to a real fetch', async () => {
    const { world, calls, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    world.set('late', 'v1-late');
    expect(await check('late')).to.deep.equal(['v1-late']);
    expect(calls.at(-1)).to.deep.equal({ keys: ['late'], widened: false, recent: [] });
  });

  it('does not widen outside a burst, so checks spread over time never fill the snapshot', async () => {
    const { clock, calls, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2');
    clock.step(1_001);
    await check('m4');
    clock.step(1_001);
    await check('m5');
    expect(calls.map((c) => [c.keys, c.widened])).to.deep.equal([
      [['m0', 'm1', 'm2'], false],
      [['m4'], false],
      [['m5'], false],
    ]);
  });

  it('counts a burst over burstWithinMs, as a resync whose few workers check a few Machines at a time', async () => {
    const { clock, calls, check } = setup({ world: names(10) });
    await check('m0', 'm1');
    clock.step(300);
    await check('m2');
    clock.step(300);
    await check('m3');
    for (const k of names(6).slice(4)) expect(await check(k)).to.deep.equal([`v1-${k}`]);
    expect(calls.map((c) => [c.keys, c.widened])).to.deep.equal([
      [['m0', 'm1'], false],
      [['m2'], false],
      [['m3'], true],
    ]);
  });

  it('stops serving a snapshot answer after reuseMs', async () => {
    const { clock, world, calls, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    world.set('m5', 'v2-m5');
    clock.step(10_000);
    expect(await check('m5')).to.deep.equal(['v2-m5']);
    expect(calls).to.have.length(2);
  });

  it('widens at most once per half reuse period, however many bursts come', async () => {
    const { clock, calls, check } = setup({ world: names(30) });
    await check('m0', 'm1', 'm2', 'm3');
    await check('m0', 'm1', 'm2', 'm3');
    clock.step(4_990);
    await check('m0', 'm1', 'm2', 'm3');
    expect(calls.map((c) => c.widened)).to.deep.equal([true, false, true]);
  });

  it('widens every burst fetch when each fetch lists the whole scope anyway, since widening then costs nothing', async () => {
    const { world, calls, check, clock } = setup({ world: names(4), fetchListsScope: true });
    await check('m0', 'm1', 'm2', 'm3');
    for (const k of names(8, 'n')) world.set(k, `v1-${k}`);
    clock.step(100);
    await check('n0', 'n1', 'n2', 'n3');
    expect(calls.map((c) => c.widened)).to.deep.equal([true, true]);
    expect(await check('n4')).to.deep.equal(['v1-n4']);
    expect(calls).to.have.length(2, 'the second listing answers the rest');
  });

  it('widens again half a burst window later when the last listing already answered a burst of look-ups (a second wave of checks)', async () => {
    const { clock, calls, check } = setup({ world: names(12) });
    await check('m0', 'm1', 'm2', 'm3');
    await check('m4', 'm5', 'm6');
    expect(calls).to.have.length(1, 'the first wave is answered from the listing');
    await check('m4', 'm5', 'm6', 'm7');
    expect(calls.map((c) => c.widened)).to.deep.equal(
      [true, false],
      'not twice within half a burst window, however many it answered',
    );
    clock.step(500);
    await check('m8', 'm9', 'm10', 'm11');
    for (const k of ['m0', 'm1', 'm2', 'm3']) expect(await check(k)).to.deep.equal([`v1-${k}`]);
    expect(calls.map((c) => c.widened)).to.deep.equal(
      [true, false, true],
      'the second wave widens without waiting reuseMs/2, and is answered too',
    );
  });

  it("never answers a later look-up from a listing's view of a value that is not settled (a booting instance)", async () => {
    const { calls, check } = setup({ world: names(6), settled: (v) => v !== 'v1-m4' });
    await check('m0', 'm1', 'm2', 'm3');
    expect(await check('m5')).to.deep.equal(['v1-m5']);
    expect(calls).to.have.length(1, 'a settled value is answered from the listing');
    expect(await check('m4')).to.deep.equal(['v1-m4']);
    expect(calls.map((c) => c.keys)).to.deep.equal(
      [['m0', 'm1', 'm2', 'm3'], ['m4']],
      'an unsettled one is fetched afresh',
    );
  });

  it("fetches afresh when the caller knows the listing's view is outdated (a Node registered after it showed the instance booting)", async () => {
    const { world, calls, snapshot, check, clock } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    world.set('m4', 'v2-m4');
    const answer = snapshot.get('m4', undefined, (v) => v !== 'v1-m4');
    await flush();
    clock.step(5);
    expect(await answer).to.equal('v2-m4');
    expect(calls.map((c) => c.keys)).to.deep.equal([['m0', 'm1', 'm2', 'm3'], ['m4']]);
    expect(await snapshot.get('m5', undefined, () => true)).to.equal(
      'v1-m5',
      'a view the caller accepts is answered as before',
    );
    expect(calls).to.have.length(2);
  });

  it('lets the next burst widen when a widened listing showed nothing beyond its batch', async () => {
    const { calls, check } = setup({ world: names(4) });
    await check('m0', 'm1', 'm2', 'm3');
    await check('m0', 'm1', 'm2', 'm3');
    expect(calls.map((c) => c.widened)).to.deep.equal([true, true]);
  });

  it('lets the next burst widen when a widened fetch failed, and fails every caller of the batch', async () => {
    const { calls, check, failWith } = setup({ world: names(8) });
    failWith(new Error('rateLimitExceeded'));
    const failed = await check('m0', 'm1', 'm2', 'm3').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).to.be.instanceOf(Error).with.property('message', 'rateLimitExceeded');
    failWith(undefined);
    await check('m0', 'm1', 'm2', 'm3');
    expect(calls.map((c) => c.widened)).to.deep.equal([true, true]);
  });

  it('forgets keys after a mutation, so nobody reads their own write stale', async () => {
    const { world, calls, snapshot, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    world.delete('m4');
    snapshot.forget('m4');
    expect(await check('m4')).to.deep.equal([undefined]);
    world.set('m5', 'v2-m5');
    snapshot.forgetMatching((_k, v) => v === 'v1-m5');
    expect(await check('m5')).to.deep.equal(['v2-m5']);
    expect(calls.map((c) => c.keys)).to.deep.equal([['m0', 'm1', 'm2', 'm3'], ['m4'], ['m5']]);
  });

  it('does not keep what a fetch in flight saw of a key forgotten while it was out', async () => {
    const { world, snapshot, check, hold } = setup({ world: names(6) });
    const release = hold();
    const burst = check('m0', 'm1', 'm2', 'm3');
    await flush();
    world.set('m4', 'v2-m4');
    snapshot.forget('m4');
    release();
    await burst;
    expect(await check('m4')).to.deep.equal(['v2-m4']);
    expect(await check('m5')).to.deep.equal(['v1-m5'], 'the rest of that listing is kept');
  });

  it('offers a widened fetch the keys asked about recently, most recent first to be kept, up to maxWidened', async () => {
    const { clock, calls, check } = setup({ world: names(10), maxWidened: 6 });
    await check('m9');
    await check('m8');
    await check('m7');
    clock.step(5_000);
    await check('m0', 'm1', 'm2', 'm3');
    expect(calls.at(-1)?.recent).to.deep.equal(['m8', 'm7']);
  });

  it('stops offering keys that were not found, not worth watching, or not asked about for rememberMs', async () => {
    const { clock, calls, check } = setup({ world: names(10), worthWatching: (v) => v !== 'v1-m6' });
    await check('m8');
    await check('gone');
    await check('m6');
    clock.step(15 * 60_000 + 1);
    await check('m7');
    await check('m0', 'm1', 'm2', 'm3');
    expect(calls.at(-1)?.recent).to.deep.equal(['m7']);
  });

  it('with reuseMs 0 is a plain batcher', async () => {
    const { calls, check } = setup({ world: names(6), reuseMs: 0 });
    await check('m0', 'm1', 'm2', 'm3');
    await check('m4');
    expect(calls.map((c) => [c.keys, c.widened])).to.deep.equal([
      [['m0', 'm1', 'm2', 'm3'], false],
      [['m4'], false],
    ]);
  });

  it('names the option when one is invalid', () => {
    expect(
      () =>
        new ListingSnapshot<string>({
          clock: new FakeClock(),
          maxBatch: 10,
          burstSize: -1,
          fetch: async () => new Map(),
        }),
    ).to.throw(RangeError, /burstSize/);
  });
});
