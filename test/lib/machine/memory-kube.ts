// A small in-memory KubeClient and Informer for unit tests of the machine and NodeLink reconcilers:
// resourceVersions and 409s, merge patches (status subresource apart), finalizers and deletionTimestamp,
// and an eviction hook. Integration tests use the real local control plane instead.
import type { Eviction } from '../../../lib/apis/core.js';
import type { KubeObject, Status } from '../../../lib/apis/meta.js';
import { namespacedKey } from '../../../lib/apis/objects.js';
import { ApiError } from '../../../lib/client/errors.js';
import type {
  DeleteOptions,
  JsonPatchOperation,
  KubeClient,
  ListOptions,
  ListResult,
  ObjectKey,
  Patch,
  PatchOptions,
} from '../../../lib/client/kube-client.js';
import type { Resource } from '../../../lib/client/resources.js';
import { clone, deepEqual } from '../../../lib/machine/merge-patch.js';
import type { Informer, InformerEvent, InformerHandler } from '../../../lib/runtime/types.js';

// The store copies with the library's clone, which (unlike structuredClone) copies objects nested as deep as
// the API server allows.
const structuredClone = clone;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** RFC 6902 add/replace/remove/test on object members (enough for these tests); a failed test is a 422. */
export function jsonPatch(target: unknown, ops: JsonPatchOperation[]): unknown {
  const doc = structuredClone(target) as Record<string, unknown>;
  for (const op of ops) {
    const parts = op.path
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop() ?? '';
    let parent: Record<string, unknown> = doc;
    for (const p of parts) {
      const next = parent[p];
      if (!isObj(next)) throw apiError(422, 'Invalid', `path ${op.path} does not exist`);
      parent = next;
    }
    switch (op.op) {
      case 'test':
        if (JSON.stringify(parent[last]) !== JSON.stringify(op.value))
          throw apiError(422, 'Invalid', `test failed at ${op.path}`);
        break;
      case 'add':
      case 'replace':
        if (op.op === 'replace' && !(last in parent)) throw apiError(422, 'Invalid', `path ${op.path} does not exist`);
        parent[last] = structuredClone(op.value);
        break;
      case 'remove':
        if (!(last in parent)) throw apiError(422, 'Invalid', `path ${op.path} does not exist`);
        delete parent[last];
        break;
      default:
        throw new Error(`MemoryKubeClient: unsupported op ${op.op}`);
    }
  }
  return doc;
}

function apiError(code: number, reason: string, message: string): ApiError {
  const status: Status = { kind: 'Status', status: 'Failure', code, reason, message };
  return new ApiError(code, status, message);
}

export class MemoryKubeClient implements KubeClient {
  private readonly stores = new Map<string, Map<string, KubeObject>>();
  private rv = 1;
  readonly calls: string[] = [];
  /** Replaces what POST pods/eviction does; default: delete the pod. */
  evictHandler: (key: Required<ObjectKey>, eviction: Partial<Eviction>) => Promise<void> = async (key) => {
    await this.delete({ group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true }, key);
  };
  /** Called before every write; throw to inject a failure. */
  beforeWrite: (verb: string, plural: string, sub?: string) => void = () => {};
  now = () => new Date().toISOString();

  private store(r: Resource): Map<string, KubeObject> {
    let s = this.stores.get(r.plural);
    if (!s) this.stores.set(r.plural, (s = new Map()));
    return s;
  }

  peek<T extends KubeObject>(r: Resource<T>, key: ObjectKey): T | undefined {
    const o = this.store(r).get(namespacedKey(key));
    return o ? (structuredClone(o) as T) : undefined;
  }

  /** Writes an object straight into the store (a concurrent writer in a test), bumping its resourceVersion. */
  put<T extends KubeObject>(r: Resource<T>, obj: T): void {
    this.save(r, structuredClone(obj));
  }

  all<T extends KubeObject>(r: Resource<T>): T[] {
    return [...this.store(r).values()].map((o) => structuredClone(o) as T);
  }

  count(call: string): number {
    return this.calls.filter((c) => c === call).length;
  }

  private save(r: Resource, obj: KubeObject): KubeObject {
    obj.metadata.resourceVersion = String(++this.rv);
    this.store(r).set(namespacedKey(obj.metadata), structuredClone(obj));
    return structuredClone(obj);
  }

  async get<T extends KubeObject>(r: Resource<T>, key: ObjectKey): Promise<T> {
    this.calls.push(`get ${r.plural}`);
    const o = this.peek(r, key);
    if (!o) throw apiError(404, 'NotFound', `${r.plural} "${key.name}" not found`);
    return o;
  }

  async list<T extends KubeObject>(r: Resource<T>, opts?: ListOptions): Promise<ListResult<T>> {
    this.calls.push(`list ${r.plural}`);
    let items = this.all(r).filter((o) => !opts?.namespace || o.metadata.namespace === opts.namespace);
    const m = /^spec\.nodeName=(.*)$/.exec(opts?.fieldSelector ?? '');
    if (m) items = items.filter((o) => (o as unknown as { spec?: { nodeName?: string } }).spec?.nodeName === m[1]);
    return { items, metadata: { resourceVersion: String(this.rv) } };
  }

  async create<T extends KubeObject>(r: Resource<T>, obj: T): Promise<T> {
    this.calls.push(`create ${r.plural}`);
    this.beforeWrite('create', r.plural);
    if (this.peek(r, { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' }))
      throw apiError(409, 'AlreadyExists', 'already exists');
    const o = structuredClone(obj);
    o.metadata.uid ??= `uid-${obj.metadata.name}-${this.rv}`;
    o.metadata.creationTimestamp ??= this.now();
    o.metadata.generation = 1;
    return this.save(r, o) as T;
  }

  async update<T extends KubeObject>(r: Resource<T>, obj: T): Promise<T> {
    this.calls.push(`update ${r.plural}`);
    this.beforeWrite('update', r.plural);
    const cur = this.peek(r, { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' });
    if (!cur) throw apiError(404, 'NotFound', 'not found');
    if (obj.metadata.resourceVersion !== cur.metadata.resourceVersion)
      throw apiError(409, 'Conflict', 'the object has been modified');
    const next = structuredClone(obj) as KubeObject & { status?: unknown };
    next.status = (cur as KubeObject & { status?: unknown }).status;
    next.metadata.deletionTimestamp = cur.metadata.deletionTimestamp;
    if (JSON.stringify((next as { spec?: unknown }).spec) !== JSON.stringify((cur as { spec?: unknown }).spec)) {
      next.metadata.generation = (cur.metadata.generation ?? 1) + 1;
    }
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      this.store(r).delete(namespacedKey(obj.metadata));
      return next as T;
    }
    return this.save(r, next) as T;
  }

  async updateStatus<T extends KubeObject>(r: Resource<T>, obj: T): Promise<T> {
    const cur = this.peek(r, { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' });
    if (!cur) throw apiError(404, 'NotFound', 'not found');
    (cur as KubeObject & { status?: unknown }).status = (obj as KubeObject & { status?: unknown }).status;
    return this.save(r, cur) as T;
  }

  async patch<T extends KubeObject>(r: Resource<T>, key: ObjectKey, patch: Patch, opts?: PatchOptions): Promise<T> {
    this.calls.push(`patch ${r.plural}${opts?.subresource ? `/${opts.subresource}` : ''}`);
    this.beforeWrite('patch', r.plural, opts?.subresource);
    const cur = this.peek(r, key);
    if (!cur) throw apiError(404, 'NotFound', 'not found');
    if (opts?.resourceVersion && opts.resourceVersion !== cur.metadata.resourceVersion) {
      throw apiError(409, 'Conflict', 'the object has been modified; please apply your changes to the latest version');
    }
    if (patch.type === 'json') {
      const next = jsonPatch(cur, patch.body) as KubeObject;
      if (deepEqual(next, cur)) return cur;
      return this.save(r, next) as T;
    }
    const body = structuredClone(patch.body);
    let next: KubeObject;
    if (opts?.subresource === 'status') {
      next = {
        ...cur,
        status: mergePatch((cur as { status?: unknown }).status, (body as { status?: unknown }).status ?? {}),
      };
    } else {
      delete (body as { status?: unknown }).status;
      next = mergePatch(cur, body) as KubeObject;
    }
    if (deepEqual(next, cur)) return cur;
    return this.save(r, next) as T;
  }

  async delete<T extends KubeObject>(r: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    this.calls.push(`delete ${r.plural}`);
    this.beforeWrite('delete', r.plural);
    const cur = this.peek(r, key);
    if (!cur) throw apiError(404, 'NotFound', 'not found');
    if (opts?.preconditions?.uid && opts.preconditions.uid !== cur.metadata.uid)
      throw apiError(409, 'Conflict', 'Precondition failed: UID');
    if ((cur.metadata.finalizers ?? []).length > 0) {
      cur.metadata.deletionTimestamp ??= this.now();
      this.save(r, cur);
      return;
    }
    this.store(r).delete(namespacedKey(key));
  }

  async evict(key: Required<ObjectKey>, eviction?: Partial<Eviction>): Promise<void> {
    this.calls.push('create pods/eviction');
    if (!this.peek({ group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true }, key))
      throw apiError(404, 'NotFound', 'not found');
    await this.evictHandler(key, eviction ?? {});
  }

  async watch(): Promise<void> {
    throw new Error('MemoryKubeClient: watch is not supported');
  }
}

export const tooManyRequests = () =>
  apiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.");
export const serverError = (msg = 'etcdserver: request timed out') => apiError(500, 'InternalError', msg);

/** An Informer that reads straight through to a MemoryKubeClient (always in sync). */
export class MemoryInformer<T extends KubeObject> implements Informer<T> {
  private readonly indexes = new Map<string, (obj: T) => string[]>();
  constructor(
    private readonly client: MemoryKubeClient,
    readonly resource: Resource<T>,
  ) {}
  on(_e: InformerEvent, _h: InformerHandler<T>): () => void {
    return () => {};
  }
  get(key: ObjectKey): T | undefined {
    return this.client.peek(this.resource, key);
  }
  list(opts?: { namespace?: string }): T[] {
    return this.client.all(this.resource).filter((o) => !opts?.namespace || o.metadata.namespace === opts.namespace);
  }
  addIndex(name: string, fn: (obj: T) => string[]): void {
    this.indexes.set(name, fn);
  }
  byIndex(name: string, value: string): T[] {
    const fn = this.indexes.get(name);
    if (!fn) throw new Error(`no index ${name}`);
    return this.list().filter((o) => fn(o).includes(value));
  }
  hasSynced(): boolean {
    return true;
  }
  async waitForSync(): Promise<void> {}
}
