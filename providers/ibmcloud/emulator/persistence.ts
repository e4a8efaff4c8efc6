// Optional persistence of the emulated account across restarts: the whole world as one JSON file, written
// atomically (temp file + rename) shortly after each change and on stop.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IbmWorld } from './model.js';

const FILE = 'ibm-vpc-emulator-state.json';
const FORMAT_VERSION = 1;

export class WorldFile {
  private timer: NodeJS.Timeout | undefined;
  readonly path: string;
  /** What to save; set once the world is live. */
  snapshot: () => IbmWorld | undefined = () => undefined;

  constructor(
    dataDir: string,
    private readonly debounceMs = 50,
  ) {
    mkdirSync(dataDir, { recursive: true });
    this.path = join(dataDir, FILE);
  }

  /** The saved world, or undefined when there is none. A corrupt file is an error, never silently replaced. */
  load(): IbmWorld | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const parsed = JSON.parse(text) as { version?: unknown; world?: IbmWorld };
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
    const world = this.snapshot();
    if (!world) return;
    const tmp = `${this.path}.tmp`;
    // The world holds the token-signing secret and user data: owner-only.
    writeFileSync(tmp, JSON.stringify({ version: FORMAT_VERSION, world }), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
