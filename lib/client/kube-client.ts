// The typed Kubernetes client every controller uses. One interface, so tests can wrap it (count calls,
// inject failures) and the implementation over @kubernetes/client-node stays in one place.
import type { Eviction } from '../apis/core.js';
import type { KubeObject, ListMeta, Status } from '../apis/meta.js';
import type { Resource } from './resources.js';

export interface ObjectKey {
  namespace?: string;
  name: string;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  signal?: AbortSignal;
}

export interface ListResult<T extends KubeObject> {
  items: T[];
  metadata: ListMeta;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  signal?: AbortSignal;
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  signal?: AbortSignal;
}

export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

export type Patch = { type: 'merge'; body: Record<string, unknown> } | { type: 'json'; body: JsonPatchOperation[] };

export interface PatchOptions extends WriteOptions {
  /** 'status' or 'scale'; the main resource when unset. */
  subresource?: 'status' | 'scale';
  /**
   * Optimistic lock: when set, the patch only applies at this resourceVersion (409 Conflict otherwise).
   * For a merge patch it is sent as metadata.resourceVersion; for a JSON patch as a leading
   * `replace /metadata/resourceVersion` op (a `test` op would answer 422, not 409).
   */
  resourceVersion?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject> {
  type: WatchEventType;
  /** The object, or a Status for ERROR events (e.g. code 410 when the resourceVersion is too old). */
  object: T | (Status & KubeObject);
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface KubeClient {
  get<T extends KubeObject>(resource: Resource<T>, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T>;
  list<T extends KubeObject>(resource: Resource<T>, opts?: ListOptions): Promise<ListResult<T>>;
  create<T extends KubeObject>(resource: Resource<T>, obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT of the whole object; 409 Conflict when obj.metadata.resourceVersion is stale. */
  update<T extends KubeObject>(resource: Resource<T>, obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT of the status subresource. */
  updateStatus<T extends KubeObject>(resource: Resource<T>, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(resource: Resource<T>, key: ObjectKey, patch: Patch, opts?: PatchOptions): Promise<T>;
  delete<T extends KubeObject>(resource: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void>;
  /** POST pods/<name>/eviction (policy/v1). Rejects with a 429 ApiError while a PodDisruptionBudget forbids it. */
  evict(key: Required<ObjectKey>, eviction?: Partial<Eviction>, opts?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Opens a watch; `onEvent` is called for each event in order. Resolves when the stream ends
   * (server closed it, timeoutSeconds passed, or `signal` aborted); rejects on an HTTP error
   * (an ApiError with code 410 when the resourceVersion is too old).
   */
  watch<T extends KubeObject>(
    resource: Resource<T>,
    opts: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void>;
}
