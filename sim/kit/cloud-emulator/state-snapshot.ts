// Optional persistence of an emulated world across restarts (npm start keeps its instances): the whole world is
// one JSON file in a data directory, written atomically (temp file + rename) shortly after each change and on stop.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bumped when a saved world can no longer be read back as-is. */
export const STATE_SNAPSHOT_FORMAT_VERSION = 1;

export class StateSnapshotFile<W> {
  private timer: NodeJS.Timeout | undefined;
  readonly path: string;

  /** What to save; set once the world is live (saves before that write nothing). */
  snapshot: () => W | undefined = () => undefined;

  /**
   * @param dataDir created when missing.
   * @param fileName e.g. "ec2-emulator-state.json".
   * @param debounceMs how long scheduleSave() waits, so a burst of changes is written once.
   */
  constructor(
    readonly dataDir: string,
    fileName: string,
    private readonly debounceMs = 50,
  ) {
    mkdirSync(dataDir, { recursive: true });
    this.path = join(dataDir, fileName);
  }

  /** The saved world, or undefined when there is none. A corrupt file is an error, never silently replaced. */
  load(): W | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let parsed: { version?: unknown; world?: W };
    try {
      parsed = JSON.parse(text) as { version?: unknown; world?: W };
    } catch (err) {
      throw new Error(`${this.path}: emulator state is not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (parsed.version !== STATE_SNAPSHOT_FORMAT_VERSION || !parsed.world) {
      throw new Error(
        `${this.path}: unsupported emulator state format (expected version ${STATE_SNAPSHOT_FORMAT_VERSION})`,
      );
    }
    return parsed.world;
  }

  /** Saves after the debounce delay unless a save is already pending; never keeps the process alive. */
  scheduleSave(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.saveNow();
    }, this.debounceMs);
    this.timer.unref();
  }

  saveNow(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const world = this.snapshot();
    if (world === undefined) return;
    const tmp = `${this.path}.tmp`;
    // Owner-only: worlds hold user data and, for some clouds, token-signing secrets.
    writeFileSync(tmp, JSON.stringify({ version: STATE_SNAPSHOT_FORMAT_VERSION, world }), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}

/** Opens the snapshot file of `dataDir` and loads it, refusing a world saved for another region. */
export function loadRegionalSnapshot<W extends { region: string }>(
  dataDir: string,
  fileName: string,
  region: string,
): { file: StateSnapshotFile<W>; world: W | undefined } {
  const file = new StateSnapshotFile<W>(dataDir, fileName);
  const world = file.load();
  if (world && world.region !== region) {
    throw new Error(`dataDir ${dataDir} holds an emulator state for region ${world.region}, not ${region}`);
  }
  return { file, world };
}
