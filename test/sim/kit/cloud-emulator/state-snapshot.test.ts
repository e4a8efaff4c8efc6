import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRegionalSnapshot, StateSnapshotFile, STATE_SNAPSHOT_FORMAT_VERSION } from '../../../../sim/kit/index.js';

interface World {
  region: string;
  items: string[];
}

describe('StateSnapshotFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'state-snapshot-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the data directory and loads undefined when nothing was saved', () => {
    const nested = join(dir, 'a', 'b');
    const file = new StateSnapshotFile<World>(nested, 'w.json');
    expect(existsSync(nested)).to.equal(true);
    expect(file.load()).to.equal(undefined);
  });

  it('saves the snapshot owner-only through a temp file and loads it back', () => {
    const file = new StateSnapshotFile<World>(dir, 'w.json');
    file.snapshot = () => ({ region: 'r1', items: ['x'] });
    file.saveNow();
    expect(existsSync(`${file.path}.tmp`)).to.equal(false);
    expect(statSync(file.path).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).to.deep.equal({
      version: STATE_SNAPSHOT_FORMAT_VERSION,
      world: { region: 'r1', items: ['x'] },
    });
    expect(new StateSnapshotFile<World>(dir, 'w.json').load()).to.deep.equal({ region: 'r1', items: ['x'] });
  });

  it('writes nothing while there is no world to snapshot yet', () => {
    const file = new StateSnapshotFile<World>(dir, 'w.json');
    file.saveNow();
    expect(existsSync(file.path)).to.equal(false);
  });

  /** A file with a 5 ms debounce that counts how often its world is snapshotted. */
  function countingFile(): { file: StateSnapshotFile<World>; snapshots: () => number } {
    const file = new StateSnapshotFile<World>(dir, 'w.json', 5);
    let n = 0;
    file.snapshot = () => {
      n++;
      return { region: 'r1', items: [] };
    };
    return { file, snapshots: () => n };
  }
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('coalesces a burst of scheduled saves into one write after the debounce delay', async () => {
    const { file, snapshots } = countingFile();
    file.scheduleSave();
    file.scheduleSave();
    file.scheduleSave();
    expect(existsSync(file.path)).to.equal(false);
    const deadline = Date.now() + 5_000;
    while (!existsSync(file.path) && Date.now() < deadline) await pause(5);
    // Past every debounce delay the burst could have armed: still one write.
    await pause(30);
    expect(snapshots()).to.equal(1);
  });

  it('saveNow() writes at once and cancels a pending scheduled save', async () => {
    const { file, snapshots } = countingFile();
    file.scheduleSave();
    file.saveNow();
    expect(snapshots()).to.equal(1);
    await pause(30);
    expect(snapshots()).to.equal(1);
  });

  it('refuses a file that is not JSON or has another format version, naming the file', () => {
    const file = new StateSnapshotFile<World>(dir, 'w.json');
    writeFileSync(file.path, '{broken');
    expect(() => file.load()).to.throw(/w\.json: emulator state is not valid JSON/);
    writeFileSync(file.path, JSON.stringify({ version: 99, world: { region: 'r1', items: [] } }));
    expect(() => file.load()).to.throw(/w\.json: unsupported emulator state format \(expected version 1\)/);
    writeFileSync(file.path, JSON.stringify({ version: STATE_SNAPSHOT_FORMAT_VERSION }));
    expect(() => file.load()).to.throw(/unsupported emulator state format/);
  });
});

describe('loadRegionalSnapshot', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'state-snapshot-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('returns the saved world of the same region, and no world for an empty directory', () => {
    expect(loadRegionalSnapshot<World>(dir, 'w.json', 'r1').world).to.equal(undefined);
    const { file } = loadRegionalSnapshot<World>(dir, 'w.json', 'r1');
    file.snapshot = () => ({ region: 'r1', items: ['a'] });
    file.saveNow();
    expect(loadRegionalSnapshot<World>(dir, 'w.json', 'r1').world).to.deep.equal({ region: 'r1', items: ['a'] });
  });

  it('refuses a world saved for another region, naming both regions', () => {
    const file = new StateSnapshotFile<World>(dir, 'w.json');
    file.snapshot = () => ({ region: 'r1', items: [] });
    file.saveNow();
    expect(() => loadRegionalSnapshot<World>(dir, 'w.json', 'r2')).to.throw(
      /holds an emulator state for region r1, not r2/,
    );
  });
});
