// Keeps PodDisruptionBudget status current (what the disruption controller does in a cluster), so
// `kubectl get pdb` shows the disruptions the eviction subresource will actually allow.
import type { PodDisruptionBudget } from '../../lib/apis/core.js';
import { cloneJson, deepEqual } from './json.js';
import type { ObjectApi } from './object-api.js';
import { budgetFor, matchingPods, PDBKey, PodsKey } from './pdb-budget.js';
import { BatchedStoreController } from './batched-store-controller.js';
import type { StoreEvent } from './storage/store-event.js';

export class PDBStatusController extends BatchedStoreController {
  private readonly namespaces = new Set<string>();
  protected observe(ev: StoreEvent): void {
    if (ev.typeKey !== PodsKey && ev.typeKey !== PDBKey) return;
    const ns = ev.object.metadata.namespace ?? '';
    if (ev.typeKey === PodsKey && this.api.store.count(PDBKey) === 0) return;
    this.namespaces.add(ns);
    this.schedule();
  }

  protected run(): void {
    const names = [...this.namespaces];
    this.namespaces.clear();
    for (const n of names) this.sync(n);
  }

  private sync(namespace: string): void {
    const type = this.registry.byTypeKey(PDBKey);
    if (!type) return;
    for (const pdb of this.api.store.list(PDBKey, namespace) as PodDisruptionBudget[]) {
      if (pdb.metadata.deletionTimestamp) continue;
      const b = budgetFor(pdb, matchingPods(this.api.store, pdb));
      const status = {
        ...(pdb.status ?? {}),
        observedGeneration: pdb.metadata.generation,
        expectedPods: b.expectedPods,
        currentHealthy: b.currentHealthy,
        desiredHealthy: b.desiredHealthy,
        disruptionsAllowed: b.disruptionsAllowed,
      };
      if (deepEqual(status, pdb.status)) continue;
      const next = cloneJson(pdb);
      next.status = status;
      try {
        this.api.writePatched(type, 'v1', pdb as Parameters<ObjectApi['writePatched']>[2], next, 'status');
      } catch {
        // the next pod or PDB change recomputes it
      }
    }
  }
}
