// client-go's work queue, ported: a FIFO of keys with a dirty set (queued or re-added) and a processing
// set (handed to a worker, not yet done). Adding a key that is already waiting is a no-op; a key added
// while a worker holds it is handed out again only after done(), so no key is ever worked on twice at once.
import type { Clock } from '../base/clock.js';

/** Hooks the queue calls so metrics (depth, latency, work time) can be kept outside it. */
export interface QueueMetrics<T> {
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  retry(): void;
}

export const noQueueMetrics: QueueMetrics<unknown> = { add() {}, get() {}, done() {}, retry() {} };

export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

export interface WorkQueueOptions<T> {
  metrics?: QueueMetrics<T>;
}

export class WorkQueue<T> {
  private queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiters: Array<(r: GetResult<T>) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private shuttingDown = false;
  protected readonly metrics: QueueMetrics<T>;

  constructor(opts: WorkQueueOptions<T> = {}) {
    this.metrics = opts.metrics ?? noQueueMetrics;
  }

  add(item: T): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(item)) return;
    this.metrics.add(item);
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
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
    if (this.dirty.has(item)) {
      this.push(item);
    } else if (this.processing.size === 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Keys waiting to be handed out. */
  len(): number {
    return this.queue.length - this.head;
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

  private push(item: T): void {
    const waiter = this.waiters.shift();
    this.queue.push(item);
    if (waiter) waiter(this.tryGet()!);
  }

  private tryGet(): GetResult<T> | undefined {
    if (this.len() === 0) {
      return this.shuttingDown ? { item: undefined, shutdown: true } : undefined;
    }
    const item = this.queue[this.head] as T;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.metrics.get(item);
    this.processing.add(item);
    this.dirty.delete(item);
    return { item, shutdown: false };
  }

  private wakeAllShutdown(): void {
    if (this.len() > 0) return;
    for (const w of this.waiters.splice(0)) w({ item: undefined, shutdown: true });
  }
}

/** A work queue with addAfter: the key is added when its delay ends; of two delays, the earlier due time wins. */
export class DelayingQueue<T> extends WorkQueue<T> {
  /** The due time in force per key; heap entries that disagree with it are stale and skipped. */
  private readonly waiting = new Map<T, number>();
  private readonly heap = new MinHeap<{ item: T; due: number; seq: number }>((a, b) => a.due - b.due || a.seq - b.seq);
  private seq = 0;
  private timer: { cancel(): void; due: number } | undefined;

  constructor(
    protected readonly clock: Clock,
    opts: WorkQueueOptions<T> = {},
  ) {
    super(opts);
  }

  /** countRetry: false for a deliberate delay (coalescing events) rather than a requeue. */
  addAfter(item: T, delayMs: number, opts: { countRetry?: boolean } = {}): void {
    if (this.isShuttingDown()) return;
    if (opts.countRetry !== false) this.metrics.retry();
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing !== undefined && existing <= readyAt) return;
    this.waiting.set(item, readyAt);
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
      if (this.waiting.get(top.item) === top.due) return top;
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
      this.waiting.delete(next.item);
      this.add(next.item);
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
