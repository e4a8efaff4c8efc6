// The checks and defaults every create and update of an object goes through once its final form is known
// (after mutating webhooks): object metadata, a Secret's stringData, a custom resource's schema (defaults,
// validation, pruning), Events, a new Namespace's finalizer, CRDs and webhook configurations. Invalid objects
// fail with one 422 listing every cause. Unknown fields are reported earlier, while the request is decoded
// (body-decoding.ts); what pruning drops here (fields a webhook added) goes silently, as in kube.
import { CRDGroup, CRDPlural, RbacGroup } from './builtin-types.js';
import { crdStatus, validateCrd, type CRDObject } from './crd.js';
import * as E from './errors.js';
import { validateEvent } from './event-validation.js';
import type { Obj } from './object-api.js';
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

/** Validation and kind-specific defaulting common to create and update; returns the object to store. */
export function validateAndDefault(
  type: ResourceType,
  version: string,
  obj: Obj,
  old: Obj | undefined,
  now: string,
): Obj {
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
    }
  }
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
