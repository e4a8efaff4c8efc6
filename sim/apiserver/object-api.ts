// The write paths every verb shares (create, update, patch's final write, delete), with
// kube-apiserver's semantics: uid/creationTimestamp, resourceVersion preconditions (409), generation,
// status subresource rules, finalizers and deletionTimestamp, schema validation of custom resources,
// namespace lifecycle admission and dryRun. HTTP handlers, the garbage collector and the namespace
// controller all write through here, so the rules live in one place. How a body becomes an object is in
// body-decoding.ts, what a delete does to the object in deletion.ts.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../lib/apis/meta.js';
import { decodeBody, decodeNewBody, knownFields, reportUnknownFields } from './body-decoding.js';
import { hasPendingFinalizers, planDelete, type DeleteOpts, type DeleteResult } from './deletion.js';
import * as E from './errors.js';
import { generateName } from './generate-name.js';
import { cloneJson } from './json.js';
import type { TypeRegistry } from './registry.js';
import { apiVersionFor, storageKeyOf, toStoredForm, type ResourceType } from './resource-type.js';
import { fieldContextFor, recordUpdate } from './field-management/index.js';
import type { Store } from './storage/store.js';
import { isObj, prepareCreate, prepareUpdate, sameObject } from './strategy.js';
import { validateAndDefault } from './validate-and-default.js';
import type { Obj, WriteOpts } from './write-options.js';

export {
  ForegroundFinalizer,
  hasPendingFinalizers,
  OrphanFinalizer,
  type DeleteOpts,
  type DeleteResult,
  type PropagationPolicy,
} from './deletion.js';
export type { Obj, WriteOpts } from './write-options.js';

/** The stored object changed between reading it and writing it (a 409 Conflict if it reaches a client). */
export class ChangedDuringAdmissionError extends E.StatusError {
  constructor(gr: E.GroupResource, name: string) {
    super(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${E.qualifiedName(gr)} "${name}": ${E.staleObjectMessage}`,
      { name, group: gr.group || undefined, kind: gr.resource },
    );
  }
}

export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function groupResource(type: ResourceType): E.GroupResource {
  return { group: type.group, resource: type.plural };
}

export class ObjectApi {
  constructor(
    readonly store: Store,
    readonly registry: TypeRegistry,
    private readonly now: () => number,
  ) {}

  get(type: ResourceType, namespace: string, name: string): Obj {
    const o = this.store.get(storageKeyOf(type), type.namespaced ? namespace : '', name);
    if (!o) throw E.notFound(groupResource(type), name);
    return o as Obj;
  }

  find(type: ResourceType, namespace: string, name: string): Obj | undefined {
    return this.store.get(storageKeyOf(type), type.namespaced ? namespace : '', name) as Obj | undefined;
  }

  create(type: ResourceType, version: string, namespace: string, body: unknown, opts: WriteOpts = {}): Obj {
    const planned = this.planCreate(type, version, decodeNewBody(type, version, namespace, body), opts);
    return opts.dryRun ? planned : this.commitCreate(type, planned);
  }

  /**
   * The body of a create, decoded and placed in the request's namespace: what mutating admission sees
   * (no uid yet, and no name when the client asked for a generated one).
   */
  decodeNew(type: ResourceType, version: string, namespace: string, body: unknown): Obj {
    return decodeNewBody(type, version, namespace, body);
  }

  /** Everything a create does short of storing: name, server-set metadata, defaults and validation. */
  planCreate(type: ResourceType, version: string, incoming: Obj, opts: WriteOpts = {}): Obj {
    const obj = toStoredForm(type, this.decodeKnown(type, version, incoming, opts));
    const m = obj.metadata;
    if (!m.name) {
      if (!m.generateName) {
        throw E.invalid(type.kind, type.group, '', [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: name or generateName is required',
            field: 'metadata.name',
          },
        ]);
      }
      m.name = this.generateName(type, m.namespace ?? '', m.generateName);
    }
    const name = m.name;
    if (type.namespaced) this.admitNamespace(type, m.namespace ?? '', name);
    const nowStr = rfc3339(this.now());
    const meta = m as Record<string, unknown>;
    const applied = opts.fieldManager?.operation === 'Apply' ? meta.managedFields : undefined;
    prepareCreate(type, obj, randomUUID(), nowStr);
    if (applied !== undefined) meta.managedFields = applied;
    const admitted = validateAndDefault(type, version, obj, undefined, nowStr);
    this.recordFields(type, version, undefined, admitted, opts, nowStr);
    if (this.find(type, m.namespace ?? '', name)) throw E.alreadyExists(groupResource(type), name);
    return admitted;
  }

  /** Stores a planned create, checking again what may have changed while admission webhooks ran. */
  commitCreate(type: ResourceType, planned: Obj): Obj {
    const m = planned.metadata;
    if (type.namespaced) this.admitNamespace(type, m.namespace ?? '', m.name ?? '');
    if (this.find(type, m.namespace ?? '', m.name ?? '')) throw E.alreadyExists(groupResource(type), m.name ?? '');
    this.store.put(storageKeyOf(type), planned);
    return planned;
  }

  /** PUT of the object or its /status. */
  update(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    subresource: 'status' | undefined,
    opts: WriteOpts = {},
  ): Obj {
    const { existing, incoming } = this.checkUpdate(type, version, namespace, name, body);
    return this.write(type, version, existing, incoming, subresource, opts);
  }

  /** The checks of a PUT against the stored object (name, namespace, resourceVersion precondition). */
  checkUpdate(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
  ): { existing: Obj; incoming: Obj } {
    const incoming = decodeBody(type, version, body);
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name) {
      throw E.badRequest(
        `the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    if (type.namespaced && incoming.metadata.namespace && incoming.metadata.namespace !== namespace) {
      throw E.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const existing = this.get(type, namespace, name);
    const rv = incoming.metadata.resourceVersion;
    if (!rv) {
      if (!type.allowUnconditionalUpdate) {
        throw E.invalid(type.kind, type.group, name, [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ]);
      }
    } else if (rv !== existing.metadata.resourceVersion) {
      throw E.conflict(groupResource(type), name, E.staleObjectMessage);
    }
    return { existing, incoming };
  }

  /**
   * The final step of a patch: `patched` is the stored object with the patch applied. A resourceVersion in
   * the result that differs from the stored one is a conflict; that is how clients lock patches optimistically.
   */
  writePatched(
    type: ResourceType,
    version: string,
    existing: Obj,
    patched: unknown,
    subresource: 'status' | undefined,
    opts: WriteOpts = {},
  ): Obj {
    return this.write(type, version, existing, this.checkPatched(type, existing, patched), subresource, opts);
  }

  /** The checks of a patch result against the stored object (an object with metadata, resourceVersion precondition). */
  checkPatched(type: ResourceType, existing: Obj, patched: unknown): Obj {
    const name = existing.metadata.name ?? '';
    if (!isObj(patched)) throw E.badRequest('the patch produced an object without metadata');
    const rv = patched.metadata.resourceVersion;
    if (rv !== undefined && rv !== null && rv !== '' && rv !== existing.metadata.resourceVersion) {
      throw E.conflict(groupResource(type), name, E.staleObjectMessage);
    }
    return patched;
  }

  private write(
    type: ResourceType,
    version: string,
    existing: Obj,
    incoming: Obj,
    subresource: 'status' | undefined,
    opts: WriteOpts,
  ): Obj {
    return this.commitWrite(type, existing, this.planWrite(type, version, existing, incoming, subresource, opts), opts);
  }

  /**
   * The object an update of `existing` to `incoming` would store: server-owned fields from the stored
   * object, the status rules, generation, finalizer rules, defaults and validation. Nothing is stored.
   */
  planWrite(
    type: ResourceType,
    version: string,
    existing: Obj,
    incoming: Obj,
    subresource: 'status' | undefined,
    opts: WriteOpts,
  ): Obj {
    const name = existing.metadata.name ?? '';
    const next = this.previewWrite(
      type,
      version,
      existing,
      this.decodeKnown(type, version, incoming, opts),
      subresource,
    );
    const added = (next.metadata.finalizers ?? []).filter((f) => !(existing.metadata.finalizers ?? []).includes(f));
    if (existing.metadata.deletionTimestamp && added.length > 0) {
      throw E.invalid(type.kind, type.group, name, [
        {
          reason: 'FieldValueForbidden',
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
          field: 'metadata.finalizers',
        },
      ]);
    }
    const now = rfc3339(this.now());
    const admitted = validateAndDefault(type, version, next, existing, now);
    this.recordFields(type, version, existing, admitted, opts, now);
    return admitted;
  }

  /** Records an Update in obj.metadata.managedFields (in place); an Apply's entries are already there. */
  private recordFields(
    type: ResourceType,
    version: string,
    before: Obj | undefined,
    obj: Obj,
    opts: WriteOpts,
    now: string,
  ): void {
    const req = opts.fieldManager;
    if (!req || req.operation === 'Apply') return;
    const managed = recordUpdate(req, before, obj, fieldContextFor(type, version, now));
    const meta = obj.metadata as Record<string, unknown>;
    if (managed === undefined) delete meta.managedFields;
    else meta.managedFields = managed;
  }

  /**
   * An incoming object as kube's decoder leaves it before admission webhooks see it: unknown fields (for a
   * custom resource, those its schema prunes too) and duplicate ones reported per fieldValidation, so that
   * Strict refuses them before any webhook is called, and the unknown ones taken out; with `defaults`, a
   * custom resource's schema defaults filled in (an apply configuration is decoded without them).
   */
  decodeKnown(type: ResourceType, version: string, incoming: Obj, opts: WriteOpts, defaults = true): Obj {
    const known = knownFields(type, version, incoming, opts, defaults);
    reportUnknownFields(type, version, known.unknown, opts);
    return known.object;
  }

  /** `incoming` with the stored object's server-owned fields, as an update would store it before validation. */
  previewWrite(
    type: ResourceType,
    version: string,
    existing: Obj,
    incoming: Obj,
    subresource: 'status' | undefined,
  ): Obj {
    const next = prepareUpdate(type, subresource, existing, toStoredForm(type, incoming));
    next.apiVersion = type.view ? type.view.storedApiVersion : apiVersionFor(type.group, version);
    next.kind = type.kind;
    return next;
  }

  /**
   * Stores a planned update of `existing`. When the stored object changed after `existing` was read
   * (another write landed while admission webhooks ran) nothing is stored and ChangedDuringAdmissionError
   * is thrown, so the caller can start over from the new object.
   */
  commitWrite(type: ResourceType, existing: Obj, next: Obj, opts: WriteOpts): Obj {
    if (sameObject(next, existing)) return existing;
    if (opts.dryRun) return next;
    const key = storageKeyOf(type);
    const current = this.store.get(key, existing.metadata.namespace ?? '', existing.metadata.name ?? '');
    if (
      current?.metadata.resourceVersion !== existing.metadata.resourceVersion ||
      current?.metadata.uid !== existing.metadata.uid
    ) {
      throw new ChangedDuringAdmissionError(groupResource(type), existing.metadata.name ?? '');
    }
    if (next.metadata.deletionTimestamp && !hasPendingFinalizers(type, next)) {
      this.store.remove(key, next);
      return next;
    }
    this.store.put(key, next);
    return next;
  }

  delete(type: ResourceType, namespace: string, name: string, opts: DeleteOpts = {}): DeleteResult {
    const existing = this.get(type, namespace, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== existing.metadata.uid) {
      throw E.conflict(
        groupResource(type),
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid ?? ''}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion) {
      throw E.conflict(
        groupResource(type),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${existing.metadata.resourceVersion ?? ''}`,
      );
    }
    const { object, removed, store } = planDelete(type, existing, opts, rfc3339(this.now()));
    if (store === 'put') this.store.put(storageKeyOf(type), object);
    if (store === 'remove') this.store.remove(storageKeyOf(type), object);
    return { object, removed };
  }

  /** Removes an object regardless of finalizers (a CRD's instances when the CRD goes). */
  forceRemove(type: ResourceType, obj: KubeObject): void {
    this.store.remove(storageKeyOf(type), cloneJson(obj));
  }

  /** NamespaceLifecycle: no new objects in a namespace that does not exist or is being deleted. */
  admitNamespace(type: ResourceType, namespace: string, name: string): void {
    const ns = this.store.get('/namespaces', '', namespace);
    if (!ns) throw E.notFound({ group: '', resource: 'namespaces' }, namespace);
    if (ns.metadata.deletionTimestamp) {
      throw E.forbidden(
        groupResource(type),
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  }

  private generateName(type: ResourceType, namespace: string, prefix: string): string {
    for (;;) {
      const name = generateName(prefix);
      if (!this.find(type, namespace, name)) return name;
    }
  }
}
