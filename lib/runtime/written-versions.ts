// Read-your-writes for reconcilers that work from an informer cache. After a controller writes an object, the
// informer may still hand the next reconcile the copy from before the write (another event raced ahead of
// the watch event of our write). Reconciling that copy re-sends the same changes: a write that changes
// nothing, and another reconcile. A controller records the resourceVersion each write returned; a reconcile
// handed an older copy skips, because the watch event of that write is on its way and triggers it again.
// Versions are compared only when both are integers (etcd's are; the API calls them opaque), else never stale.

function asInt(rv: string | undefined): bigint | undefined {
  return rv !== undefined && /^\d{1,30}$/.test(rv) ? BigInt(rv) : undefined;
}

export class WrittenVersions {
  private readonly written = new Map<string, bigint>();
  /** The resourceVersion each last write was made from, when the writer said. */
  private readonly bases = new Map<string, string>();

  /** Notes the resourceVersion a write of `key` returned, and optionally the one of the copy it was made from. */
  record(key: string, resourceVersion: string | undefined, basedOn?: string): void {
    const v = asInt(resourceVersion);
    if (v === undefined) return;
    const prev = this.written.get(key);
    if (prev === undefined || v > prev) {
      this.written.set(key, v);
      if (basedOn !== undefined) this.bases.set(key, basedOn);
      else this.bases.delete(key);
    }
  }

  /**
   * True when a watch event going from `previous` to `current` is exactly our last write of the key: made from the
   * copy at `previous` and returning `current`, so it brings nothing but what we wrote. An event that skips over
   * someone else's write in between (a relist) is not.
   */
  isOwnWrite(key: string, current: string | undefined, previous: string | undefined): boolean {
    const w = this.written.get(key);
    const v = asInt(current);
    return w !== undefined && v === w && previous !== undefined && this.bases.get(key) === previous;
  }

  /** True when this copy predates our last write of the key; a fresh copy clears the record. */
  isStale(key: string, resourceVersion: string | undefined): boolean {
    const w = this.written.get(key);
    if (w === undefined) return false;
    const v = asInt(resourceVersion);
    if (v !== undefined && v < w) return true;
    this.written.delete(key);
    this.bases.delete(key);
    return false;
  }

  forget(key: string): void {
    this.written.delete(key);
    this.bases.delete(key);
  }

  get size(): number {
    return this.written.size;
  }
}
