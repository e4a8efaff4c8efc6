// The machine controller's side of ReconcileNotes: hands a reconcile the notes of the previous reconcile of the
// same Machine when that one wrote the Machine, nothing has changed it since, and little time has passed.
import type { Clock } from '../base/clock.js';
import { ReconcileNotes, type NoteKey } from './reconcile-notes.js';

/**
 * How long what a reconcile read may answer the echo of its own write. The echo comes within milliseconds
 * when the controller keeps up; one that comes later reads afresh.
 */
export const DEFAULT_CARRY_MS = 1_000;

interface Carried {
  resourceVersion: string;
  at: number;
  values: ReadonlyMap<NoteKey<unknown>, unknown>;
}

export class CarriedNotes {
  private readonly byKey = new Map<string, Carried>();

  constructor(
    private readonly clock: Clock,
    private readonly carryMs = DEFAULT_CARRY_MS,
  ) {}

  /** The notes for a reconcile of `key` whose copy of the Machine is at `resourceVersion`. */
  begin(key: string, resourceVersion: string | undefined): ReconcileNotes {
    const prev = this.byKey.get(key);
    this.byKey.delete(key);
    const echo =
      prev !== undefined &&
      resourceVersion !== undefined &&
      prev.resourceVersion === resourceVersion &&
      this.clock.now() - prev.at <= this.carryMs;
    return new ReconcileNotes(echo ? prev.values : undefined);
  }

  /** The reconcile of `key` ended; `written` is the resourceVersion its last write returned, if it wrote. */
  end(key: string, written: string | undefined, notes: ReconcileNotes): void {
    if (written === undefined || this.carryMs <= 0) return;
    this.byKey.set(key, { resourceVersion: written, at: this.clock.now(), values: notes.snapshot() });
  }

  /** The Machine is gone. */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}
