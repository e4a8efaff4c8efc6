// An in-memory Informer for unit tests of controllers: tests push objects and fire events by hand.
import type { KubeObject } from '../../../../lib/apis/meta.js';
import type { Resource } from '../../../../lib/client/resources.js';
import type { Informer, InformerEvent, InformerHandler } from '../../../../lib/runtime/types.js';

export class FakeInformer<T extends KubeObject = KubeObject> implements Informer<T> {
  private readonly handlers: Record<InformerEvent, Set<InformerHandler<T>>> = {
    add: new Set(),
    update: new Set(),
    delete: new Set(),
  };
  private synced = false;
  private waiters: Array<() => void> = [];
  readonly objects = new Map<string, T>();

  constructor(readonly resource: Resource<T>) {}

  on(event: InformerEvent, handler: InformerHandler<T>): () => void {
    this.handlers[event].add(handler);
    return () => this.handlers[event].delete(handler);
  }
  get(key: { namespace?: string; name: string }): T | undefined {
    return this.objects.get(`${key.namespace ?? ''}/${key.name}`);
  }
  list(): T[] {
    return [...this.objects.values()];
  }
  addIndex(): void {}
  byIndex(): T[] {
    return [];
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
  markSynced(): void {
    this.synced = true;
    this.waiters.splice(0).forEach((w) => w());
  }
  fire(event: InformerEvent, obj: T, old?: T): void {
    this.objects.set(`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, obj);
    for (const h of this.handlers[event]) h(obj, old);
  }
}

export function obj(name: string, namespace = 'ns', extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...extra } };
}
