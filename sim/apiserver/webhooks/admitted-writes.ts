// The write path of API requests with dynamic admission in it, in kube-apiserver's order: the request
// decoded (unknown and duplicate fields reported per fieldValidation, so Strict refuses them before any
// webhook is called, and webhooks never see them), mutating webhooks on the incoming object, then the
// server's own defaulting and validation (ObjectApi), then validating webhooks on the object about to be
// stored, then the store. Webhooks are awaited, so the stored object may change meanwhile; the commit
// notices (the resourceVersion moved) and the whole write starts over from the new object, as
// kube-apiserver retries its guaranteed update. A PUT or patch that carried a resourceVersion then fails
// its precondition with 409, as it should.
// Without any webhook configuration, writes go straight to ObjectApi, unchanged.
import { present } from '../encoding.js';
import * as E from '../errors.js';
import {
  ChangedDuringAdmissionError,
  type DeleteOpts,
  type DeleteResult,
  type Obj,
  type ObjectApi,
  type WriteOpts,
} from '../object-api.js';
import type { ResourceType } from '../resource-type.js';
import { isObj } from '../strategy.js';
import { operationOptions, type AdmissionAttributes, type GroupVersionKind } from './attributes.js';
import type { WebhookDispatcher } from './dispatcher.js';

/** How many times a write is re-admitted when other writes keep landing while its webhooks run. */
const maxAttempts = 5;

/** A subresource whose admission object is not the stored object (the scale subresource's Scale). */
export interface AdmissionView {
  kind: GroupVersionKind;
  toView(obj: Obj): Record<string, unknown>;
  /** The stored object `base` with what the (possibly mutated) view says; throws a StatusError for a bad view. */
  fromView(view: Record<string, unknown>, base: Obj): Obj;
}

export interface UpdateRequest {
  type: ResourceType;
  version: string;
  namespace: string;
  name: string;
  subresource?: 'status' | 'scale';
  opts: WriteOpts;
  /** Reads the stored object and builds the incoming one; called again on every attempt. */
  read(): { existing: Obj; incoming: Obj };
  view?: AdmissionView;
}

function requestNamespace(type: ResourceType, obj: Obj): string {
  if (type.group === '' && type.plural === 'namespaces') return obj.metadata.name ?? '';
  return type.namespaced ? (obj.metadata.namespace ?? '') : '';
}

function kindOf(type: ResourceType, version: string): GroupVersionKind {
  return { group: type.group, version, kind: type.kind };
}

/**
 * The options to plan the write with once the webhooks have run: the request's unknown and duplicate fields
 * were reported while decoding it, and what a webhook adds that the type lacks kube drops without a word.
 */
function afterAdmission(opts: WriteOpts): WriteOpts {
  const { duplicateFields: _reported, ...rest } = opts;
  return { ...rest, fieldValidation: 'Ignore' };
}

function asObject(v: Record<string, unknown> | undefined, what: string): Obj {
  if (!isObj(v)) throw E.internalError(`mutating admission left the ${what} without metadata`);
  return v;
}

export class AdmittedWrites {
  constructor(
    readonly api: ObjectApi,
    private readonly webhooks: WebhookDispatcher,
  ) {}

  /**
   * Admission of a request that stores nothing of its own (a pods/eviction CREATE): mutating then
   * validating webhooks; resolves with the object the mutating webhooks left.
   */
  async review(attrs: AdmissionAttributes, warnings: string[]): Promise<Record<string, unknown> | undefined> {
    if (!this.webhooks.active()) return attrs.object;
    const object = await this.webhooks.mutate(attrs, warnings);
    await this.webhooks.validate({ ...attrs, object }, warnings);
    return object;
  }

  async create(
    type: ResourceType,
    version: string,
    namespace: string,
    body: unknown,
    opts: WriteOpts,
    fieldManager?: string,
  ): Promise<Obj> {
    if (!this.webhooks.active()) return this.api.create(type, version, namespace, body, opts);
    const warnings = opts.warnings ?? [];
    const decoded = this.api.decodeKnown(type, version, this.api.decodeNew(type, version, namespace, body), opts);
    const m = decoded.metadata;
    if (type.namespaced) this.api.admitNamespace(type, m.namespace ?? '', m.name ?? m.generateName ?? '');
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      type,
      version,
      kind: kindOf(type, version),
      subresource: '',
      namespace: requestNamespace(type, decoded),
      name: m.name ?? '',
      object: present(type, version, decoded) as Obj,
      dryRun: opts.dryRun ?? false,
      options: operationOptions('CreateOptions', opts.dryRun ?? false, fieldManager ? { fieldManager } : {}),
    };
    const mutated = asObject(await this.webhooks.mutate(attrs, warnings), 'object');
    const planned = this.api.planCreate(
      type,
      version,
      this.api.decodeNew(type, version, namespace, mutated),
      afterAdmission(opts),
    );
    await this.webhooks.validate(
      { ...attrs, name: planned.metadata.name ?? '', object: present(type, version, planned) as Obj },
      warnings,
    );
    return opts.dryRun ? planned : this.api.commitCreate(type, planned);
  }

  async update(req: UpdateRequest): Promise<Obj> {
    const { type, version, opts } = req;
    const sub = req.subresource === 'status' ? 'status' : undefined;
    const warnings = opts.warnings ?? [];
    const warningsBefore = warnings.length;
    for (let attempt = 1; ; attempt++) {
      warnings.length = warningsBefore;
      const { existing, incoming } = req.read();
      if (!this.webhooks.active())
        return this.api.commitWrite(
          type,
          existing,
          this.api.planWrite(type, version, existing, incoming, sub, opts),
          opts,
        );
      const view = req.view;
      const preview = this.api.previewWrite(
        type,
        version,
        existing,
        this.api.decodeKnown(type, version, incoming, opts),
        sub,
      );
      const attrs: AdmissionAttributes = {
        operation: 'UPDATE',
        type,
        version,
        kind: view?.kind ?? kindOf(type, version),
        subresource: req.subresource ?? '',
        namespace: requestNamespace(type, existing),
        name: req.name,
        object: view ? view.toView(preview) : (present(type, version, preview) as Obj),
        oldObject: view ? view.toView(existing) : (present(type, version, existing) as Obj),
        dryRun: opts.dryRun ?? false,
        options: operationOptions('UpdateOptions', opts.dryRun ?? false),
      };
      const mutatedView = asObject(await this.webhooks.mutate(attrs, warnings), 'object');
      const mutated = view ? view.fromView(mutatedView, preview) : mutatedView;
      const planned = this.api.planWrite(type, version, existing, mutated, sub, afterAdmission(opts));
      await this.webhooks.validate(
        { ...attrs, object: view ? view.toView(planned) : (present(type, version, planned) as Obj) },
        warnings,
      );
      try {
        return this.api.commitWrite(type, existing, planned, opts);
      } catch (err) {
        if (!(err instanceof ChangedDuringAdmissionError) || attempt >= maxAttempts) throw err;
      }
    }
  }

  async delete(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    opts: DeleteOpts,
  ): Promise<DeleteResult> {
    const warnings = opts.warnings ?? [];
    for (let attempt = 1; ; attempt++) {
      if (!this.webhooks.active()) return this.api.delete(type, namespace, name, opts);
      const existing = this.api.get(type, namespace, name);
      const attrs: AdmissionAttributes = {
        operation: 'DELETE',
        type,
        version,
        kind: kindOf(type, version),
        subresource: '',
        namespace: requestNamespace(type, existing),
        name,
        oldObject: present(type, version, existing) as Obj,
        dryRun: opts.dryRun ?? false,
        options: operationOptions('DeleteOptions', opts.dryRun ?? false, {
          ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
          ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
        }),
      };
      await this.webhooks.mutate(attrs, warnings);
      await this.webhooks.validate(attrs, warnings);
      const current = this.api.find(type, namespace, name);
      const moved =
        current !== undefined &&
        (current.metadata.resourceVersion !== existing.metadata.resourceVersion ||
          current.metadata.uid !== existing.metadata.uid);
      if (!moved) return this.api.delete(type, namespace, name, opts);
      if (attempt >= maxAttempts)
        throw new ChangedDuringAdmissionError({ group: type.group, resource: type.plural }, name);
    }
  }
}
