import type { KubeObject } from '../../../lib/apis/meta.js';

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. Objects are never mutated after commit, so events share them freely. */
export interface StoreEvent {
  type: StoreEventType;
  rv: number;
  typeKey: string;
  object: KubeObject;
  /** The stored object before this change (MODIFIED and DELETED). */
  previous?: KubeObject;
  /**
   * Bytes this event holds in watch history: the serialised size of its object, plus that of the
   * object it replaced (which the event keeps alive after that object's own event is evicted).
   */
  size: number;
  /** Serialisations shared by every watcher using the same encoding. */
  encoded?: Map<string, string>;
}
