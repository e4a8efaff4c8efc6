// Serves what the CRDs say, live: creating or updating a CRD registers its resource type before the
// write returns, so the next request can use it; deleting one removes its objects (watchers see
// DELETED), closes its watches and stops serving it.
import { CRDGroup, CRDPlural } from './builtin-types.js';
import { typeFromCrd, validateCrd, type CRDObject } from './crd.js';
import type { TypeRegistry } from './registry.js';
import { typeKeyOf } from './resource-type.js';
import type { Store } from './storage/store.js';
import type { StoreEvent } from './storage/store-event.js';
import type { WatchHub } from './watch/watch-hub.js';

const CRDKey = `${CRDGroup}/${CRDPlural}`;

export class CRDController {
  /** CRD name → the type key it serves. */
  private readonly served = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly registry: TypeRegistry,
    private readonly hub: WatchHub,
  ) {
    store.onEvent((ev) => this.observe(ev));
  }

  /** Registers the CRDs already in the store (after a restore from the data dir). */
  syncAll(): void {
    for (const crd of this.store.list(CRDKey)) this.serve(crd);
  }

  private observe(ev: StoreEvent): void {
    if (ev.typeKey !== CRDKey) return;
    const crd = ev.object as CRDObject;
    if (ev.type === 'DELETED') this.unserve(crd.metadata.name ?? '');
    else this.serve(crd);
  }

  private serve(crd: CRDObject): void {
    if (validateCrd(crd).length > 0) return;
    const type = typeFromCrd(crd);
    const key = typeKeyOf(type);
    const name = crd.metadata.name ?? '';
    const before = this.served.get(name);
    if (before && before !== key) this.unserve(name);
    this.served.set(name, key);
    this.registry.set(type);
  }

  private unserve(name: string): void {
    const key = this.served.get(name);
    if (!key) return;
    this.served.delete(name);
    this.registry.remove(key);
    for (const obj of this.store.list(key)) this.store.remove(key, { ...obj, metadata: { ...obj.metadata } });
    this.hub.closeAll(undefined, key);
    this.store.dropType(key);
  }
}
