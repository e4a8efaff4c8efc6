// KubeClient over raw HTTP: URL paths from Resource descriptors, the kubeconfig's credentials, one QPS
// limit for the whole client. Every HTTP error is an ApiError; network errors stay plain errors.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Eviction } from '../apis/core.js';
import type { KubeList, KubeObject } from '../apis/meta.js';
import type { Clock } from '../base/clock.js';
import { RealClock } from '../base/real-clock.js';
import { TokenBucket } from '../base/token-bucket.js';
import { HttpTransport } from './http-transport.js';
import type {
  DeleteOptions,
  KubeClient,
  ListOptions,
  ListResult,
  ObjectKey,
  Patch,
  PatchOptions,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './kube-client.js';
import { collectionPath, objectPath, RequestBuildError, withQuery } from './paths.js';
import { apiVersionOf, Pods, type Resource } from './resources.js';
import { readWatchStream } from './watch-stream.js';
import type { WriteFence } from './write-fence.js';
import type { RequestMetrics } from './rest-client-metrics.js';

export interface KubeClientOptions {
  kubeConfig: KubeConfig;
  /** Client-side request rate; default 20 (controller-runtime's). */
  qps?: number;
  /** Default 30. */
  burst?: number;
  userAgent?: string;
  clock?: Clock;
  /** Deadline of each non-watch request; default 60 s. */
  requestTimeoutMs?: number;
  /** Refuses writes when this process may no longer make them (a leader that lost its lease). */
  writeFence?: WriteFence;
  /** Where each request's status and duration are counted (restClientMetrics(registry)). */
  metrics?: RequestMetrics;
}

export function createKubeClient(opts: KubeClientOptions): KubeClient & { close(): void } {
  return new HttpKubeClient(opts);
}

const contentTypes = { merge: 'application/merge-patch+json', json: 'application/json-patch+json' } as const;

class HttpKubeClient implements KubeClient {
  private readonly http: HttpTransport;

  constructor(opts: KubeClientOptions) {
    const clock = opts.clock ?? new RealClock();
    const limiter = new TokenBucket(opts.qps ?? 20, opts.burst ?? 30, clock);
    this.http = new HttpTransport(opts.kubeConfig, {
      userAgent: opts.userAgent ?? 'machine-api-ts',
      limiter,
      clock,
      requestTimeoutMs: opts.requestTimeoutMs,
      writeFence: opts.writeFence,
      metrics: opts.metrics,
    });
  }

  close(): void {
    this.http.close();
  }

  async get<T extends KubeObject>(
    resource: Resource<T>,
    key: ObjectKey,
    opts: { signal?: AbortSignal } = {},
  ): Promise<T> {
    return withTypeMeta(
      resource,
      (await this.http.request({ method: 'GET', path: objectPath(resource, key), signal: opts.signal })) as T,
    );
  }

  async list<T extends KubeObject>(resource: Resource<T>, opts: ListOptions = {}): Promise<ListResult<T>> {
    const path = withQuery(collectionPath(resource, opts.namespace), {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      limit: opts.limit,
      continue: opts.continue,
      resourceVersion: opts.resourceVersion,
    });
    const body = (await this.http.request({ method: 'GET', path, signal: opts.signal })) as KubeList<T> | undefined;
    if (!body || !Array.isArray(body.items)) throw new Error(`list ${resource.plural}: response has no items`);
    return { items: body.items.map((o) => withTypeMeta(resource, o)), metadata: body.metadata ?? {} };
  }

  async create<T extends KubeObject>(resource: Resource<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    const ns = resource.namespaced ? obj.metadata.namespace : undefined;
    if (resource.namespaced && !ns)
      throw new RequestBuildError(`${resource.kind}: metadata.namespace is required for a namespaced kind`);
    const path = withQuery(collectionPath(resource, ns), writeQuery(opts));
    const body = withTypeMeta(resource, { ...obj });
    return withTypeMeta(resource, (await this.http.request({ method: 'POST', path, body, signal: opts.signal })) as T);
  }

  update<T extends KubeObject>(resource: Resource<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(resource, obj, undefined, opts);
  }

  updateStatus<T extends KubeObject>(resource: Resource<T>, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.put(resource, obj, 'status', opts);
  }

  async patch<T extends KubeObject>(
    resource: Resource<T>,
    key: ObjectKey,
    patch: Patch,
    opts: PatchOptions = {},
  ): Promise<T> {
    const path = withQuery(objectPath(resource, key, opts.subresource), writeQuery(opts));
    const body = opts.resourceVersion === undefined ? patch.body : withResourceVersionLock(patch, opts.resourceVersion);
    const res = await this.http.request({
      method: 'PATCH',
      path,
      body,
      contentType: contentTypes[patch.type],
      signal: opts.signal,
    });
    return withTypeMeta(resource, res as T);
  }

  async delete<T extends KubeObject>(resource: Resource<T>, key: ObjectKey, opts: DeleteOptions = {}): Promise<void> {
    const body = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: opts.propagationPolicy,
      gracePeriodSeconds: opts.gracePeriodSeconds,
      preconditions: opts.preconditions,
    };
    await this.http.request({ method: 'DELETE', path: objectPath(resource, key), body, signal: opts.signal });
  }

  async evict(
    key: Required<ObjectKey>,
    eviction: Partial<Eviction> = {},
    opts: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const body: Eviction = {
      ...eviction,
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { ...eviction.metadata, name: key.name, namespace: key.namespace },
    };
    await this.http.request({ method: 'POST', path: objectPath(Pods, key, 'eviction'), body, signal: opts.signal });
  }

  async watch<T extends KubeObject>(
    resource: Resource<T>,
    opts: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const path = withQuery(collectionPath(resource, opts.namespace), {
      watch: 'true',
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: opts.allowWatchBookmarks,
      timeoutSeconds: opts.timeoutSeconds,
    });
    let res;
    try {
      res = await this.http.stream(path, signal);
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    await readWatchStream<T>(res, signal, (ev) => {
      if (ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') withTypeMeta(resource, ev.object as T);
      onEvent(ev);
    });
  }

  private async put<T extends KubeObject>(
    resource: Resource<T>,
    obj: T,
    sub: 'status' | undefined,
    opts: WriteOptions,
  ): Promise<T> {
    const key = { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
    const path = withQuery(objectPath(resource, key, sub), writeQuery(opts));
    const body = withTypeMeta(resource, { ...obj });
    return withTypeMeta(resource, (await this.http.request({ method: 'PUT', path, body, signal: opts.signal })) as T);
  }
}

function writeQuery(opts: WriteOptions): Record<string, string | undefined> {
  return { dryRun: opts.dryRun ? 'All' : undefined, fieldManager: opts.fieldManager };
}

/**
 * The optimistic lock on a patch: a merge patch carries metadata.resourceVersion, a JSON patch first
 * replaces /metadata/resourceVersion. Either way the server answers 409 when the object has moved on.
 */
export function withResourceVersionLock(patch: Patch, resourceVersion: string): unknown {
  if (patch.type === 'merge') {
    const meta = (patch.body.metadata ?? {}) as Record<string, unknown>;
    return { ...patch.body, metadata: { ...meta, resourceVersion } };
  }
  return [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }, ...patch.body];
}

/** Lists of built-in kinds come without apiVersion/kind on each item; fill them so events and owner refs work. */
function withTypeMeta<T extends KubeObject>(resource: Resource<T>, obj: T): T {
  if (obj && typeof obj === 'object') {
    obj.apiVersion ??= apiVersionOf(resource);
    obj.kind ??= resource.kind;
  }
  return obj;
}
