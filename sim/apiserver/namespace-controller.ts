// Namespace deletion as kube-controller-manager does it: a terminating namespace has all its content
// deleted (finalizers are honoured), and once it is empty the "kubernetes" finalizer is removed from
// spec.finalizers, which lets the namespace go.
import { cloneJson } from './json.js';
import { typeKeyOf } from './resource-type.js';
import { BatchedStoreController } from './batched-store-controller.js';
import type { StoreEvent } from './storage/store-event.js';

const NamespacesKey = '/namespaces';

export class NamespaceController extends BatchedStoreController {
  private readonly terminating = new Set<string>();
  private readonly queued = new Set<string>();
  protected observe(ev: StoreEvent): void {
    if (ev.typeKey === NamespacesKey) {
      const name = ev.object.metadata.name ?? '';
      if (ev.type === 'DELETED') this.terminating.delete(name);
      else if (ev.object.metadata.deletionTimestamp) {
        this.terminating.add(name);
        this.enqueue(name);
      }
      return;
    }
    const ns = ev.object.metadata.namespace;
    if (ev.type === 'DELETED' && ns && this.terminating.has(ns)) this.enqueue(ns);
  }

  private enqueue(ns: string): void {
    this.queued.add(ns);
    this.schedule();
  }

  protected run(): void {
    const names = [...this.queued];
    this.queued.clear();
    for (const n of names) {
      try {
        this.sync(n);
      } catch {
        // retried on the next deletion in the namespace
      }
    }
  }

  private sync(name: string): void {
    const nsType = this.registry.byTypeKey(NamespacesKey);
    if (!nsType) return;
    const ns = this.api.find(nsType, '', name);
    if (!ns?.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const type of this.registry.all()) {
      // A view's objects are another type's, deleted through that type.
      if (!type.namespaced || type.view) continue;
      for (const obj of this.api.store.list(typeKeyOf(type), name)) {
        remaining++;
        if (!obj.metadata.deletionTimestamp)
          this.api.delete(type, name, obj.metadata.name ?? '', { propagationPolicy: 'Background' });
      }
    }
    if (remaining > 0) return;
    const current = this.api.find(nsType, '', name);
    if (!current) return;
    const next = cloneJson(current);
    const spec = (next.spec ?? {}) as { finalizers?: string[] };
    next.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') };
    this.api.writePatched(nsType, 'v1', current, next, undefined);
  }
}
