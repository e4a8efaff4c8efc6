// Maps kept oldest first: each key is set (deleted first, when it is set again) with the time it stands for, so
// the entries run from the oldest time to the newest and what is too old is found at the front.

/** Drops the entries older than `before` from a map kept oldest first, stopping at the first that is not. */
export function dropOlderThan(entries: Map<string, number>, before: number): void {
  for (const [k, at] of entries) {
    if (at >= before) return;
    entries.delete(k);
  }
}
