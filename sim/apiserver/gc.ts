// The garbage collector: ownerReferences as kube-controller-manager handles them. When an owner is gone,
// its dependents are deleted (background) unless another owner still holds them, in which case only the
// dangling reference is dropped. An owner deleted with propagationPolicy Foreground keeps its
// foregroundDeletion finalizer until every dependent with blockOwnerDeletion is gone; one deleted with
// Orphan has its dependents' references removed, then its orphan finalizer.
// Work is collected from store events and done on the next turn of the event loop, never inside a write.
import type { KubeObject, OwnerReference } from '../../lib/apis/meta.js';
import { cloneJson } from './json.js';
import {
  ForegroundFinalizer,
  OrphanFinalizer,
  type ObjectApi,
  type Obj,
  type PropagationPolicy,
} from './object-api.js';
import type { TypeRegistry } from './registry.js';
import { BatchedStoreController } from './batched-store-controller.js';
import type { StoreEvent } from './storage/store-event.js';
import { versionOf } from './versions.js';

export class GarbageCollector extends BatchedStoreController {
  private readonly owners = new Set<string>();
  private readonly dependents = new Set<string>();
  protected observe(ev: StoreEvent): void {
    const o = ev.object;
    const uid = o.metadata.uid;
    if (!uid) return;
    const store = this.api.store;
    if (ev.type === 'DELETED') {
      for (const d of store.dependentsOf(uid)) this.dependents.add(d);
      for (const r of o.metadata.ownerReferences ?? []) this.owners.add(r.uid);
    } else {
      const f = o.metadata.finalizers ?? [];
      if (o.metadata.deletionTimestamp && (f.includes(ForegroundFinalizer) || f.includes(OrphanFinalizer)))
        this.owners.add(uid);
      const refs = o.metadata.ownerReferences ?? [];
      if (refs.some((r) => !store.lookupUid(r.uid))) this.dependents.add(uid);
    }
    if (this.owners.size + this.dependents.size > 0) this.schedule();
  }

  /** Processes everything queued (new work found while running goes to the next turn). */
  override run(): void {
    const owners = [...this.owners];
    const dependents = [...this.dependents];
    this.owners.clear();
    this.dependents.clear();
    for (const uid of dependents) this.guard(() => this.processDependent(uid));
    for (const uid of owners) this.guard(() => this.processOwner(uid));
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      // A conflicting or invalid write is retried when the object changes again; the GC never crashes the server.
    }
  }

  private resolve(uid: string): { type: NonNullable<ReturnType<TypeRegistry['byTypeKey']>>; object: Obj } | undefined {
    const found = this.api.store.getByUid(uid);
    if (!found) return undefined;
    const type = this.registry.byTypeKey(found.ref.typeKey);
    return type ? { type, object: found.object as Obj } : undefined;
  }

  private isWaitingForDependents(o: KubeObject): boolean {
    return !!o.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).includes(ForegroundFinalizer);
  }

  private processDependent(uid: string): void {
    const dep = this.resolve(uid);
    if (!dep) return;
    const refs = dep.object.metadata.ownerReferences ?? [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    let solid = 0;
    for (const r of refs) {
      const owner = this.api.store.getByUid(r.uid);
      if (!owner) {
        // An owner whose kind we cannot resolve is left alone, as kube's GC does.
        if (this.registry.byApiVersionKind(r.apiVersion, r.kind)) dangling.push(r);
        else solid++;
      } else if (this.isWaitingForDependents(owner.object)) waiting.push(r);
      else solid++;
    }
    if (dangling.length === 0 && waiting.length === 0) return;
    if (solid > 0) {
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      this.removeOwnerRefs(dep.type, dep.object, drop);
      return;
    }
    if (dep.object.metadata.deletionTimestamp) return;
    const own = dep.object.metadata.finalizers ?? [];
    const policy: PropagationPolicy =
      waiting.length > 0 || own.includes(ForegroundFinalizer)
        ? 'Foreground'
        : own.includes(OrphanFinalizer)
          ? 'Orphan'
          : 'Background';
    this.api.delete(dep.type, dep.object.metadata.namespace ?? '', dep.object.metadata.name ?? '', {
      propagationPolicy: policy,
    });
  }

  private processOwner(uid: string): void {
    const owner = this.resolve(uid);
    if (!owner?.object.metadata.deletionTimestamp) return;
    const finalizers = owner.object.metadata.finalizers ?? [];
    const deps = this.api.store
      .dependentsOf(uid)
      .map((d) => this.resolve(d))
      .filter((d) => d !== undefined);
    if (finalizers.includes(OrphanFinalizer)) {
      for (const d of deps) this.guard(() => this.removeOwnerRefs(d.type, d.object, new Set([uid])));
      this.removeFinalizer(owner.type, owner.object, OrphanFinalizer);
      return;
    }
    if (!finalizers.includes(ForegroundFinalizer)) return;
    for (const d of deps) this.guard(() => this.processDependent(d.object.metadata.uid ?? ''));
    const blocking = this.api.store
      .dependentsOf(uid)
      .map((d) => this.resolve(d))
      .filter((d) => d?.object.metadata.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion === true));
    if (blocking.length === 0) this.removeFinalizer(owner.type, owner.object, ForegroundFinalizer);
  }

  private removeOwnerRefs(type: Parameters<ObjectApi['writePatched']>[0], obj: Obj, uids: Set<string>): void {
    const next = cloneJson(obj);
    const refs = (next.metadata.ownerReferences ?? []).filter((r) => !uids.has(r.uid));
    if (refs.length > 0) next.metadata.ownerReferences = refs;
    else delete next.metadata.ownerReferences;
    this.api.writePatched(type, versionOf(type, obj), obj, next, undefined);
  }

  private removeFinalizer(type: Parameters<ObjectApi['writePatched']>[0], obj: Obj, finalizer: string): void {
    const current = this.api.find(type, obj.metadata.namespace ?? '', obj.metadata.name ?? '') ?? obj;
    const next = cloneJson(current);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.api.writePatched(type, versionOf(type, current), current, next, undefined);
  }
}
