// The informer's local cache: objects by namespace/name, plus named indexes (namespace built in).
import type { KubeObject } from '../apis/meta.js';
import { objectKey } from '../apis/objects.js';

export const NamespaceIndex = 'namespace';

export class ObjectStore<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, (obj: T) => string[]>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  constructor() {
    this.addIndex(NamespaceIndex, (o) => [o.metadata.namespace ?? '']);
  }

  addIndex(name: string, fn: (obj: T) => string[]): void {
    if (this.indexers.has(name)) throw new Error(`index ${JSON.stringify(name)} already exists`);
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indexes.set(name, index);
    for (const [key, obj] of this.items) this.indexOne(index, fn, key, obj);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  values(): T[] {
    return [...this.items.values()];
  }

  size(): number {
    return this.items.size;
  }

  set(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) this.indexOne(this.indexes.get(name)!, fn, key, obj);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`no index named ${JSON.stringify(name)}`);
    const keys = index.get(value);
    if (!keys) return [];
    return [...keys].map((k) => this.items.get(k)!).filter(Boolean);
  }

  private indexOne(index: Map<string, Set<string>>, fn: (obj: T) => string[], key: string, obj: T): void {
    let values: string[];
    try {
      values = fn(obj);
    } catch {
      values = [];
    }
    for (const v of values) {
      let set = index.get(v);
      if (!set) index.set(v, (set = new Set()));
      set.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name)!;
      let values: string[];
      try {
        values = fn(obj);
      } catch {
        values = [];
      }
      for (const v of values) {
        const set = index.get(v);
        set?.delete(key);
        if (set?.size === 0) index.delete(v);
      }
    }
  }
}
