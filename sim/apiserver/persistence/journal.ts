// Durability of the local control plane: every committed change is appended to a write-ahead log
// (one JSON line per change, group-committed with fdatasync) before anything a client can see reflects
// it; start-up loads the last snapshot and replays the log after it; the log is compacted into a new
// snapshot once it grows past a size, and on a clean stop. The resourceVersion counter is part of both,
// so it never goes backwards across restarts, even after kill -9.
//
// Files in the data directory: state.json (the snapshot) and wal-<sequence>.jsonl (log segments, replayed
// in sequence order, records at or below the snapshot's resourceVersion skipped). A new segment is
// started on every start-up and at every compaction, so a torn tail is never appended to.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CommitGate } from '../storage/commit-gate.js';
import type { Store } from '../storage/store.js';
import type { StoreEvent } from '../storage/store-event.js';
import { encodeRecord, readSegment } from './log-reader.js';
import { LogSegment, syncDir } from './log-segment.js';
import { loadSnapshot, removeTemporarySnapshots, writeSnapshot } from './snapshot-file.js';
import { StorageError } from './storage-error.js';

export interface JournalOptions {
  /** Compact the log into a new snapshot once its current segment holds this many bytes (default 64 MiB). */
  compactAfterBytes?: number;
  /** Told what start-up ignored (a torn log tail) and when a compaction failed (the log is kept). */
  onWarning?: (message: string) => void;
}

const segmentPattern = /^wal-(\d{10})\.jsonl$/;

function segmentName(seq: number): string {
  return `wal-${String(seq).padStart(10, '0')}.jsonl`;
}

interface Waiter {
  rv: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class Journal implements CommitGate {
  private segment: LogSegment;
  private seq: number;
  /** Segments whose every record is in a snapshot once the running compaction finishes. */
  private obsolete: string[];
  /** Changes appended but not yet durable, in resourceVersion order. */
  private readonly unsynced: StoreEvent[] = [];
  private synced: number;
  private readonly waiters: Waiter[] = [];
  private failure: StorageError | undefined;
  private compacting: Promise<void> | undefined;
  private readonly listeners: Array<(ev: StoreEvent) => void> = [];
  private readonly compactAfterBytes: number;
  private readonly warn: (message: string) => void;

  /** Loads the data directory into the (empty) store and starts logging its changes. */
  static open(store: Store, dataDir: string, opts: JournalOptions = {}): Journal {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const names = readdirSync(dataDir);
    removeTemporarySnapshots(dataDir, names);
    const snapshot = loadSnapshot(dataDir);
    if (snapshot) store.restore(snapshot.resourceVersion, snapshot.items);
    const segments = names.filter((n) => segmentPattern.test(n)).sort();
    for (const name of segments) {
      const { records, ignoredBytes } = readSegment(join(dataDir, name));
      for (const r of records) if (r.rv > store.currentRv()) store.replay(r);
      if (ignoredBytes > 0)
        opts.onWarning?.(
          `ignored ${ignoredBytes} bytes at the end of ${join(dataDir, name)}: a write cut short by a crash, never acknowledged`,
        );
    }
    store.compactHistory();
    const lastSeq =
      segments.length > 0 ? Number(segmentPattern.exec(segments[segments.length - 1] ?? '')?.[1] ?? 0) : 0;
    return new Journal(store, dataDir, lastSeq + 1, segments, opts);
  }

  private constructor(
    private readonly store: Store,
    private readonly dataDir: string,
    seq: number,
    replayed: string[],
    opts: JournalOptions,
  ) {
    this.compactAfterBytes = opts.compactAfterBytes ?? 64 * 1024 * 1024;
    this.warn = opts.onWarning ?? (() => undefined);
    this.synced = store.currentRv();
    this.seq = seq;
    this.segment = this.startSegment(Promise.resolve());
    this.obsolete = replayed;
    store.onEvent((ev) => this.append(ev));
    // What was replayed goes into a snapshot at once, so the next start-up reads one file.
    if (replayed.length > 0) this.startCompaction();
  }

  /** Listeners see each change once it is durable, in resourceVersion order. */
  onDurable(listener: (ev: StoreEvent) => void): void {
    this.listeners.push(listener);
  }

  durableRv(): number {
    return this.synced;
  }

  durable(rv: number): Promise<void> {
    if (rv <= this.synced) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ rv, resolve, reject }));
  }

  /** Compacts the log into a final snapshot and closes it; throws if anything could not be made durable. */
  async close(): Promise<void> {
    if (this.compacting) await this.compacting;
    if (!this.failure) await this.compact();
    await this.segment.seal();
    if (this.failure) throw this.failure;
  }

  private append(ev: StoreEvent): void {
    this.unsynced.push(ev);
    this.segment.append(encodeRecord(ev.rv, ev.type === 'DELETED' ? 'delete' : 'put', ev.typeKey, ev.object));
    if (this.segment.size >= this.compactAfterBytes && !this.compacting) this.startCompaction();
  }

  private startSegment(after: Promise<void>): LogSegment {
    const name = segmentName(this.seq++);
    return new LogSegment(
      join(this.dataDir, name),
      this.dataDir,
      after,
      (n) => this.markSynced(n),
      (err) => this.fail(err),
    );
  }

  private markSynced(count: number): void {
    const done = this.unsynced.splice(0, count);
    const last = done[done.length - 1];
    if (last) this.synced = last.rv;
    for (const ev of done) for (const l of this.listeners) l(ev);
    let i = 0;
    while (i < this.waiters.length && (this.waiters[i]?.rv ?? 0) <= this.synced) this.waiters[i++]?.resolve();
    this.waiters.splice(0, i);
  }

  private fail(err: Error): void {
    this.failure ??= new StorageError(
      `the data directory ${this.dataDir} could not be written, so no further change can be acknowledged: ${err.message}`,
      { cause: err },
    );
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
  }

  private startCompaction(): void {
    this.compacting = this.compact()
      .catch((err: unknown) =>
        this.warn(
          `compacting the log of ${this.dataDir} failed (the log is kept and replayed): ${(err as Error).message}`,
        ),
      )
      .finally(() => (this.compacting = undefined));
  }

  /**
   * Seals the current segment and starts the next, captures the state as of the seal (objects are
   * immutable, so holding references is a consistent snapshot), writes it once the sealed segment is
   * durable, and then deletes the segments it covers.
   */
  private async compact(): Promise<void> {
    this.obsolete.push(basename(this.segment.path));
    const sealed = this.segment.seal();
    this.segment = this.startSegment(sealed.catch(() => undefined));
    const snapshot = { resourceVersion: this.store.currentRv(), items: [...this.store.entries()] };
    await sealed;
    if (this.failure) throw this.failure;
    await writeSnapshot(this.dataDir, snapshot);
    const covered = this.obsolete;
    this.obsolete = [];
    for (const name of covered) rmSync(join(this.dataDir, name), { force: true });
    syncDir(this.dataDir);
  }
}
