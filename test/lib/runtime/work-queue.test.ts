import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { DelayingQueue, LowPriority, WorkQueue } from '../../../lib/runtime/work-queue.js';

async function getItem<T>(q: WorkQueue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.item;
}

/** Lets resolved promises run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('WorkQueue', () => {
  it('hands keys out in FIFO order', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('c');
    expect([await getItem(q), await getItem(q), await getItem(q)]).to.deep.equal(['a', 'b', 'c']);
  });

  it('de-duplicates a key added again before it is handed out', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).to.equal(2);
    expect(await getItem(q)).to.equal('a');
    expect(await getItem(q)).to.equal('b');
    expect(q.len()).to.equal(0);
  });

  it('never hands out a key that is being processed, and runs it once more after done() when re-added meanwhile', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const first = await getItem(q);
    expect(first).to.equal('a');
    q.add('a');
    q.add('a');
    expect(q.len()).to.equal(0, 'a re-added while processing waits for done()');
    let second: string | undefined;
    void q.get().then((r) => (second = r.item));
    await settle();
    expect(second).to.equal(undefined);
    q.done('a');
    await settle();
    expect(second).to.equal('a');
    q.done('a');
    expect(q.len()).to.equal(0);
  });

  it('does not re-queue a key on done() when it was not re-added', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    await getItem(q);
    q.done('a');
    expect(q.len()).to.equal(0);
  });

  it('wakes a waiting get() when a key is added', async () => {
    const q = new WorkQueue<string>();
    const p = q.get();
    q.add('x');
    expect(await p).to.deep.equal({ item: 'x', priority: 0, shutdown: false });
  });

  it('refuses adds after shutDown, drains what is queued, then reports shutdown to every waiter', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.shutDown();
    q.add('b');
    expect(await getItem(q)).to.equal('a');
    expect(await q.get()).to.deep.equal({ item: undefined, shutdown: true });
    const q2 = new WorkQueue<string>();
    const waiting = [q2.get(), q2.get()];
    q2.shutDown();
    expect(await Promise.all(waiting)).to.deep.equal([
      { item: undefined, shutdown: true },
      { item: undefined, shutdown: true },
    ]);
  });

  it('shutDownWithDrain resolves only after every handed-out key is done', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    await getItem(q);
    await getItem(q);
    let drained = false;
    void q.shutDownWithDrain().then(() => (drained = true));
    q.done('a');
    await settle();
    expect(drained).to.equal(false);
    q.done('b');
    await settle();
    expect(drained).to.equal(true);
  });

  it('shutDownWithDrain resolves at once when nothing is being processed', async () => {
    const q = new WorkQueue<string>();
    await q.shutDownWithDrain();
    expect(q.isShuttingDown()).to.equal(true);
  });

  it('reports add/get/done to its metrics hooks', async () => {
    const calls: string[] = [];
    const q = new WorkQueue<string>({
      metrics: {
        add: (i) => calls.push(`add ${i}`),
        get: (i) => calls.push(`get ${i}`),
        done: (i) => calls.push(`done ${i}`),
        retry: () => calls.push('retry'),
      },
    });
    q.add('a');
    q.add('a');
    await getItem(q);
    q.done('a');
    expect(calls).to.deep.equal(['add a', 'get a', 'done a']);
  });
});

describe('DelayingQueue', () => {
  it('adds a key only when its delay has passed on the clock', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('a', 50);
    expect(q.len()).to.equal(0);
    clock.step(49);
    expect(q.len()).to.equal(0);
    clock.step(1);
    expect(q.len()).to.equal(1);
  });

  it('adds at once for a delay <= 0', () => {
    const q = new DelayingQueue<string>(new FakeClock());
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).to.equal(2);
  });

  it('lets the earlier due time win when a key is delayed twice', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('a', 100);
    q.addAfter('a', 30);
    clock.step(30);
    expect(q.len()).to.equal(1);
    await getItem(q);
    q.done('a');
    clock.step(100);
    expect(q.len()).to.equal(0, 'the later due time was dropped');

    q.addAfter('b', 30);
    q.addAfter('b', 100);
    clock.step(30);
    expect(q.len()).to.equal(1, 'a later due time does not postpone an earlier one');
  });

  it('adds keys in due-time order', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    clock.step(100);
    expect([await getItem(q), await getItem(q), await getItem(q)]).to.deep.equal(['a', 'b', 'c']);
  });

  it('counts every addAfter as a retry', () => {
    let retries = 0;
    const q = new DelayingQueue<string>(new FakeClock(), {
      metrics: { add() {}, get() {}, done() {}, retry: () => retries++ },
    });
    q.addAfter('a', 10);
    q.addAfter('a', 0);
    expect(retries).to.equal(2);
  });

  it('drops waiting keys and refuses addAfter once shut down', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('a', 10);
    q.shutDown();
    q.addAfter('b', 10);
    clock.step(20);
    expect(q.len()).to.equal(0);
    expect(clock.pendingTimers()).to.equal(0);
  });
});

describe('DelayingQueue at scale', () => {
  it('adds thousands of randomly delayed keys each exactly at its earliest due time', async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>(clock);
    const due = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const key = `k${i % 2000}`;
      const delay = 1 + Math.floor(Math.random() * 10_000);
      q.addAfter(key, delay);
      due.set(key, Math.min(due.get(key) ?? Infinity, delay));
    }
    const order: Array<[string, number]> = [];
    for (let t = 0; t <= 10_000; t++) {
      while (q.len() > 0) {
        const r = await q.get();
        order.push([r.item!, clock.now()]);
        q.done(r.item!);
      }
      clock.step(1);
    }
    expect(order).to.have.length(due.size);
    for (const [key, at] of order) expect(at, key).to.equal(due.get(key));
  });
});

describe('WorkQueue priorities', () => {
  it('hands out a higher priority first, and each priority in the order its keys came', async () => {
    const q = new WorkQueue<string>();
    q.add('low-1', LowPriority);
    q.add('a');
    q.add('low-2', LowPriority);
    q.add('b');
    const order = [];
    for (let i = 0; i < 4; i++) order.push(await getItem(q));
    expect(order).to.deep.equal(['a', 'b', 'low-1', 'low-2']);
    expect(q.len()).to.equal(0);
  });

  it('moves a waiting key up when it is added again at a higher priority, and hands it out once', async () => {
    const q = new WorkQueue<string>();
    for (const k of ['r1', 'r2', 'r3']) q.add(k, LowPriority);
    q.add('r3');
    expect(q.len()).to.equal(3);
    const order = [];
    for (let i = 0; i < 3; i++) order.push(await getItem(q));
    expect(order).to.deep.equal(['r3', 'r1', 'r2']);
    expect(q.len()).to.equal(0);
  });

  it('never moves a waiting key down: a low-priority add of a key already waiting changes nothing', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b', LowPriority);
    q.add('a', LowPriority);
    expect([await getItem(q), await getItem(q)]).to.deep.equal(['a', 'b']);
  });

  it('gives a key re-added while a worker holds it the highest priority it was added at, after done()', async () => {
    const q = new WorkQueue<string>();
    q.add('k', LowPriority);
    await getItem(q);
    q.add('k', LowPriority);
    q.add('k');
    q.add('other', LowPriority);
    q.done('k');
    const r = await q.get();
    expect(r).to.deep.equal({ item: 'k', priority: 0, shutdown: false });
  });

  it('adds a delayed key at its priority, and of two delays at the higher one', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>(clock);
    q.addAfter('late', 10, { priority: LowPriority });
    q.addAfter('both', 10, { priority: LowPriority });
    q.addAfter('both', 20);
    q.add('first', LowPriority);
    clock.step(10);
    await settle();
    expect(q.len()).to.equal(3);
    expect([await getItem(q), await getItem(q), await getItem(q)]).to.deep.equal(['both', 'first', 'late']);
  });
});
