// events.k8s.io/v1 Event as a view of the stored core/v1 Event, converted field by field as
// kube-apiserver converts both through its one internal Event: a write through either API is the
// same stored object, seen by both with the same resourceVersion.
import type { KubeObject } from '../../lib/apis/meta.js';
import { isPlainObject } from './json.js';
import type { FieldGetter, StorageView } from './resource-type.js';

type Json = Record<string, unknown>;

export const EventsGroup = 'events.k8s.io';
export const EventsApiVersion = `${EventsGroup}/v1`;

/** Fields named differently in the two APIs: [core/v1, events.k8s.io/v1]. */
const renamed: ReadonlyArray<readonly [string, string]> = [
  ['involvedObject', 'regarding'],
  ['source', 'deprecatedSource'],
  ['message', 'note'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];

/** Fields with the same name and meaning in both APIs. */
const shared = ['reason', 'type', 'eventTime', 'series', 'action', 'related', 'reportingInstance'] as const;

/**
 * Object references and sources are structs, not pointers, in kube's types: they are always serialised
 * (`{}` when empty), so a client of either API always finds them.
 */
const alwaysPresent = new Set(['involvedObject', 'source', 'regarding', 'deprecatedSource']);

function convert(obj: KubeObject, apiVersion: string, fromIndex: 0 | 1): KubeObject & Json {
  const src = obj as unknown as Json;
  const out: Json = { apiVersion, kind: 'Event', metadata: src.metadata };
  for (const pair of renamed) {
    const from = pair[fromIndex];
    const to = pair[1 - fromIndex] as string;
    const value = src[from];
    if (value !== undefined) out[to] = value;
    else if (alwaysPresent.has(to)) out[to] = {};
  }
  for (const k of shared) if (src[k] !== undefined) out[k] = src[k];
  return out as KubeObject & Json;
}

/** core/v1 Event → events.k8s.io/v1 Event. */
export function eventsV1FromCore(obj: KubeObject): KubeObject & Json {
  return convert(obj, EventsApiVersion, 0);
}

/** events.k8s.io/v1 Event → core/v1 Event. */
export function coreFromEventsV1(obj: KubeObject): KubeObject & Json {
  return convert(obj, 'v1', 1);
}

/** Top-level fields of an events.k8s.io/v1 Event that the API does not have (for fieldValidation). */
export function unknownEventsV1Fields(obj: Json): string[] {
  const known = new Set<string>(['apiVersion', 'kind', 'metadata', ...shared, ...renamed.map((p) => p[1])]);
  return Object.keys(obj).filter((k) => !known.has(k));
}

export const eventsV1View: StorageView = {
  storedTypeKey: '/events',
  storedApiVersion: 'v1',
  viewApiVersion: EventsApiVersion,
  toStored: coreFromEventsV1,
  fromStored: eventsV1FromCore,
};

function pathOf(...keys: string[]): FieldGetter {
  return (obj) => {
    let cur: unknown = obj;
    for (const k of keys) {
      if (!isPlainObject(cur)) return undefined;
      cur = cur[k];
    }
    if (cur === undefined || cur === null) return undefined;
    return typeof cur === 'string' ? cur : JSON.stringify(cur);
  };
}

/**
 * The field selectors of events.k8s.io/v1, read from the stored core Event: kube maps each label to the
 * core field (`regarding.kind` is `involvedObject.kind`, `reportingController` is `reportingComponent`,
 * `source` is the core source's component).
 */
export const eventsV1FieldSelectors: Record<string, FieldGetter> = {
  ...Object.fromEntries(
    ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((k) => [
      `regarding.${k}`,
      pathOf('involvedObject', k),
    ]),
  ),
  reason: pathOf('reason'),
  reportingController: pathOf('reportingComponent'),
  source: pathOf('source', 'component'),
  type: pathOf('type'),
};
