// A small deterministic PRNG (mulberry32): the same seed gives the same faults, ids and jitter on every run,
// so a failing chaos test can be replayed exactly.

export class SeededRandom {
  private state: number;

  constructor(seed: number = 1) {
    if (!Number.isFinite(seed)) throw new TypeError(`seed must be a finite number, got ${seed}`);
    this.state = Math.trunc(seed) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`int(${min}, ${max}): max must be >= min`);
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p (0 never, 1 always). */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.next() < p;
  }

  /** n lowercase hex digits, e.g. for cloud resource ids. */
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += this.int(0, 15).toString(16);
    return s;
  }

  /** A version-4-shaped UUID string (deterministic, not cryptographic). */
  uuid(): string {
    const h = this.hex(32).split('');
    h[12] = '4';
    h[16] = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
    const s = h.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }
}
