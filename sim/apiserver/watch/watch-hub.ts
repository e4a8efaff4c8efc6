// Fan-out of committed changes to open watches. Watchers are grouped by type, so an event only visits
// the watches of its own type; each event is serialised once per encoding and shared.
import type { KubeObject } from '../../../lib/apis/meta.js';
import type { Encoder } from '../encoding.js';
import type { ObjectFilter } from '../selectors.js';
import type { StoreEvent } from '../storage/store-event.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Watcher {
  readonly typeKey: string;
  /** The stream already holds every change up to this resourceVersion (from its start-up list or replay). */
  readonly sinceRv: number;
  /** Only objects in this namespace; undefined for all namespaces. */
  readonly namespace: string | undefined;
  readonly filter: ObjectFilter | undefined;
  readonly encoder: Encoder;
  deliver(line: string): void;
  /** Ends the stream cleanly; with a Status, sends it as an ERROR event first. */
  close(errorStatus?: Record<string, unknown>): void;
}

function selects(w: Watcher, obj: KubeObject | undefined): boolean {
  if (!obj) return false;
  if (w.namespace !== undefined && (obj.metadata.namespace ?? '') !== w.namespace) return false;
  return w.filter ? w.filter(obj) : true;
}

/**
 * The event a watcher sees: an object that moves into its selection is ADDED, one that moves out is
 * DELETED (with its new state), as kube-apiserver's watch cache does.
 */
export function translate(w: Watcher, ev: StoreEvent): WatchEventType | undefined {
  if (ev.type === 'ADDED') return selects(w, ev.object) ? 'ADDED' : undefined;
  if (ev.type === 'DELETED') return selects(w, ev.previous ?? ev.object) ? 'DELETED' : undefined;
  const now = selects(w, ev.object);
  const before = selects(w, ev.previous);
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  if (before) return 'DELETED';
  return undefined;
}

/** The NDJSON line of an event, serialised once per (event type, encoding). */
export function eventLine(ev: StoreEvent, type: WatchEventType, encoder: Encoder): string {
  const key = `${type}|${encoder.key}`;
  ev.encoded ??= new Map();
  let line = encoder.table ? undefined : ev.encoded.get(key);
  if (line === undefined) {
    line = `${JSON.stringify({ type, object: encoder.encode(ev.object) })}\n`;
    if (!encoder.table) ev.encoded.set(key, line);
  }
  return line;
}

export class WatchHub {
  private readonly byType = new Map<string, Set<Watcher>>();
  private total = 0;

  add(w: Watcher): void {
    let s = this.byType.get(w.typeKey);
    if (!s) {
      s = new Set();
      this.byType.set(w.typeKey, s);
    }
    if (!s.has(w)) {
      s.add(w);
      this.total++;
    }
  }

  remove(w: Watcher): void {
    const s = this.byType.get(w.typeKey);
    if (s?.delete(w)) {
      this.total--;
      if (s.size === 0) this.byType.delete(w.typeKey);
    }
  }

  count(): number {
    return this.total;
  }

  dispatch(ev: StoreEvent): void {
    const s = this.byType.get(ev.typeKey);
    if (!s) return;
    for (const w of [...s]) {
      if (ev.rv <= w.sinceRv) continue;
      const t = translate(w, ev);
      if (t) w.deliver(eventLine(ev, t, w.encoder));
    }
  }

  /** Closes every watch (of one type when typeKey is given); an optional Status goes out as an ERROR event. */
  closeAll(errorStatus?: Record<string, unknown>, typeKey?: string): void {
    const sets = typeKey === undefined ? [...this.byType.values()] : [this.byType.get(typeKey) ?? new Set<Watcher>()];
    for (const s of sets) for (const w of [...s]) w.close(errorStatus);
  }
}
