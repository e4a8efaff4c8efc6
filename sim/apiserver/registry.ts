// The live set of served resource types: the built-ins plus one per established CRD. Discovery,
// routing and the garbage collector all resolve kinds through here.
import { builtinTypes } from './builtin-types.js';
import { typeKeyOf, type ResourceType } from './resource-type.js';

export class TypeRegistry {
  private readonly byKey = new Map<string, ResourceType>();
  private readonly listeners = new Set<(key: string, type: ResourceType | undefined) => void>();

  constructor() {
    for (const t of builtinTypes()) this.byKey.set(typeKeyOf(t), t);
  }

  /** Adds or replaces a type; returns the previous one. */
  set(type: ResourceType): ResourceType | undefined {
    const key = typeKeyOf(type);
    const prev = this.byKey.get(key);
    this.byKey.set(key, type);
    for (const l of this.listeners) l(key, type);
    return prev;
  }

  remove(key: string): ResourceType | undefined {
    const prev = this.byKey.get(key);
    if (!prev) return undefined;
    this.byKey.delete(key);
    for (const l of this.listeners) l(key, undefined);
    return prev;
  }

  /** Called with (key, type) on set and (key, undefined) on remove. */
  onChange(listener: (key: string, type: ResourceType | undefined) => void): void {
    this.listeners.add(listener);
  }

  byTypeKey(key: string): ResourceType | undefined {
    return this.byKey.get(key);
  }

  /** The type served at /apis/<group>/<version>/<plural>, if that version is served. */
  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    const t = this.byKey.get(`${group}/${plural}`);
    return t && t.versions.some((v) => v.name === version) ? t : undefined;
  }

  /** Resolves an ownerReference's apiVersion + kind. */
  byApiVersionKind(apiVersion: string, kind: string): ResourceType | undefined {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    for (const t of this.byKey.values()) {
      if (t.group === group && t.kind === kind && t.versions.some((v) => v.name === version)) return t;
    }
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.byKey.values()];
  }

  keyOf(t: ResourceType): string {
    return typeKeyOf(t);
  }
}
