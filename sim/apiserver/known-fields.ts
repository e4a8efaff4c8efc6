// The fields each built-in kind has, as far as the server checks them, for fieldValidation: kube decodes
// a built-in object into its Go type, so a field the type lacks is unknown (Strict rejects it, Warn
// reports it, Ignore drops it) and never stored. Custom resources get the same check of their metadata
// here; their other fields are checked against the CRD's schema. Parts of a kind not modelled here
// (a Pod's spec, a Node's status) are taken as they come.
import { isPlainObject } from './json.js';
import { setKey } from './json-value.js';
import type { ResourceType } from './resource-type.js';

/** `any`: not checked below here; `{ fields }`: an object with these fields (`'*'`: any other field, with that shape); `{ item }`: a list. */
export type FieldShape =
  'any' | { readonly fields: Readonly<Record<string, FieldShape>> } | { readonly item: FieldShape };

const obj = (fields: Record<string, FieldShape>): FieldShape => ({ fields });
const listOf = (item: FieldShape): FieldShape => ({ item });

const ownerReference = obj({
  apiVersion: 'any',
  kind: 'any',
  name: 'any',
  uid: 'any',
  controller: 'any',
  blockOwnerDeletion: 'any',
});
const managedFieldsEntry = obj({
  manager: 'any',
  operation: 'any',
  apiVersion: 'any',
  time: 'any',
  fieldsType: 'any',
  fieldsV1: 'any',
  subresource: 'any',
});

/** ObjectMeta as kube's Go type has it. */
export const objectMetaShape = obj({
  name: 'any',
  generateName: 'any',
  namespace: 'any',
  selfLink: 'any',
  uid: 'any',
  resourceVersion: 'any',
  generation: 'any',
  creationTimestamp: 'any',
  deletionTimestamp: 'any',
  deletionGracePeriodSeconds: 'any',
  labels: 'any',
  annotations: 'any',
  ownerReferences: listOf(ownerReference),
  finalizers: 'any',
  managedFields: listOf(managedFieldsEntry),
});

const typeMeta = { apiVersion: 'any', kind: 'any', metadata: objectMetaShape } as const;

const objectReference = obj({
  kind: 'any',
  namespace: 'any',
  name: 'any',
  uid: 'any',
  apiVersion: 'any',
  resourceVersion: 'any',
  fieldPath: 'any',
});
const eventSource = obj({ component: 'any', host: 'any' });
const eventSeries = obj({ count: 'any', lastObservedTime: 'any' });

/** Top-level (and where cheap, nested) fields per built-in kind, by "group/plural". */
const builtinShapes: Record<string, FieldShape> = {
  '/namespaces': obj({
    ...typeMeta,
    spec: obj({ finalizers: 'any' }),
    status: obj({ phase: 'any', conditions: 'any' }),
  }),
  '/nodes': obj({ ...typeMeta, spec: 'any', status: 'any' }),
  '/pods': obj({ ...typeMeta, spec: 'any', status: 'any' }),
  '/secrets': obj({ ...typeMeta, data: 'any', stringData: 'any', type: 'any', immutable: 'any' }),
  '/configmaps': obj({ ...typeMeta, data: 'any', binaryData: 'any', immutable: 'any' }),
  '/events': obj({
    ...typeMeta,
    involvedObject: objectReference,
    reason: 'any',
    message: 'any',
    source: eventSource,
    firstTimestamp: 'any',
    lastTimestamp: 'any',
    count: 'any',
    type: 'any',
    eventTime: 'any',
    series: eventSeries,
    action: 'any',
    related: objectReference,
    reportingComponent: 'any',
    reportingInstance: 'any',
  }),
  'events.k8s.io/events': obj({
    ...typeMeta,
    eventTime: 'any',
    series: eventSeries,
    reportingController: 'any',
    reportingInstance: 'any',
    action: 'any',
    reason: 'any',
    regarding: objectReference,
    related: objectReference,
    note: 'any',
    type: 'any',
    deprecatedSource: eventSource,
    deprecatedFirstTimestamp: 'any',
    deprecatedLastTimestamp: 'any',
    deprecatedCount: 'any',
  }),
  'coordination.k8s.io/leases': obj({
    ...typeMeta,
    spec: obj({
      holderIdentity: 'any',
      leaseDurationSeconds: 'any',
      acquireTime: 'any',
      renewTime: 'any',
      leaseTransitions: 'any',
      strategy: 'any',
      preferredHolder: 'any',
    }),
  }),
  'policy/poddisruptionbudgets': obj({
    ...typeMeta,
    spec: obj({ minAvailable: 'any', maxUnavailable: 'any', selector: 'any', unhealthyPodEvictionPolicy: 'any' }),
    status: 'any',
  }),
  'apps/daemonsets': obj({ ...typeMeta, spec: 'any', status: 'any' }),
  'storage.k8s.io/volumeattachments': obj({
    ...typeMeta,
    spec: obj({ attacher: 'any', nodeName: 'any', source: 'any' }),
    status: 'any',
  }),
  '/persistentvolumeclaims': obj({ ...typeMeta, spec: 'any', status: 'any' }),
  '/persistentvolumes': obj({ ...typeMeta, spec: 'any', status: 'any' }),
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': obj({ ...typeMeta, webhooks: 'any' }),
  'admissionregistration.k8s.io/validatingwebhookconfigurations': obj({ ...typeMeta, webhooks: 'any' }),
  'apiextensions.k8s.io/customresourcedefinitions': obj({ ...typeMeta, spec: 'any', status: 'any' }),
};

/** A custom resource: metadata checked here, everything else by its schema. */
const customShape = obj({ ...typeMeta, '*': 'any' });

/** The shape the server checks a type's objects against; undefined when it checks nothing (review kinds). */
export function shapeOf(type: ResourceType): FieldShape | undefined {
  if (type.custom) return customShape;
  return builtinShapes[`${type.group}/${type.plural}`];
}

/**
 * `value` without the fields its shape does not have, and the paths of those fields in kube's notation
 * (`metadata.foo`, `metadata.ownerReferences[0].bar`). The input is not modified; the result shares
 * whatever had nothing removed.
 */
export function withoutUnknownFields(
  value: unknown,
  shape: FieldShape,
  path = '',
): { value: unknown; unknown: string[] } {
  if (shape === 'any') return { value, unknown: [] };
  if ('item' in shape) {
    if (!Array.isArray(value)) return { value, unknown: [] };
    const unknown: string[] = [];
    const items = value.map((v, i) => {
      const r = withoutUnknownFields(v, shape.item, `${path}[${i}]`);
      unknown.push(...r.unknown);
      return r.value;
    });
    return { value: unknown.length > 0 ? items : value, unknown };
  }
  if (!isPlainObject(value)) return { value, unknown: [] };
  const unknown: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = path === '' ? k : `${path}.${k}`;
    const sub = Object.hasOwn(shape.fields, k) ? shape.fields[k] : shape.fields['*'];
    if (sub === undefined) {
      unknown.push(p);
      continue;
    }
    const r = withoutUnknownFields(v, sub, p);
    unknown.push(...r.unknown);
    setKey(out, k, r.value);
  }
  return { value: unknown.length > 0 ? out : value, unknown };
}
