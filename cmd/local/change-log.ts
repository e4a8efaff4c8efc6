// Without a terminal, `npm start` prints one line per change instead of redrawing: a pure diff of two
// cluster snapshots.
import { namespacedKey } from '../../lib/index.js';
import type { ClusterSnapshot, EventRow, MachineRow, MachineSetRow } from './cluster-snapshot.js';

const eventKey = (e: EventRow) => `${e.timeMs}|${e.object}|${e.reason}|${e.count}|${e.message}`;

function setLine(s: MachineSetRow): string {
  const upToDate = s.upToDate === undefined ? '' : `, up to date ${s.upToDate}`;
  return `machineset ${namespacedKey(s)}: desired ${s.desired}, current ${s.current}, ready ${s.ready}${upToDate}`;
}

function machineLine(m: MachineRow, before: MachineRow | undefined): string {
  const phase = m.phase || '(no phase)';
  const parts = [before && before.phase !== m.phase ? `${before.phase || '(no phase)'} -> ${phase}` : phase];
  if (m.deleting && !before?.deleting) parts.push('deleting');
  if (m.providerID && m.providerID !== before?.providerID) parts.push(`providerID ${m.providerID}`);
  if (m.node && m.node !== before?.node) parts.push(`node ${m.node}`);
  if (!m.node && before?.node) parts.push(`node ${before.node} gone`);
  return `machine ${namespacedKey(m)}: ${parts.join(', ')}`;
}

function sameMachine(a: MachineRow, b: MachineRow): boolean {
  return a.phase === b.phase && a.node === b.node && a.providerID === b.providerID && a.deleting === b.deleting;
}

/** One change: its text, and for an event the time the event itself carries. */
export interface Change {
  text: string;
  eventTimeMs?: number;
}

/** Lines describing what changed from prev to next (everything, when prev is undefined), oldest event first. */
export function changeLines(prev: ClusterSnapshot | undefined, next: ClusterSnapshot): string[] {
  return changes(prev, next).map((c) => c.text);
}

/**
 * The change lines, each stamped with a UTC time of day: an event with its own time (events replayed from an
 * earlier run keep theirs, with their date when it is not today's), any other change with `nowMs`, when it
 * was seen.
 */
export function stampedChangeLines(prev: ClusterSnapshot | undefined, next: ClusterSnapshot, nowMs: number): string[] {
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const stamp = (ms: number) => {
    const iso = new Date(ms).toISOString();
    return iso.startsWith(today) ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  };
  return changes(prev, next).map((c) => `${stamp(c.eventTimeMs || nowMs)} ${c.text}`);
}

function changes(prev: ClusterSnapshot | undefined, next: ClusterSnapshot): Change[] {
  const lines: Change[] = [];
  const push = (text: string) => lines.push({ text });
  const prevSets = new Map(prev?.machineSets.map((s) => [namespacedKey(s), s]));
  for (const s of next.machineSets) {
    const p = prevSets.get(namespacedKey(s));
    if (!p || p.desired !== s.desired || p.current !== s.current || p.ready !== s.ready || p.upToDate !== s.upToDate)
      push(setLine(s));
    prevSets.delete(namespacedKey(s));
  }
  for (const gone of prevSets.keys()) push(`machineset ${gone}: deleted`);

  const prevMachines = new Map(prev?.machines.map((m) => [namespacedKey(m), m]));
  for (const m of next.machines) {
    const p = prevMachines.get(namespacedKey(m));
    if (!p || !sameMachine(p, m)) push(machineLine(m, p));
    prevMachines.delete(namespacedKey(m));
  }
  for (const gone of prevMachines.keys()) push(`machine ${gone}: deleted`);

  const seen = new Set(prev?.events.map(eventKey));
  const oldestShown = prev?.events.at(-1)?.timeMs ?? -Infinity;
  const fresh = next.events.filter((e) => !seen.has(eventKey(e)) && (prev === undefined || e.timeMs >= oldestShown));
  for (const e of fresh.reverse()) {
    lines.push({
      text: `event ${e.type} ${e.reason} ${e.object}: ${e.message}${e.count > 1 ? ` (x${e.count})` : ''}`,
      eventTimeMs: e.timeMs,
    });
  }
  return lines;
}
