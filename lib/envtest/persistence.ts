// Optional durability: a write-behind snapshot of every object and the resourceVersion counter in
// <dataDir>/state.json. Each snapshot goes to a temporary file that is fsynced and then renamed over
// the old one, so a crash (even SIGKILL) leaves either the previous or the new snapshot, never a torn one;
// at most the last moment's writes are lost.
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '../apis/meta.js';
import type { Store } from './storage/store.js';

export interface Snapshot {
  resourceVersion: number;
  items: Array<{ typeKey: string; object: KubeObject }>;
}

const fileName = 'state.json';

export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** Reads the last snapshot; undefined when the directory has none yet. */
export function loadSnapshot(dataDir: string): Snapshot | undefined {
  const path = join(dataDir, fileName);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new SnapshotError(`${path} is not a valid snapshot: ${(err as Error).message}`);
  }
  const snap = parsed as Partial<Snapshot>;
  if (typeof snap.resourceVersion !== 'number' || !Array.isArray(snap.items)) {
    throw new SnapshotError(`${path} is not a valid snapshot: resourceVersion (number) and items (array) are required`);
  }
  return { resourceVersion: snap.resourceVersion, items: snap.items };
}

export class SnapshotWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;
  private lastError: Error | undefined;
  private lastWriteMs = 0;

  constructor(
    private readonly store: Store,
    private readonly dataDir: string,
    private readonly delayMs = 50,
  ) {
    mkdirSync(dataDir, { recursive: true });
    store.onEvent(() => this.markDirty());
  }

  /** The last write failure, if any (the server keeps serving; the next change retries). */
  get error(): Error | undefined {
    return this.lastError;
  }

  private markDirty(): void {
    this.dirty = true;
    if (this.closed || this.timer || this.writing) return;
    // With many objects a snapshot takes a while; spacing them by twice that keeps the server responsive.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, Math.max(this.delayMs, 2 * this.lastWriteMs));
  }

  /** Writes the current state now (waits for a write already under way first). */
  async flush(): Promise<void> {
    if (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    const started = performance.now();
    this.writing = this.write().then(
      () => {
        this.lastError = undefined;
        this.lastWriteMs = performance.now() - started;
      },
      (err: unknown) => {
        this.lastError = err as Error;
        this.dirty = true;
      },
    );
    await this.writing;
    this.writing = undefined;
    if (this.dirty && !this.closed) this.markDirty();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    if (this.lastError) throw this.lastError;
  }

  private async write(): Promise<void> {
    const parts: string[] = [];
    for (const e of this.store.entries()) parts.push(JSON.stringify(e));
    const text = `{"resourceVersion":${this.store.currentRv()},"items":[\n${parts.join(',\n')}\n]}\n`;
    const target = join(this.dataDir, fileName);
    const tmp = `${target}.tmp-${process.pid}`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
  }
}
