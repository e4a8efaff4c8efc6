// A set of field paths in structured-merge-diff's shape: at each level, the path elements that are
// members themselves and the children under each element. Elements are kept in their FieldsV1 spelling
// (`f:name`, `k:{"name":"x"}`, `v:"value"`, `i:0`), so a set reads from and writes to
// metadata.managedFields[].fieldsV1 without translation, and "." marks a node that is also a member.

/** One FieldsV1 element: `f:` field, `k:` list-map key, `v:` set value, `i:` list index. */
export type Element = string;

export class FieldSet {
  readonly members = new Set<Element>();
  readonly children = new Map<Element, FieldSet>();

  static fromPaths(paths: Element[][]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Parses a FieldsV1 value; throws FieldsV1Error for anything that is not one. */
  static fromFieldsV1(v: unknown, at = ''): FieldSet {
    const s = new FieldSet();
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new FieldsV1Error(at);
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      if (key === '.') continue;
      if (!/^[fkvi]:/.test(key)) throw new FieldsV1Error(`${at}${key}`);
      const sub = FieldSet.fromFieldsV1(child, `${at}${key}.`);
      const isMember = sub.children.size === 0 && sub.members.size === 0 ? true : Object.hasOwn(child as object, '.');
      if (isMember) s.members.add(key);
      if (!sub.isEmpty()) s.children.set(key, sub);
    }
    return s;
  }

  child(e: Element): FieldSet {
    let c = this.children.get(e);
    if (!c) {
      c = new FieldSet();
      this.children.set(e, c);
    }
    return c;
  }

  insert(path: Element[]): void {
    if (path.length === 0) return;
    const parent = path.slice(0, -1).reduce<FieldSet>((node, e) => node.child(e), this);
    parent.members.add(path[path.length - 1] as Element);
  }

  has(path: Element[]): boolean {
    if (path.length === 0) return false;
    return this.at(path.slice(0, -1))?.members.has(path[path.length - 1] as Element) ?? false;
  }

  /** The node under a path ([] is this set). */
  at(path: Element[]): FieldSet | undefined {
    return path.reduce<FieldSet | undefined>((node, e) => node?.children.get(e), this);
  }

  isEmpty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    out.addAll(other);
    return out;
  }

  /** Adds every path of `other` to this set (in place). */
  addAll(other: FieldSet): void {
    for (const m of other.members) this.members.add(m);
    for (const [e, c] of other.children) this.child(e).addAll(c);
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [e, c] of this.children) {
      const o = other.children.get(e);
      const d = o ? c.difference(o) : c.copy();
      if (!d.isEmpty()) out.children.set(e, d);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [e, c] of this.children) {
      const o = other.children.get(e);
      if (!o) continue;
      const i = c.intersection(o);
      if (!i.isEmpty()) out.children.set(e, i);
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [e, c] of this.children) if (!c.isEmpty()) out.children.set(e, c.copy());
    return out;
  }

  /** Every member path, parents before their children, elements in FieldsV1 order. */
  paths(prefix: Element[] = []): Element[][] {
    const out: Element[][] = [];
    for (const e of sortedElements([...new Set([...this.members, ...this.children.keys()])])) {
      const p = [...prefix, e];
      if (this.members.has(e)) out.push(p);
      const c = this.children.get(e);
      if (c) out.push(...c.paths(p));
    }
    return out;
  }

  /** The FieldsV1 value: `{}` for a member leaf, `".": {}` on a member that also has children. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const e of sortedElements([...new Set([...this.members, ...this.children.keys()])])) {
      const c = this.children.get(e);
      const sub = c && !c.isEmpty() ? c.toFieldsV1() : {};
      if (!this.members.has(e) && Object.keys(sub).length === 0) continue;
      out[e] = this.members.has(e) && Object.keys(sub).length > 0 ? { '.': {}, ...sub } : sub;
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(other.toFieldsV1());
  }
}

/** A managedFields entry's fieldsV1 that is not a FieldsV1 value. */
export class FieldsV1Error extends Error {
  override readonly name = 'FieldsV1Error';
  constructor(readonly at: string) {
    super(`invalid FieldsV1 at ${at === '' ? 'the root' : JSON.stringify(at)}`);
  }
}

const kindOrder: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function sortedElements(elements: Element[]): Element[] {
  return elements.sort((a, b) => {
    const ka = kindOrder[a[0] ?? ''] ?? 4;
    const kb = kindOrder[b[0] ?? ''] ?? 4;
    if (ka !== kb) return ka - kb;
    if (a[0] === 'i' && b[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** A path as structured-merge-diff prints it in conflicts: `.spec.replicas`, `.spec.ports[port=80]`, `[="a"]`, `[0]`. */
export function pathString(path: Element[]): string {
  return path.map(elementString).join('');
}

function elementString(e: Element): string {
  const body = e.slice(2);
  switch (e[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    }
    case 'v':
      return `[=${body}]`;
    default:
      return `[${body}]`;
  }
}
