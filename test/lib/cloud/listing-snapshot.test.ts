import { expect } from 'chai';
import { FakeClock, ListingSnapshot } from '../../../lib/index.js';

const flush = () => new Promise((r) => setImmediate(r));

const PAGE = 50;

/**
 * A cloud scope holding `world`: a direct fetch reads the keys asked, a listing reads every page of the scope
 * (PAGE keys a call) filtered to the scopes asked for. Values are "<version>-<key>"; keys of scope "other"
 * start with "x".
 */
function setup(
  opts: {
    world?: string[];
    reuseMs?: number;
    maxAgeMs?: number;
    settled?: (v: string) => boolean;
    scoped?: boolean;
    fetchesOneByOne?: boolean;
  } = {},
) {
  const clock = new FakeClock();
  const world = new Map((opts.world ?? []).map((k) => [k, `v1-${k}`]));
  const fetches: string[][] = [];
  const listings: Array<{ scopes: string[]; pages: number }> = [];
  let gate: Promise<void> | undefined;
  let failList: Error | undefined;
  const scopeOf = (k: string) => (k.startsWith('x') ? 'other' : 'ours');
  const snapshot = new ListingSnapshot<string>({
    clock,
    maxBatch: 100,
    reuseMs: opts.reuseMs,
    maxAgeMs: opts.maxAgeMs,
    settled: opts.settled,
    fetchesOneByOne: opts.fetchesOneByOne,
    scopesOf: opts.scoped ? (v) => [scopeOf(v.slice(v.indexOf('-') + 1))] : undefined,
    fetch: async (keys) => {
      fetches.push(keys);
      return new Map(keys.flatMap((k) => (world.has(k) ? [[k, world.get(k) as string] as const] : [])));
    },
    list: async (scopes) => {
      // Read the world when the call is made, as a cloud would, and answer when the gate opens.
      const all = [...world].filter(([k]) => !opts.scoped || scopes.includes(scopeOf(k)));
      listings.push({ scopes, pages: Math.max(1, Math.ceil(all.length / PAGE)) });
      if (gate) await gate;
      if (failList) throw failList;
      return new Map(all);
    },
  });
  /** Looks keys up together, letting the batch window close. */
  const check = async (...keys: string[]) => {
    const pending = Promise.all(keys.map((k) => snapshot.get(k)));
    await flush();
    clock.step(5);
    await flush();
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
  const pages = () => listings.reduce((n, l) => n + l.pages, 0);
  return {
    clock,
    world,
    fetches,
    listings,
    pages,
    snapshot,
    check,
    hold,
    failListWith: (e: Error | undefined) => (failList = e),
  };
}

const names = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/**
 * A listing of the first four instances, then a scale-up: 40 new instances checked four at a time, a second
 * apart (each answered with its value).
 */
async function scaleUpChecks({ clock, world, check }: ReturnType<typeof setup>): Promise<void> {
  await check('m0', 'm1', 'm2', 'm3');
  for (const k of names(40, 'n')) world.set(k, `v1-${k}`);
  for (let i = 0; i < 40; i += 4) {
    const batch = names(40, 'n').slice(i, i + 4);
    expect(await check(...batch)).to.deep.equal(batch.map((k) => `v1-${k}`));
    clock.step(1_000);
  }
}

describe('ListingSnapshot', () => {
  it('coalesces look-ups within the window into one direct fetch outside a burst', async () => {
    const { fetches, listings, check } = setup({ world: ['a', 'b', 'c'] });
    expect(await check('a', 'b', 'gone')).to.deep.equal(['v1-a', 'v1-b', undefined]);
    expect(fetches).to.deep.equal([['a', 'b', 'gone']]);
    expect(listings).to.deep.equal([]);
  });

  it('answers a resync of N look-ups spread over more than reuseMs with one listing of ⌈N/page⌉ calls', async () => {
    const n = 420;
    const world = names(n);
    const { clock, fetches, pages, check } = setup({ world });
    // Four workers: each round they check four Machines, 200 ms apart, so the resync lasts 21 s (reuseMs is 10 s).
    for (let i = 0; i < n; i += 4) {
      const batch = world.slice(i, i + 4);
      expect(await check(...batch)).to.deep.equal(batch.map((k) => `v1-${k}`));
      clock.step(200);
    }
    expect(pages()).to.equal(Math.ceil(n / PAGE));
    expect(fetches).to.deep.equal([], 'the first burst waited for the listing instead of fetching');
  });

  it('starts listing once burstSize keys were asked within burstWithinMs, the earlier ones fetched directly', async () => {
    const { clock, fetches, listings, check } = setup({ world: names(10) });
    await check('m0', 'm1');
    clock.step(300);
    await check('m2');
    clock.step(300);
    expect(await check('m3')).to.deep.equal(['v1-m3']);
    for (const k of names(10).slice(4)) expect(await check(k)).to.deep.equal([`v1-${k}`]);
    expect(fetches).to.deep.equal([['m0', 'm1'], ['m2']]);
    expect(listings).to.have.length(1);
  });

  it('does not list for look-ups spread out in time (no burst)', async () => {
    const { clock, listings, fetches, check } = setup({ world: names(6) });
    for (const k of names(6)) {
      await check(k);
      clock.step(400);
    }
    expect(listings).to.deep.equal([]);
    expect(fetches).to.have.length(6);
  });

  it('serves a listing answer once per key: the next look-up of that key reads the cloud afresh', async () => {
    const { world, fetches, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    expect(await check('m4')).to.deep.equal(['v1-m4']);
    world.delete('m4');
    expect(await check('m4')).to.deep.equal([undefined], 'an event-driven re-check is not answered from the listing');
    expect(fetches).to.deep.equal([['m4']]);
  });

  it('never reports a key gone from a listing: a key it did not show goes to a direct fetch', async () => {
    const { world, fetches, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    world.set('late', 'v1-late');
    expect(await check('late')).to.deep.equal(['v1-late']);
    expect(await check('never')).to.deep.equal([undefined]);
    expect(fetches).to.deep.equal([['late'], ['never']]);
  });

  it('stops answering reuseMs after the listing last answered a look-up', async () => {
    const { clock, world, fetches, check } = setup({ world: names(8) });
    await check('m0', 'm1', 'm2', 'm3');
    clock.step(9_000);
    expect(await check('m4')).to.deep.equal(['v1-m4'], 'still in use');
    clock.step(9_000);
    expect(await check('m5')).to.deep.equal(['v1-m5'], 'in use again within reuseMs of the last answer');
    world.set('m6', 'v2-m6');
    clock.step(10_000);
    expect(await check('m6')).to.deep.equal(['v2-m6']);
    expect(fetches).to.deep.equal([['m6']]);
  });

  it('never answers from a listing older than maxAgeMs, however busy', async () => {
    const { clock, world, fetches, check } = setup({ world: names(40), maxAgeMs: 20_000 });
    await check('m0', 'm1', 'm2', 'm3');
    for (let i = 4; i < 8; i++) {
      clock.step(4_000);
      await check(`m${i}`);
    }
    world.set('m8', 'v2-m8');
    clock.step(4_000);
    expect(await check('m8')).to.deep.equal(['v2-m8']);
    expect(fetches).to.deep.equal([['m8']]);
  });

  it('lists again in a second wave once the last listing answered a burst of look-ups', async () => {
    const { clock, listings, check } = setup({ world: names(12) });
    await check('m0', 'm1', 'm2', 'm3');
    await check('m4', 'm5', 'm6', 'm7');
    expect(listings).to.have.length(1);
    clock.step(500);
    for (const k of names(4)) expect(await check(k)).to.deep.equal([`v1-${k}`]);
    expect(listings).to.have.length(2, 'the Node informer resync after the Machine informer one');
  });

  it("never lists for a scale-up's new instances once a listing was taken: each batch of them is fetched directly", async () => {
    const bed = setup({ world: names(4) });
    const { listings, fetches } = bed;
    await scaleUpChecks(bed);
    expect(listings).to.have.length(1, 'only the first burst listed');
    expect(fetches).to.have.length(10);
  });

  it("lists for a scale-up's new instances when a direct fetch costs a call per key: one page answers a burst of them", async () => {
    const bed = setup({ world: names(4), fetchesOneByOne: true });
    const { listings, fetches } = bed;
    await scaleUpChecks(bed);
    const keysFetched = fetches.reduce((n, f) => n + f.length, 0);
    expect(listings.length, 'listings of one page each').to.be.at.least(2);
    expect(keysFetched + listings.length, 'calls, a fetched key being one').to.be.below(40);
  });

  it('lets a key no listing showed make a burst again once it was first asked for maxAgeMs ago (a later resync)', async () => {
    const { clock, world, listings, check } = setup({ world: names(4), maxAgeMs: 20_000 });
    await check('m0', 'm1', 'm2', 'm3');
    for (const k of names(8, 'n')) world.set(k, `v1-${k}`);
    await check('n0', 'n1', 'n2', 'n3');
    await check('n4', 'n5', 'n6', 'n7');
    expect(listings).to.have.length(1);
    clock.step(20_000);
    for (const k of names(8, 'n')) expect(await check(k)).to.deep.equal([`v1-${k}`]);
    expect(listings).to.have.length(2, 'the resync of the Machines made after the first listing lists once');
  });

  it('before any listing came back with something, lets every key make a burst (a restart)', async () => {
    const { world, listings, check } = setup({ world: [] });
    await check('m0', 'm1', 'm2', 'm3');
    expect(listings).to.have.length(1);
    for (const k of names(8)) world.set(k, `v1-${k}`);
    await check('m4', 'm5', 'm6', 'm7');
    expect(listings).to.have.length(2, 'the first listing showed nothing');
  });

  it('answers only the look-ups that waited for the listing from a view that is not settled (a booting instance)', async () => {
    const { fetches, check } = setup({ world: names(6), settled: (v) => v !== 'v1-m4' && v !== 'v1-m0' });
    expect(await check('m0', 'm1', 'm2', 'm3')).to.deep.equal(['v1-m0', 'v1-m1', 'v1-m2', 'v1-m3']);
    expect(await check('m5')).to.deep.equal(['v1-m5']);
    expect(await check('m4')).to.deep.equal(['v1-m4']);
    expect(fetches).to.deep.equal([['m4']], 'a booting view is fetched afresh by a later look-up');
  });

  it("fetches afresh when the caller knows the listing's view is outdated (a Node registered after it showed the instance booting)", async () => {
    const { world, fetches, snapshot, check, clock } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    world.set('m4', 'v2-m4');
    const answer = snapshot.get('m4', undefined, (v) => v !== 'v1-m4');
    await flush();
    clock.step(5);
    expect(await answer).to.equal('v2-m4');
    expect(await snapshot.get('m5', undefined, () => true)).to.equal('v1-m5', 'a view the caller accepts');
    expect(fetches).to.deep.equal([['m4']]);
  });

  it('forgets keys after a write, so nobody reads their own write stale', async () => {
    const { world, fetches, snapshot, check } = setup({ world: names(6) });
    await check('m0', 'm1', 'm2', 'm3');
    world.delete('m4');
    snapshot.forget('m4');
    expect(await check('m4')).to.deep.equal([undefined]);
    world.set('m5', 'v2-m5');
    snapshot.forgetMatching((_k, v) => v === 'v1-m5');
    expect(await check('m5')).to.deep.equal(['v2-m5']);
    expect(fetches).to.deep.equal([['m4'], ['m5']]);
  });

  it('keeps nothing of a key forgotten while the listing was out, not even for a look-up waiting for it', async () => {
    const { world, snapshot, check, hold, fetches, clock } = setup({ world: names(6) });
    const release = hold();
    const burst = check('m0', 'm1', 'm2', 'm3');
    await flush();
    world.set('m4', 'v2-m4');
    snapshot.forget('m4');
    const afterWrite = snapshot.get('m4');
    release();
    await burst;
    await flush();
    clock.step(5);
    expect(await afterWrite).to.equal('v2-m4');
    expect(await check('m5')).to.deep.equal(['v1-m5'], 'the rest of that listing is kept');
    expect(fetches).to.deep.equal([['m4']]);
  });

  it('lists only the scopes seen in found values, and nothing before one is seen', async () => {
    const { clock, listings, fetches, check } = setup({ world: [...names(6), 'x1'], scoped: true });
    await check('x9', 'y1', 'y2', 'y3');
    expect(listings).to.deep.equal([], 'nothing found yet, so no scope to list');
    clock.step(1_001);
    await check('m0');
    await check('m1', 'm2', 'm3', 'm4');
    expect(listings.map((l) => l.scopes)).to.deep.equal([['ours']]);
    expect(await check('x1')).to.deep.equal(['v1-x1'], "another cluster's instance is fetched directly");
    expect(fetches.at(-1)).to.deep.equal(['x1']);
  });

  it('sends the waiters of a failed listing to a direct fetch, and lets the next burst list again', async () => {
    const { listings, fetches, check, failListWith } = setup({ world: names(8) });
    failListWith(new Error('rateLimitExceeded'));
    expect(await check('m0', 'm1', 'm2', 'm3')).to.deep.equal(['v1-m0', 'v1-m1', 'v1-m2', 'v1-m3']);
    expect(fetches).to.have.length(1);
    failListWith(undefined);
    await check('m4', 'm5', 'm6', 'm7');
    expect(listings).to.have.length(2);
  });

  it('rejects a look-up aborted while it waits for a listing; the others still get theirs', async () => {
    const { snapshot, check, hold } = setup({ world: names(6) });
    const release = hold();
    const burst = check('m0', 'm1', 'm2');
    await flush();
    const ac = new AbortController();
    const aborted = snapshot.get('m3', ac.signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    ac.abort();
    expect(await aborted).to.be.instanceOf(Error);
    release();
    expect(await burst).to.deep.equal(['v1-m0', 'v1-m1', 'v1-m2']);
  });

  it('with reuseMs 0 is a plain batcher', async () => {
    const { listings, fetches, check } = setup({ world: names(6), reuseMs: 0 });
    await check('m0', 'm1', 'm2', 'm3');
    await check('m4');
    expect(listings).to.deep.equal([]);
    expect(fetches).to.deep.equal([['m0', 'm1', 'm2', 'm3'], ['m4']]);
  });

  it('names the option when one is invalid', () => {
    expect(
      () =>
        new ListingSnapshot<string>({
          clock: new FakeClock(),
          maxBatch: 10,
          burstSize: -1,
          fetch: async () => new Map(),
          list: async () => new Map(),
        }),
    ).to.throw(RangeError, /burstSize/);
  });
});
