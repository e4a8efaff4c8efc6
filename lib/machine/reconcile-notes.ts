// What one reconcile's actuator calls learned of a Machine's instance, for the calls after them in the same
// reconcile: update() uses what exists() just read, and the exists() that follows a delete() answers from the
// delete's own fresh read. The machine controller makes one set of notes per reconcile and passes it in the
// actuator context, so no actuator keeps per-Machine maps to hand a read from one call to the next.
//
// The notes of a reconcile that wrote the Machine are carried to the next reconcile of that Machine when
// nothing else has changed it since (its copy is exactly the version that write produced) and little time
// has passed: that reconcile is the echo of our own write, and what the cloud showed a moment ago still holds.
// Anything else (a Node event, another writer, a requeue, a resync) finds no carried notes and reads afresh.

/** A typed slot in the notes; each user makes its own (identity, not the name, tells slots apart). */
export class NoteKey<T> {
  declare private readonly valueType: T;
  constructor(readonly name: string) {}
}

export class ReconcileNotes {
  private readonly values = new Map<NoteKey<unknown>, unknown>();
  /** Keys whose value this reconcile only passed on from the previous one: never carried again. */
  private readonly handedOn = new Set<NoteKey<unknown>>();
  /** What the previous reconcile noted, when this one is the echo of its write (see above); taken once. */
  private readonly carried: Map<NoteKey<unknown>, unknown>;

  constructor(carried?: ReadonlyMap<NoteKey<unknown>, unknown>) {
    this.carried = new Map(carried);
  }

  get<T>(key: NoteKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set<T>(key: NoteKey<T>, value: T): void {
    this.values.set(key, value);
    this.handedOn.delete(key);
  }

  /** Uses what the previous reconcile noted as this one's, without carrying it to the next reconcile again. */
  setHandedOn<T>(key: NoteKey<T>, value: T): void {
    this.values.set(key, value);
    this.handedOn.add(key);
  }

  delete(key: NoteKey<unknown>): void {
    this.values.delete(key);
    this.handedOn.delete(key);
  }

  /** What the previous reconcile noted under `key`, once: a second look in this reconcile gets nothing. */
  takeCarried<T>(key: NoteKey<T>): T | undefined {
    const v = this.carried.get(key) as T | undefined;
    this.carried.delete(key);
    return v;
  }

  /** What this reconcile learnt itself, for the next one: a read is handed on once, never twice. */
  snapshot(): ReadonlyMap<NoteKey<unknown>, unknown> {
    return new Map([...this.values].filter(([key]) => !this.handedOn.has(key)));
  }
}
