// When a change may be shown to clients. With a data directory that is once it is durable: replies,
// watch events and bookmarks wait for it, so nothing a client saw (an acknowledged write, an object in
// a list, a resourceVersion) can be lost by a crash. Without one it is at once.
import type { Store } from './store.js';

export interface CommitGate {
  /** Resolves once every change up to rv is durable; rejects (StorageError) when it never will be. */
  durable(rv: number): Promise<void>;
  /** The newest resourceVersion clients may see: every change up to it is durable and went to watchers. */
  durableRv(): number;
}

/** The gate of a control plane without a data directory: every committed change may be shown at once. */
export function immediateCommits(store: Store): CommitGate {
  return {
    durable: () => Promise.resolve(),
    durableRv: () => store.currentRv(),
  };
}
