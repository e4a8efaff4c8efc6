// kube-apiserver's validation of Events, on the stored (core) form whichever API the request used: every
// Event passes the legacy rules (an Event with eventTime names its reporting controller, instance, action
// and reason); one created or updated through events.k8s.io/v1 also passes the strict rules of that API
// (eventTime required, type Normal or Warning, the deprecated core fields unset, and on update the
// descriptive fields immutable). Field paths are the core names, as kube reports them.
import { labelKeyErrors } from '../../lib/apis/label-validation.js';
import type { StatusCause } from './errors.js';
import { deepEqual, isPlainObject } from './json.js';

type Json = Record<string, unknown>;

const reportingInstanceLimit = 128;
const actionLimit = 128;
const reasonLimit = 128;
const noteLimit = 1024;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const set = (v: unknown): boolean => v !== undefined && v !== null && v !== '';
const required = (field: string): StatusCause => ({ reason: 'FieldValueRequired', message: 'Required value', field });
const invalid = (field: string, value: string, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
  field,
});

function legacy(ev: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  const namespace = str((ev.metadata as Json | undefined)?.namespace);
  const involved = isPlainObject(ev.involvedObject) ? ev.involvedObject : {};
  const involvedNs = str(involved.namespace);
  if (!set(ev.eventTime)) {
    if (involvedNs === '' ? namespace !== '' && namespace !== 'default' : namespace !== involvedNs) {
      causes.push(invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
    return causes;
  }
  if (involvedNs === '' && namespace !== 'default' && namespace !== 'kube-system') {
    causes.push(invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  }
  const controller = str(ev.reportingComponent);
  if (controller === '') causes.push(required('reportingController'));
  for (const msg of labelKeyErrors(controller)) causes.push(invalid('reportingController', controller, msg));
  const limit = (field: string, value: string, max: number) => {
    if (value === '') causes.push(required(field));
    else if (value.length > max) causes.push(invalid(field, '', `can have at most ${max} characters`));
  };
  limit('reportingInstance', str(ev.reportingInstance), reportingInstanceLimit);
  limit('action', str(ev.action), actionLimit);
  limit('reason', str(ev.reason), reasonLimit);
  if (str(ev.message).length > noteLimit)
    causes.push(invalid('message', '', `can have at most ${noteLimit} characters`));
  return causes;
}

function series(ev: Json): StatusCause[] {
  if (!isPlainObject(ev.series)) return [];
  const causes: StatusCause[] = [];
  if (typeof ev.series.count !== 'number' || ev.series.count < 2)
    causes.push(invalid('series.count', '', 'should be at least 2'));
  if (!set(ev.series.lastObservedTime)) causes.push(required('series.lastObservedTime'));
  return causes;
}

/** Timestamps compare as instants (a client may re-serialise "…:00Z" as "…:00.000Z"); the rest as JSON. */
const timeFields = new Set(['firstTimestamp', 'lastTimestamp', 'eventTime']);
function sameValue(key: string, a: unknown, b: unknown): boolean {
  if (timeFields.has(key) && typeof a === 'string' && typeof b === 'string') return Date.parse(a) === Date.parse(b);
  return deepEqual(a ?? null, b ?? null);
}

/** The causes kube gives for an Event about to be stored; `viaEventsApi` when the request used events.k8s.io/v1. */
export function validateEvent(ev: Json, old: Json | undefined, viaEventsApi: boolean): StatusCause[] {
  const causes = legacy(ev);
  if (!viaEventsApi) return causes;
  if (!old) {
    causes.push(...series(ev));
    if (!set(ev.eventTime)) causes.push(required('eventTime'));
    if (ev.type !== 'Normal' && ev.type !== 'Warning')
      causes.push(invalid('type', '', `has invalid value: ${str(ev.type)}`));
    if (set(ev.firstTimestamp)) causes.push(invalid('firstTimestamp', '', 'needs to be unset'));
    if (set(ev.lastTimestamp)) causes.push(invalid('lastTimestamp', '', 'needs to be unset'));
    if (set(ev.count) && ev.count !== 0) causes.push(invalid('count', '', 'needs to be unset'));
    const source = isPlainObject(ev.source) ? ev.source : {};
    if (set(source.component) || set(source.host)) causes.push(invalid('source', '', 'needs to be unset'));
    return causes;
  }
  if (!deepEqual(ev.series, old.series)) causes.push(...series(ev));
  const immutable: Array<[string, string]> = [
    ['involvedObject', 'involvedObject'],
    ['reason', 'reason'],
    ['message', 'message'],
    ['source', 'source'],
    ['firstTimestamp', 'firstTimestamp'],
    ['lastTimestamp', 'lastTimestamp'],
    ['count', 'count'],
    ['type', 'type'],
    ['eventTime', 'eventTime'],
    ['action', 'action'],
    ['related', 'related'],
    ['reportingComponent', 'reportingController'],
    ['reportingInstance', 'reportingInstance'],
  ];
  for (const [key, field] of immutable) {
    if (!sameValue(key, ev[key], old[key]))
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(ev[key] ?? null)}: field is immutable`,
        field,
      });
  }
  return causes;
}
