// The echoes of the machine controller's own writes. Each write of a Machine comes back through the watch; a
// reconcile of that echo reads what the writing reconcile already knew and does nothing (a resourceVersion
// that names its own write, and often a stale copy between its two patches). So the controller notes, before
// each write, what the Machine will look like, and the watch drops an update whose every change holds what was
// noted: only the echo. A change by anyone else (NodeLink's nodeRef, a user's annotation, the deletion) holds
// something not noted and passes, and so does an echo once the next reconcile of the Machine has begun (the
// notes are cleared then): a reconcile that found a copy older than its last write waits for that echo.
// A reconcile that wants to see its write again (one that returns to let the echo carry on) does not note it.
import type { Machine } from '../apis/machine-types.js';
import type { KubeObject } from '../apis/meta.js';
import { clone, deepEqual } from './merge-patch.js';

/**
 * Fields no reconcile decides on: the server's bookkeeping, and status.lastUpdated, which every phase write and
 * NodeLink's readiness flips move (NodeLink's nodeRef, which the controller reads, comes with its own field).
 */
const Unread: Readonly<Record<string, ReadonlySet<string>>> = {
  metadata: new Set(['resourceVersion', 'managedFields', 'generation']),
  spec: new Set(),
  status: new Set(['lastUpdated']),
};

type Part = Record<string, unknown> | undefined;
const part = (o: KubeObject, name: string): Part => (o as unknown as Record<string, Part>)[name];

/** Whether every field the update from `old` to `obj` changed (among those a reconcile reads) holds `noted`'s value. */
function onlyNoted(obj: KubeObject, old: KubeObject, noted: KubeObject): boolean {
  for (const [name, unread] of Object.entries(Unread)) {
    const [now, before, want] = [part(obj, name), part(old, name), part(noted, name)];
    const keys = new Set([...Object.keys(now ?? {}), ...Object.keys(before ?? {})]);
    for (const k of keys) {
      if (unread.has(k) || deepEqual(now?.[k], before?.[k])) continue;
      if (!deepEqual(now?.[k], want?.[k])) return false;
    }
  }
  return true;
}

/** Whether an update changes only fields no reconcile reads (the server's bookkeeping, status.lastUpdated). */
export const changesNothingRead = (obj: KubeObject, old: KubeObject): boolean => onlyNoted(obj, old, old);

/** Writes of one reconcile whose echoes are known (a launch writes Provisioning, then Provisioned). */
const MAX_NOTED_PER_RECONCILE = 4;

export class OwnWrites {
  /**
   * Each write of the reconcile under way, in order: the echo of its first write can arrive after its second
   * was noted (the watch is not in step with the writes), and is as much its own as the last one's.
   */
  private readonly noted = new Map<string, Machine[]>();

  /** Before a write of `key`: the Machine as the write leaves it. */
  note(key: string, expected: Machine): void {
    const writes = this.noted.get(key) ?? [];
    writes.push(clone(expected));
    if (writes.length > MAX_NOTED_PER_RECONCILE) writes.shift();
    this.noted.set(key, writes);
  }

  /** A reconcile of `key` begins (or the Machine is gone): whatever comes next is looked at. */
  clear(key: string): void {
    this.noted.delete(key);
  }

  /** Whether the update of the Machine at `key` from `old` to `obj` brings nothing but what was noted. */
  isEcho(key: string, obj: KubeObject, old: KubeObject): boolean {
    return this.noted.get(key)?.some((noted) => onlyNoted(obj, old, noted)) ?? false;
  }

  get size(): number {
    return this.noted.size;
  }
}
