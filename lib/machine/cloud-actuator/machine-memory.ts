// The little a cloud actuator remembers per Machine across reconciles, in one place so that one call forgets
// all of it when the Machine's deletion completes: which announcements were made (the unknown-fields warning
// of a generation, the Delete event) and which memberships were ensured (load balancer registrations, tags).
export class MachineMemory {
  private readonly done = new Map<string, Set<string>>();

  /** True the first time `what` is asked for the Machine `uid` (and remembers it). */
  firstTime(uid: string, what: string): boolean {
    let set = this.done.get(uid);
    if (!set) {
      set = new Set();
      this.done.set(uid, set);
    }
    if (set.has(what)) return false;
    set.add(what);
    return true;
  }

  /** Whether `what` was done for the Machine. */
  has(uid: string, what: string): boolean {
    return this.done.get(uid)?.has(what) ?? false;
  }

  /** Remembers that `what` was done for the Machine. */
  add(uid: string, what: string): void {
    this.firstTime(uid, what);
  }

  /** Forgets what was done for the Machine whose name starts with `prefix` (an instance replaced, a new generation). */
  forgetStartingWith(uid: string, prefix: string): void {
    const set = this.done.get(uid);
    if (!set) return;
    for (const what of [...set]) if (what.startsWith(prefix)) set.delete(what);
    if (set.size === 0) this.done.delete(uid);
  }

  /** The Machine is gone: forget everything about it. */
  forget(uid: string): void {
    this.done.delete(uid);
  }

  get size(): number {
    return this.done.size;
  }
}
