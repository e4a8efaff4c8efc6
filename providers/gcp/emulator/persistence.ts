// Optional persistence of the emulated world across restarts (npm start keeps its instances): the whole world
// is written as one JSON file, atomically (temp file + rename), shortly after each change and on stop.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GceWorld } from './model.js';

const FILE = 'gce-emulator-state.json';
const FORMAT_VERSION = 1;

export class WorldFile {
  private timer: NodeJS.Timeout | undefined;
  readonly path: string;

  constructor(
    dataDir: string,
    private readonly snapshot: () => GceWorld,
    private readonly debounceMs = 50,
  ) {
    mkdirSync(dataDir, { recursive: true });
    this.path = join(dataDir, FILE);
  }

  /** The saved world, or undefined when there is none. A corrupt file is an error, not silently replaced. */
  load(): GceWorld | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let parsed: { version?: unknown; world?: GceWorld };
    try {
      parsed = JSON.parse(text) as { version?: unknown; world?: GceWorld };
    } catch (err) {
      throw new Error(`${this.path}: emulator state is not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (parsed.version !== FORMAT_VERSION || !parsed.world) {
      throw new Error(`${this.path}: unsupported emulator state format (expected version ${FORMAT_VERSION})`);
    }
    return parsed.world;
  }

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
    const tmp = `${this.path}.tmp`;
    // Mode 0600: instance metadata can hold user-data secrets.
    writeFileSync(tmp, JSON.stringify({ version: FORMAT_VERSION, world: this.snapshot() }), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
