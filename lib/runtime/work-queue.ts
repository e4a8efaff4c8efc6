// client-go's work queue, ported, with controller-runtime's priorities: keys with a dirty set (queued or
// re-added) and a processing set (handed to a worker, not yet done). Adding a key that is already waiting is a
// no-op, except that it may raise the key's priority; a key added while a worker holds it is handed out again
// only after done(), so no key is ever worked on twice at once. Higher priorities are handed out first, each in
// FIFO order.
import type { Clock } from '../base/clock.js';

/** Hooks the queue calls so metrics (depth, latency, work time) can be kept outside it. */
export interface QueueMetrics<T> {
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  retry(): void;
}

export const noQueueMetrics: QueueMetrics<unknown> = { add() {}, get() {}, done() {}, retry() {} };

/** A change someone made is worked on at this priority. */
export const NormalPriority = 0;
/**
 * What nobody changed (a periodic resync, the first listing after a start) waits behind every change, as in
 * controller-runtime's priority queue: a resync of thousands of objects must not delay the one that moved.
 */
export const LowPriority = -100;

export type GetResult<T> = { item: T; priority: number; shutdown: false } | { item: undefined; shutdown: true };

export interface WorkQueueOptions<T> {
  metrics?: QueueMetrics<T>;
}

/** The keys of one priority, in the order they came; entries moved to a higher priority are skipped. */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

export class WorkQueue<T> {
  /** Priority -> its FIFO; `order` lists the priorities in use, highest first. */
  private readonly fifos = new Map<number, Fifo<T>>();
  private order: number[] = [];
  /** Keys in a FIFO now, with the priority of their live entry. */
  private readonly queued = new Map<T, number>();
  /** Keys added and not yet handed out (queued, or waiting for a worker's done()), with their priority. */
  private readonly dirty = new Map<T, number>();
  private readonly processing = new Set<T>();
  private readonly waiters: Array<(r: GetResult<T>) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private shuttingDown = false;
  protected readonly metrics: QueueMetrics<T>;

  constructor(opts: WorkQueueOptions<T> = {}) {
    this.metrics = opts.metrics ?? noQueueMetrics;
  }

  add(item: T, priority: number = NormalPriority): void {
    if (this.shuttingDown) return;
    const had = this.dirty.get(item);
    if (had !== undefined) {
      if (priority <= had) return;
      this.dirty.set(item, priority);
      if (this.queued.has(item)) this.push(item, priority);
      return;
    }
    this.metrics.add(item);
    this.dirty.set(item, priority);
    if (this.processing.has(item)) return;
    this.push(item, priority);
  }

  /** Waits for a key; resolves {shutdown: true} once the queue is shut down and empty. */
  get(): Promise<GetResult<T>> {
    const ready = this.tryGet();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key finished; if it was re-added meanwhile it goes back in the queue. */
  done(item: T): void {
    this.metrics.done(item);
    this.processing.delete(item);
    const priority = this.dirty.get(item);
    if (priority !== undefined) {
      this.push(item, priority);
    } else if (this.processing.size === 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Keys waiting to be handed out. */
  len(): number {
    return this.queued.size;
  }

  isProcessing(item: T): boolean {
    return this.processing.has(item);
  }

  /** Refuses new adds; get() keeps returning what is queued, then {shutdown: true}. */
  shutDown(): void {
    this.shuttingDown = true;
    this.wakeAllShutdown();
    this.drainWaiters.splice(0).forEach((w) => w());
  }

  /** Like shutDown, but resolves only once every key handed out has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shuttingDown = true;
    this.wakeAllShutdown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private push(item: T, priority: number): void {
    let fifo = this.fifos.get(priority);
    if (!fifo) {
      fifo = new Fifo<T>();
      this.fifos.set(priority, fifo);
      this.order = [...this.fifos.keys()].sort((a, b) => b - a);
    }
    fifo.push(item);
    this.queued.set(item, priority);
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.tryGet()!);
  }

  private tryGet(): GetResult<T> | undefined {
    if (this.queued.size === 0) {
      return this.shuttingDown ? { item: undefined, shutdown: true } : undefined;
    }
    for (const priority of this.order) {
      const fifo = this.fifos.get(priority)!;
      for (let item = fifo.shift(); item !== undefined; item = fifo.shift()) {
        // An entry left behind when its key moved to a higher priority (or was handed out from there).
        if (this.queued.get(item) !== priority) continue;
        this.queued.delete(item);
        this.metrics.get(item);
        this.processing.add(item);
        this.dirty.delete(item);
        return { item, priority, shutdown: false };
      }
    }
    return undefined;
  }

  private wakeAllShutdown(): void {
    if (this.len() > 0) return;
    for (const w of this.waiters.splice(0)) w({ item: undefined, shutdown: true });
  }
}

/** A work queue with addAfter: the key is added when its delay ends; of two delays, the earlier due time wins. */
export class DelayingQueue<T> extends WorkQueue<T> {
  /** The due time (and the priority to add at) in force per key; heap entries that disagree are stale. */
  private readonly waiting = new Map<T, { due: number; priority: number }>();
  private readonly heap = new MinHeap<{ item: T; due: number; seq: number }>((a, b) => a.due - b.due || a.seq - b.seq);
  private seq = 0;
  private timer: { cancel(): void; due: number } | undefined;

  constructor(
    protected readonly clock: Clock,
    opts: WorkQueueOptions<T> = {},
  ) {
    super(opts);
  }

  /**
   * countRetry: false for a deliberate delay (coalescing events) rather than a requeue. Of two delays of one key
   * the earlier due time wins, and the key comes back at the higher of their priorities.
   */
  addAfter(item: T, delayMs: number, opts: { countRetry?: boolean; priority?: number } = {}): void {
    if (this.isShuttingDown()) return;
    if (opts.countRetry !== false) this.metrics.retry();
    const priority = opts.priority ?? NormalPriority;
    if (delayMs <= 0) {
      this.add(item, priority);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing !== undefined && existing.due <= readyAt) {
      existing.priority = Math.max(existing.priority, priority);
      return;
    }
    this.waiting.set(item, { due: readyAt, priority: Math.max(existing?.priority ?? priority, priority) });
    this.heap.push({ item, due: readyAt, seq: this.seq++ });
    this.schedule();
  }

  /** Drops the delay `item` waits out, if any (an add already made stands). */
  cancelAfter(item: T): void {
    this.waiting.delete(item);
  }

  /** Keys waiting for their delay to end. */
  waitingLen(): number {
    return this.waiting.size;
  }

  override shutDown(): void {
    this.stopTimer();
    super.shutDown();
  }

  override shutDownWithDrain(): Promise<void> {
    this.stopTimer();
    return super.shutDownWithDrain();
  }

  private stopTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.waiting.clear();
    this.heap.clear();
  }

  private nextLive(): { item: T; due: number } | undefined {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      if (this.waiting.get(top.item)?.due === top.due) return top;
      this.heap.pop();
    }
    return undefined;
  }

  private schedule(): void {
    const next = this.nextLive();
    if (!next) {
      this.timer?.cancel();
      this.timer = undefined;
      return;
    }
    if (this.timer && this.timer.due <= next.due) return;
    this.timer?.cancel();
    const handle = this.clock.setTimeout(() => this.fire(), next.due - this.clock.now());
    this.timer = { cancel: () => handle.cancel(), due: next.due };
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    for (let next = this.nextLive(); next && next.due <= now; next = this.nextLive()) {
      this.heap.pop();
      const priority = this.waiting.get(next.item)?.priority ?? NormalPriority;
      this.waiting.delete(next.item);
      this.add(next.item, priority);
    }
    this.schedule();
  }
}

/** A binary min-heap. */
class MinHeap<E> {
  private items: E[] = [];

  constructor(private readonly less: (a: E, b: E) => number) {}

  peek(): E | undefined {
    return this.items[0];
  }

  clear(): void {
    this.items = [];
  }

  push(e: E): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.less(a[i]!, a[parent]!) >= 0) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): E | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l]!, a[m]!) < 0) m = l;
        if (r < a.length && this.less(a[r]!, a[m]!) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}
