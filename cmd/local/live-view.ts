// The live view of `npm start` on a terminal: a pure function from a cluster snapshot and a screen size to
// the lines to draw, so it fits 80×24 and can be tested without a terminal.
import type { ClusterSnapshot, EventRow } from './cluster-snapshot.js';

export interface LiveViewHeader {
  provider: string;
  apiServer: string;
  /** e.g. "KUBECONFIG=.local/kubeconfig kubectl get machines -A" */
  hint: string;
  /** e.g. "Ctrl-C stops everything; state is kept in .local/" */
  footer: string;
}

export interface LiveViewOptions {
  width: number;
  height: number;
  nowMs: number;
  header: LiveViewHeader;
}

/** kubectl-style age: 45s, 3m12s (under 10 minutes), 42m, 5h, 3d. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60}s`;
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/**
 * Cuts text to width with an ellipsis on the right, or on the left to keep the end (ids live at the end), or
 * in the middle keeping both ends ("ends": generated names share a prefix and differ in their random suffix,
 * so the end tells them apart and the start says what they are).
 */
export function fit(text: string, width: number, keep: 'start' | 'end' | 'ends' = 'start'): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  if (width === 1) return '…';
  if (keep === 'start') return `${text.slice(0, width - 1)}…`;
  if (keep === 'ends' && width >= 6) {
    const tail = Math.ceil(((width - 1) * 2) / 3);
    return `${text.slice(0, width - 1 - tail)}…${text.slice(text.length - tail)}`;
  }
  // Prefer cutting at a path separator, so "aws:///us-east-1a/i-0123" shows as "…/i-0123", not "…a/i-0123".
  const tail = text.slice(text.lastIndexOf('/') + 1);
  if (tail.length > 0 && tail.length + 2 <= width && tail.length < text.length) return `…/${tail}`;
  return `…${text.slice(text.length - width + 1)}`;
}

interface Column {
  title: string;
  values: string[];
  align?: 'left' | 'right';
  /** Never narrower than this when shrinking. */
  min: number;
  keep?: 'start' | 'end' | 'ends';
  /** Lower shrinks first; undefined never shrinks. */
  shrinkOrder?: number;
  /** Counts as at most this wide when laying out (the last column: it takes whatever room is left). */
  max?: number;
}

const GAP = 2;

/** Lays columns out within width: natural widths, then the shrinkable ones cut down in order until it fits. */
export function table(columns: Column[], width: number): string[] {
  const widths = columns.map((c) =>
    Math.min(c.max ?? Infinity, Math.max(c.title.length, ...c.values.map((v) => v.length))),
  );
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
  const order = columns
    .map((c, i) => ({ c, i }))
    .filter((x) => x.c.shrinkOrder !== undefined)
    .sort((a, b) => a.c.shrinkOrder! - b.c.shrinkOrder!);
  for (const { c, i } of order) {
    const excess = total() - width;
    if (excess <= 0) break;
    widths[i] = Math.max(c.min, widths[i]! - excess);
  }
  const row = (cells: string[]) =>
    fit(
      cells
        .map((v, i) => {
          const w = widths[i]!;
          const last = i === cells.length - 1 && columns[i]!.align !== 'right';
          // The last column is cut by the row's width only, so it uses all the room left.
          if (last) return v;
          const cut = fit(v, w, columns[i]!.keep);
          return columns[i]!.align === 'right' ? cut.padStart(w) : cut.padEnd(w);
        })
        .join(' '.repeat(GAP)),
      width,
    ).trimEnd();
  const rows = columns[0]?.values.map((_, r) => row(columns.map((c) => c.values[r] ?? ''))) ?? [];
  return [row(columns.map((c) => c.title)), ...rows];
}

/** Shows at most n rows of a table body; when some are hidden, the last shown line says how many. */
function clip(body: string[], n: number, what: string): string[] {
  if (body.length <= n) return body;
  if (n <= 0) return [];
  return [...body.slice(0, n - 1), `… ${body.length - n + 1} more ${what}`];
}

const shortKinds: Record<string, string> = {
  Machine: 'machine',
  MachineSet: 'machineset',
  MachineHealthCheck: 'mhc',
  Node: 'node',
};

/** "MachineHealthCheck/x" → "mhc/x": the kind matters less than the name on a narrow screen. */
function shortObject(object: string): string {
  const slash = object.indexOf('/');
  const kind = object.slice(0, slash);
  return slash > 0 && shortKinds[kind] ? `${shortKinds[kind]}${object.slice(slash)}` : object;
}

function eventLines(events: EventRow[], nowMs: number, width: number): string[] {
  if (events.length === 0) return [];
  return table(
    [
      { title: 'AGE', values: events.map((e) => formatAge(nowMs - e.timeMs)), min: 3 },
      { title: 'OBJECT', values: events.map((e) => shortObject(e.object)), min: 16, keep: 'end', shrinkOrder: 0 },
      {
        title: 'REASON',
        values: events.map((e) => (e.type === 'Warning' ? `!${e.reason}` : e.reason)),
        min: 12,
        max: 18,
        shrinkOrder: 1,
      },
      {
        title: 'MESSAGE',
        values: events.map((e) => (e.count > 1 ? `${e.message} (x${e.count})` : e.message)),
        min: 10,
        max: 20,
      },
    ],
    width,
  ).slice(1);
}

function machineColumns(snap: ClusterSnapshot, nowMs: number, node: (name: string) => string): Column[] {
  return [
    { title: 'MACHINE', values: snap.machines.map((m) => m.name), min: 14, shrinkOrder: 2 },
    {
      title: 'PHASE',
      values: snap.machines.map((m) => (m.deleting && m.phase !== 'Deleting' ? `${m.phase || '-'}*` : m.phase || '-')),
      min: 8,
      shrinkOrder: 3,
    },
    {
      title: 'NODE',
      values: snap.machines.map((m) => (m.node ? node(m.node) : '-')),
      min: 12,
      keep: 'ends',
      shrinkOrder: 1,
    },
    {
      title: 'PROVIDERID',
      values: snap.machines.map((m) => m.providerID || '-'),
      min: 21,
      keep: 'end',
      shrinkOrder: 0,
    },
    { title: 'AGE', values: snap.machines.map((m) => formatAge(nowMs - m.createdMs)), align: 'right', min: 3 },
  ];
}

const naturalWidth = (cols: Column[]) =>
  cols.reduce(
    (sum, c) => sum + Math.min(c.max ?? Infinity, Math.max(c.title.length, ...c.values.map((v) => v.length))),
    0,
  ) +
  GAP * (cols.length - 1);

export function renderLiveView(snap: ClusterSnapshot, o: LiveViewOptions): string[] {
  const { width, nowMs } = o;
  const clock = new Date(nowMs).toISOString().slice(11, 19);
  const running = snap.machines.filter((m) => m.phase === 'Running').length;
  const title = `machine-api-local · ${o.header.provider} · ${o.header.apiServer} · ${running}/${snap.machines.length} Running`;
  const head = [
    fit(`${title}${' '.repeat(Math.max(2, width - title.length - clock.length))}${clock}`, width),
    fit(o.header.hint, width),
  ];

  const setTable = snap.machineSets.length
    ? table(
        [
          { title: 'MACHINESET', values: snap.machineSets.map((s) => s.name), min: 12, shrinkOrder: 0 },
          { title: 'DESIRED', values: snap.machineSets.map((s) => String(s.desired)), align: 'right', min: 7 },
          { title: 'CURRENT', values: snap.machineSets.map((s) => String(s.current)), align: 'right', min: 7 },
          { title: 'READY', values: snap.machineSets.map((s) => String(s.ready)), align: 'right', min: 5 },
          { title: 'UP-TO-DATE', values: snap.machineSets.map((s) => s.upToDate ?? '-'), min: 10 },
        ],
        width,
      )
    : ['MACHINESET', '(none)'];
  // Node names lose their DNS domain only when the full names do not fit.
  let columns = machineColumns(snap, nowMs, (n) => n);
  if (naturalWidth(columns) > width) columns = machineColumns(snap, nowMs, (n) => n.split('.')[0] || n);
  const machineTable = snap.machines.length ? table(columns, width) : ['MACHINE', '(none)'];
  const eventCount = snap.events.length;

  // Fixed lines: 2 header, blank, set header, blank, machine header, blank, events header, footer.
  const budget = Math.max(0, o.height - 9);
  const sets = setTable.slice(1);
  const machines = machineTable.slice(1);
  const reserveEvents = Math.min(eventCount, 3);
  const reserveMachines = Math.min(machines.length, 3);
  const setRows = Math.max(Math.min(sets.length, 1), Math.min(sets.length, budget - reserveEvents - reserveMachines));
  const machineRows = Math.max(0, Math.min(machines.length, budget - setRows - reserveEvents));
  const eventRows = Math.max(0, Math.min(eventCount, budget - setRows - machineRows));
  // Laid out from the rows shown only, so a long reason further down does not widen the column.
  const events = eventLines(snap.events.slice(0, eventRows), nowMs, width);

  const lines = [
    ...head,
    '',
    setTable[0]!,
    ...clip(sets, setRows, 'machinesets'),
    '',
    machineTable[0]!,
    ...clip(machines, machineRows, 'machines'),
    '',
    eventCount ? 'EVENTS' : 'EVENTS (none yet)',
    ...events,
  ];
  while (lines.length < o.height - 1) lines.push('');
  lines.length = Math.max(0, Math.min(lines.length, o.height - 1));
  lines.push(fit(o.header.footer, width));
  return lines.map((l) => fit(l, width));
}
