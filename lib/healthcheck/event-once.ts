// Remembers the last message emitted per key, so a condition that persists across passes is reported once
// per episode instead of on every reconcile (the reference re-emitted them each pass, every 1 ms while
// short-circuited).

export class EventOnce {
  private readonly last = new Map<string, string>();

  /** Calls `emit` unless the last message for `key` was this one. */
  emit(key: string, message: string, emit: () => void): void {
    if (this.last.get(key) === message) return;
    this.last.set(key, message);
    emit();
  }

  /** Ends the episode for `key`: the next emit for it goes out again. */
  reset(key: string): void {
    this.last.delete(key);
  }

  /** Forgets every key starting with `prefix` that is not in `keep`. */
  retain(prefix: string, keep: ReadonlySet<string>): void {
    for (const k of this.last.keys()) if (k.startsWith(prefix) && !keep.has(k)) this.last.delete(k);
  }
}
