// The control plane's own background controllers (garbage collection, namespace deletion, PDB status)
// watch the store and batch what they saw into one pass on the next turn of the event loop: a burst of
// writes costs one pass, and no pass ever runs inside the write that triggered it.
import type { ObjectApi } from './object-api.js';
import type { TypeRegistry } from './registry.js';
import type { StoreEvent } from './storage/store-event.js';

export abstract class BatchedStoreController {
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(
    protected readonly api: ObjectApi,
    protected readonly registry: TypeRegistry,
  ) {
    api.store.onEvent((ev) => this.observe(ev));
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  /** Records what an event means for the next pass, and calls schedule() when there is work. */
  protected abstract observe(ev: StoreEvent): void;

  /** One pass over everything recorded since the last one. */
  protected abstract run(): void;

  protected schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.run();
    });
  }
}
