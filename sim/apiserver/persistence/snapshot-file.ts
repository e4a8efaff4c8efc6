// The snapshot: every object and the resourceVersion counter at one point of the log, in
// <dataDir>/state.json. It is written to a temporary file that is fsynced, renamed over the old one,
// and then the directory is fsynced, so a crash at any moment leaves the previous or the new snapshot
// whole, never a torn one, and never neither.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { syncDir } from './log-segment.js';
import { SnapshotError } from './storage-error.js';

export interface Snapshot {
  resourceVersion: number;
  items: Array<{ typeKey: string; object: KubeObject }>;
}

export const SnapshotFileName = 'state.json';
const tmpPrefix = `${SnapshotFileName}.tmp-`;

/** Reads the snapshot; undefined when the directory has none yet. Leftover temporary files are removed. */
export function loadSnapshot(dataDir: string): Snapshot | undefined {
  const path = join(dataDir, SnapshotFileName);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new SnapshotError(`${path} is not a valid snapshot: ${(err as Error).message}`);
  }
  const snap = parsed as Partial<Snapshot> | null;
  if (!snap || typeof snap.resourceVersion !== 'number' || !Array.isArray(snap.items)) {
    throw new SnapshotError(`${path} is not a valid snapshot: resourceVersion (number) and items (array) are required`);
  }
  return { resourceVersion: snap.resourceVersion, items: snap.items };
}

/** Removes temporary snapshot files a crash left behind. */
export function removeTemporarySnapshots(dataDir: string, names: string[]): void {
  for (const n of names) if (n.startsWith(tmpPrefix)) rmSync(join(dataDir, n), { force: true });
}

/** Writes the snapshot atomically and durably (see the top of this file). */
export async function writeSnapshot(dataDir: string, snapshot: Snapshot): Promise<void> {
  const parts: string[] = [];
  for (const e of snapshot.items) parts.push(JSON.stringify(e));
  const text = `{"resourceVersion":${snapshot.resourceVersion},"items":[\n${parts.join(',\n')}\n]}\n`;
  const target = join(dataDir, SnapshotFileName);
  const tmp = `${join(dataDir, tmpPrefix)}${process.pid}`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, target);
  syncDir(dataDir);
}
