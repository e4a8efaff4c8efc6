// The checks and defaults every create and update of an object goes through once its final form is known
// (after mutating webhooks): object metadata, a Secret's stringData, a custom resource's schema (defaults,
// validation, pruning), unknown fields per fieldValidation, Events, a new Namespace's finalizer, CRDs and
// webhook configurations. Invalid objects fail with one 422 listing every cause.
import { CRDGroup, CRDPlural, RbacGroup } from './builtin-types.js';
import { crdStatus, validateCrd, type CRDObject } from './crd.js';
import * as E from './errors.js';
import { validateEvent } from './event-validation.js';
import { isPlainObject } from './json.js';
import type { Obj, WriteOpts } from './object-api.js';
import { validateObjectMeta } from './object-meta.js';
import { storageKeyOf, versionInfo, type ResourceType } from './resource-type.js';
import { applySchema } from './schema/index.js';
import { foldSecretStringData } from './secret-string-data.js';
import { isObj } from './strategy.js';
import {
  AdmissionRegistrationGroup,
  defaultWebhookConfiguration,
  MutatingPlural,
  validateWebhookConfiguration,
  ValidatingPlural,
} from './webhooks/configuration.js';

/** Fields present in the input but pruned from the output (apiVersion, kind and metadata are never pruned). */
function prunedFields(input: unknown, output: unknown, path: string): string[] {
  const out: string[] = [];
  if (Array.isArray(input) && Array.isArray(output) && input.length === output.length) {
    input.forEach((v, i) => out.push(...prunedFields(v, output[i], `${path}[${i}]`)));
  } else if (isPlainObject(input) && isPlainObject(output)) {
    for (const k of Object.keys(input)) {
      if (path === '' && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
      const p = path === '' ? k : `${path}.${k}`;
      if (!(k in output)) out.push(p);
      else out.push(...prunedFields(input[k], output[k], p));
    }
  }
  return out;
}

/**
 * fieldValidation, as kube applies it while decoding: Strict fails with every duplicate and unknown field in
 * one message, Warn (the default) reports each as a warning, Ignore drops them silently.
 */
export function reportUnknownFields(
  type: ResourceType,
  version: string,
  unknown: readonly string[],
  opts: WriteOpts,
): void {
  const problems = [
    ...(opts.duplicateFields ?? []).map((f) => `duplicate field "${f}"`),
    ...unknown.map((f) => `unknown field "${f}"`),
  ];
  if (problems.length > 0 && opts.fieldValidation === 'Strict') {
    const strict = `strict decoding error: ${problems.join(', ')}`;
    throw E.badRequest(
      opts.patched ? strict : `${type.kind} in version "${version}" cannot be handled as a ${type.kind}: ${strict}`,
    );
  }
  if (opts.fieldValidation !== 'Ignore') opts.warnings?.push(...problems);
}

/** Validation and kind-specific defaulting common to create and update; returns the object to store. */
export function validateAndDefault(
  type: ResourceType,
  version: string,
  obj: Obj,
  old: Obj | undefined,
  now: string,
  opts: WriteOpts,
  unknownFields: readonly string[],
): Obj {
  const unknown = [...unknownFields];
  const causes: E.StatusCause[] = [];
  const isNamespace = type.group === '' && type.plural === 'namespaces';
  causes.push(
    ...validateObjectMeta(
      obj.metadata,
      isNamespace ? 'label' : type.group === RbacGroup ? 'path-segment' : 'subdomain',
    ),
  );
  let out = obj;
  if (type.group === '' && type.plural === 'secrets') {
    const folded = foldSecretStringData(out);
    out = folded.object;
    causes.push(...folded.causes);
  }
  if (type.custom) {
    const schema = versionInfo(type, version)?.schema;
    if (schema) {
      const result = applySchema(obj, schema, old);
      for (const c of result.causes) causes.push({ reason: c.type, message: c.message, field: c.field });
      if (isObj(result.object)) out = result.object;
      unknown.push(...prunedFields(obj, out, ''));
    }
  }
  reportUnknownFields(type, version, unknown, opts);
  if (storageKeyOf(type) === '/events') causes.push(...validateEvent(out, old, type.view !== undefined));
  if (isNamespace && !old) {
    const spec = (out.spec ?? {}) as { finalizers?: string[] };
    out.spec = { ...spec, finalizers: spec.finalizers ?? ['kubernetes'] };
  }
  if (type.group === CRDGroup && type.plural === CRDPlural) {
    const crd = out as CRDObject;
    causes.push(...validateCrd(crd));
    if (old && crd.spec?.group !== (old as CRDObject).spec?.group) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${crd.spec?.group ?? ''}": field is immutable`,
        field: 'spec.group',
      });
    }
    if (causes.length === 0)
      out.status = crdStatus(
        crd,
        (old?.status as { conditions?: Array<{ lastTransitionTime?: string }> } | undefined)?.conditions?.[0]
          ?.lastTransitionTime ?? now,
      );
  }
  if (
    type.group === AdmissionRegistrationGroup &&
    (type.plural === MutatingPlural || type.plural === ValidatingPlural)
  ) {
    const mutating = type.plural === MutatingPlural;
    defaultWebhookConfiguration(out, mutating);
    causes.push(...validateWebhookConfiguration(out, mutating));
  }
  if (causes.length > 0) throw E.invalid(type.kind, type.group, obj.metadata.name ?? '', causes);
  return out;
}
