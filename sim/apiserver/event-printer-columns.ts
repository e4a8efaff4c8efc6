// The columns kube-apiserver's event printer gives, with kubectl's reading of event times and sources, so
// `kubectl get events` looks as against a real cluster.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { PrinterColumn } from './printer-column.js';
import { NAME_DESCRIPTION } from './printer-column.js';
import type { Json } from './builtin-column-cells.js';
import { field, num, rec, str } from './builtin-column-cells.js';
import { ageSince } from './human-duration.js';

interface EventSummary {
  lastSeen: string;
  firstSeen: string;
  count: number;
}

/** kubectl's event times: series and eventTime (events.k8s.io style) stand in for the core timestamps when unset. */
function summarizeEvent(obj: KubeObject, now: number): EventSummary {
  const e = obj as unknown as Json;
  const first = str(e.firstTimestamp) !== '' ? ageSince(e.firstTimestamp, now) : ageSince(e.eventTime, now);
  let last = str(e.lastTimestamp) !== '' ? ageSince(e.lastTimestamp, now) : first;
  let count = num(e.count);
  const series = e.series === undefined || e.series === null ? undefined : rec(e.series);
  if (series !== undefined) {
    last = ageSince(series.lastObservedTime, now);
    count = num(series.count);
  } else if (count === 0) {
    count = 1;
  }
  return { lastSeen: last, firstSeen: first, count };
}

function eventObject(obj: KubeObject): string {
  const involved = field(obj, 'involvedObject');
  const kind = str(involved.kind).toLowerCase();
  return str(involved.name) !== '' ? `${kind}/${str(involved.name)}` : kind;
}

function eventSource(obj: KubeObject): string {
  const e = obj as unknown as Json;
  const source = rec(e.source);
  const component = str(source.component) !== '' ? str(source.component) : str(e.reportingComponent);
  const instance = str(source.host) !== '' ? str(source.host) : str(e.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
}

// Events are the one kind whose Name column is not first: kubectl shows it only with -o wide, last.
export const eventColumns: PrinterColumn[] = [
  {
    name: 'Last Seen',
    type: 'string',
    jsonPath: '.lastTimestamp',
    description: 'The time at which the most recent occurrence of this event was recorded.',
    cell: (o, now) => summarizeEvent(o, now).lastSeen,
  },
  {
    name: 'Type',
    type: 'string',
    jsonPath: '.type',
    description: 'Type of this event (Normal, Warning).',
    cell: (o) => str((o as unknown as Json).type),
  },
  {
    name: 'Reason',
    type: 'string',
    jsonPath: '.reason',
    description: "Short, machine understandable reason for the transition into the object's current status.",
    cell: (o) => str((o as unknown as Json).reason),
  },
  {
    name: 'Object',
    type: 'string',
    jsonPath: '.involvedObject',
    description: 'The object that this event is about.',
    cell: eventObject,
  },
  {
    name: 'Subobject',
    type: 'string',
    priority: 1,
    jsonPath: '.involvedObject.fieldPath',
    description: 'The part of the object this event is about.',
    cell: (o) => str(field(o, 'involvedObject').fieldPath),
  },
  {
    name: 'Source',
    type: 'string',
    priority: 1,
    jsonPath: '.source',
    description: 'The component reporting this event.',
    cell: eventSource,
  },
  {
    name: 'Message',
    type: 'string',
    jsonPath: '.message',
    description: 'A human-readable description of the status of this operation.',
    cell: (o) => str((o as unknown as Json).message).trim(),
  },
  {
    name: 'First Seen',
    type: 'string',
    priority: 1,
    jsonPath: '.firstTimestamp',
    description: 'The time at which the event was first recorded.',
    cell: (o, now) => summarizeEvent(o, now).firstSeen,
  },
  {
    name: 'Count',
    type: 'string',
    priority: 1,
    jsonPath: '.count',
    description: 'The number of times this event has occurred.',
    cell: (o, now) => summarizeEvent(o, now).count,
  },
  {
    name: 'Name',
    type: 'string',
    priority: 1,
    format: 'name',
    jsonPath: '.metadata.name',
    description: NAME_DESCRIPTION,
    cell: (o) => o.metadata.name ?? '',
  },
];
