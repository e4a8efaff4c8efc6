// The Query protocol's flat form fields (`Filter.1.Value.2=x`) read as scalars, 1-based lists and
// lists of structures. Indexes need not be contiguous; they are read in numeric order.
import { invalidParameterValue } from './api-error.js';

/** After `prefix.`: the index of a scalar list item, or the index and the rest of a structure list item. */
const LIST_INDEX = /^(\d+)$/;
const STRUCT_INDEX = /^(\d+)\.(.+)$/;

export class QueryParams {
  constructor(private readonly fields: ReadonlyMap<string, string>) {}

  static fromSearchParams(sp: URLSearchParams): QueryParams {
    const m = new Map<string, string>();
    for (const [k, v] of sp) m.set(k, v);
    return new QueryParams(m);
  }

  get(name: string): string | undefined {
    return this.fields.get(name);
  }

  /** Whether any field equals `prefix` or starts with `prefix.`. */
  has(prefix: string): boolean {
    for (const k of this.fields.keys()) if (k === prefix || k.startsWith(`${prefix}.`)) return true;
    return false;
  }

  /** Scalar list `prefix.1`, `prefix.2`, ... */
  list(prefix: string): string[] {
    const found: [number, string][] = [];
    for (const [k, v] of this.fields) {
      const m = k.startsWith(`${prefix}.`) ? LIST_INDEX.exec(k.slice(prefix.length + 1)) : null;
      if (m) found.push([Number(m[1]), v]);
    }
    return found.sort((a, b) => a[0] - b[0]).map(([, v]) => v);
  }

  /** Structure list `prefix.N.<rest>`: one QueryParams per index, keyed by <rest>. */
  structList(prefix: string): QueryParams[] {
    const groups = new Map<number, Map<string, string>>();
    for (const [k, v] of this.fields) {
      const m = k.startsWith(`${prefix}.`) ? STRUCT_INDEX.exec(k.slice(prefix.length + 1)) : null;
      if (!m) continue;
      const idx = Number(m[1]);
      let g = groups.get(idx);
      if (!g) groups.set(idx, (g = new Map()));
      g.set(m[2] as string, v);
    }
    return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, g]) => new QueryParams(g));
  }

  /** The structure under `prefix.` (e.g. `Placement.`). */
  struct(prefix: string): QueryParams {
    const m = new Map<string, string>();
    for (const [k, v] of this.fields) if (k.startsWith(`${prefix}.`)) m.set(k.slice(prefix.length + 1), v);
    return new QueryParams(m);
  }

  bool(name: string): boolean | undefined {
    const v = this.fields.get(name);
    if (v === undefined) return undefined;
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw invalidParameterValue(`Invalid value '${v}' for ${name}: expected true or false`);
  }

  int(name: string): number | undefined {
    const v = this.fields.get(name);
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw invalidParameterValue(`Invalid value '${v}' for ${name}: expected an integer`);
    return Number(v);
  }

  num(name: string): number | undefined {
    const v = this.fields.get(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n))
      throw invalidParameterValue(`Invalid value '${v}' for ${name}: expected a number`);
    return n;
  }

  /** A canonical string of every field except those named, for ClientToken parameter comparison. */
  fingerprint(exclude: readonly string[]): string {
    return JSON.stringify(
      [...this.fields.entries()].filter(([k]) => !exclude.includes(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }

  isEmpty(): boolean {
    return this.fields.size === 0;
  }
}
