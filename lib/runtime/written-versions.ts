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

  /** Notes the resourceVersion a write of `key` returned. */
  record(key: string, resourceVersion: string | undefined): void {
    const v = asInt(resourceVersion);
    if (v === undefined) return;
    const prev = this.written.get(key);
    if (prev === undefined || v > prev) this.written.set(key, v);
  }

  /** True when this copy predates our last write of the key; a fresh copy clears the record. */
  isStale(key: string, resourceVersion: string | undefined): boolean {
    const w = this.written.get(key);
    if (w === undefined) return false;
    const v = asInt(resourceVersion);
    if (v !== undefined && v < w) return true;
    this.written.delete(key);
    return false;
  }

  forget(key: string): void {
    this.written.delete(key);
  }

  get size(): number {
    return this.written.size;
  }
}
