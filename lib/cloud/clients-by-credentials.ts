// The client sets a provider's factory keeps, one per credentials (by fingerprint), and which credentials each
// source (a credentials Secret, by namespace/name, and whatever else scopes it, such as a region) uses now. When a
// source's credentials change (the Secret was rotated), the client set of the old ones is disposed of, unless
// another source still uses the same credentials: a rotated key never keeps serving, a shared one is not rebuilt.
export class ClientsByCredentials<E> {
  private readonly entries = new Map<string, E>();
  /** Which credentials key each source uses now. */
  private readonly sources = new Map<string, string>();

  constructor(
    /** Releases a client set no source uses any more (closes its connections). */
    private readonly dispose: (entry: E) => void = () => {},
  ) {}

  /** The client set of credentials `key` (built on first use), now used by `source`. */
  get(source: string, key: string, build: () => E): E {
    const previous = this.sources.get(source);
    this.sources.set(source, key);
    if (previous && previous !== key && ![...this.sources.values()].includes(previous)) {
      const stale = this.entries.get(previous);
      if (stale !== undefined) this.dispose(stale);
      this.entries.delete(previous);
    }
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = build();
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Forgets the client set of `key` if it is still `entry` (it went bad, e.g. its token was revoked); not disposed of. */
  drop(key: string, entry: E): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }

  /** Every client set, forgotten along with the sources: the caller closes them. */
  clear(): E[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.sources.clear();
    return all;
  }
}
