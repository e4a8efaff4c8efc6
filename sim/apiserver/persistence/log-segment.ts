// One file of the write-ahead log: lines are appended in memory and written with one write and one
// fdatasync per batch (group commit). Lines appended while a batch is being synced form the next batch,
// so under load one fsync covers many writes and the server keeps serving while the disk works.
import { openSync, closeSync, fsyncSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

export class LogSegment {
  private pending: string[] = [];
  private failed = false;
  private running: Promise<void> | undefined;
  private handle: Promise<FileHandle> | undefined;
  private dirSynced = false;
  private sealed = false;
  /** Bytes appended so far (synced or not). */
  size = 0;

  /**
   * @param path the segment's file; it must not exist yet.
   * @param dir its directory, fsynced once after the file is created so the file itself survives a crash.
   * @param after the previous segment's end: nothing here is synced before everything there is.
   * @param onSynced told after each batch that is durable, with the number of lines in it.
   */
  constructor(
    readonly path: string,
    private readonly dir: string,
    private readonly after: Promise<void>,
    private readonly onSynced: (lines: number) => void,
    private readonly onFailed: (err: Error) => void,
  ) {}

  /** Queues one line (with its newline); it is written on the next turn of the event loop or after the batch under way. */
  append(line: string): void {
    if (this.sealed) throw new Error(`write-ahead log segment ${this.path} is sealed`);
    this.pending.push(line);
    this.size += Buffer.byteLength(line);
    this.running ??= this.drain();
  }

  /** Takes no more lines; resolves when every line appended is durable and the file is closed. */
  async seal(): Promise<void> {
    this.sealed = true;
    if (this.running) await this.running;
    const handle = this.handle;
    this.handle = undefined;
    // A file that failed to open was already reported through onFailed.
    if (handle)
      await handle.then(
        (fh) => fh.close(),
        () => undefined,
      );
  }

  private async drain(): Promise<void> {
    try {
      // Let every write of this turn of the event loop join the batch.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.after;
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        const fh = await (this.handle ??= open(this.path, 'wx', 0o600));
        await fh.write(batch.join(''));
        await fh.datasync();
        if (!this.dirSynced) {
          syncDir(this.dir);
          this.dirSynced = true;
        }
        this.onSynced(batch.length);
      }
    } catch (err) {
      this.failed = true;
      this.onFailed(err as Error);
    } finally {
      this.running = undefined;
    }
    if (this.pending.length > 0 && !this.failed) this.running = this.drain();
  }
}

/** Makes a directory's entries (a created or renamed file) durable. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
