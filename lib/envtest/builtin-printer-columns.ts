// The columns kube-apiserver's own printers give the built-in kinds we serve, so `kubectl get nodes` or
// `kubectl get pods` look as they do against a real cluster. The Name column is added by toTable (except for
// Events, whose columns place it themselves).
import type { KubeObject } from '../apis/meta.js';
import type { PrinterColumn } from './printer-column.js';
import { CREATION_TIMESTAMP_DESCRIPTION, NAME_DESCRIPTION } from './printer-column.js';
import { ageSince } from './human-duration.js';

type Json = Record<string, unknown>;

function rec(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(rec) : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function orNone(s: string): string {
  return s === '' ? '<none>' : s;
}

function field(obj: KubeObject, key: string): Json {
  return rec((obj as unknown as Json)[key]);
}

// Built-in printers render Age as preformatted text (type string), unlike CRD columns (type date).
const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'string',
  jsonPath: '.metadata.creationTimestamp',
  description: CREATION_TIMESTAMP_DESCRIPTION,
  cell: (obj, now) => ageSince(obj.metadata.creationTimestamp, now),
};

function nodeStatus(obj: KubeObject): string {
  const ready = list(field(obj, 'status').conditions).find((c) => c.type === 'Ready');
  const status: string[] = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (field(obj, 'spec').unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

const roleLabelPrefix = 'node-role.kubernetes.io/';

function nodeRoles(obj: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(obj.metadata.labels ?? {})) {
    if (key.startsWith(roleLabelPrefix) && key.length > roleLabelPrefix.length) roles.add(key.slice(roleLabelPrefix.length));
    else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeAddress(obj: KubeObject, type: string): string {
  return orNone(str(list(field(obj, 'status').addresses).find((a) => a.type === type)?.address));
}

function nodeInfo(obj: KubeObject, key: string): string {
  const info = rec(field(obj, 'status').nodeInfo);
  return str(info[key]);
}

const nodeColumns: PrinterColumn[] = [
  { name: 'Status', type: 'string', jsonPath: '.status.conditions', description: 'The status of the node', cell: nodeStatus },
  { name: 'Roles', type: 'string', jsonPath: '.metadata.labels', description: 'The roles of the node', cell: nodeRoles },
  ageColumn,
  { name: 'Version', type: 'string', jsonPath: '.status.nodeInfo.kubeletVersion', description: 'Kubelet Version reported by the node.', cell: (o) => nodeInfo(o, 'kubeletVersion') },
  { name: 'Internal-IP', type: 'string', priority: 1, jsonPath: '.status.addresses', description: 'The node\'s InternalIP address.', cell: (o) => nodeAddress(o, 'InternalIP') },
  { name: 'External-IP', type: 'string', priority: 1, jsonPath: '.status.addresses', description: 'The node\'s ExternalIP address.', cell: (o) => nodeAddress(o, 'ExternalIP') },
  { name: 'OS-Image', type: 'string', priority: 1, jsonPath: '.status.nodeInfo.osImage', description: 'OS Image reported by the node.', cell: (o) => orNone(nodeInfo(o, 'osImage')) },
  { name: 'Kernel-Version', type: 'string', priority: 1, jsonPath: '.status.nodeInfo.kernelVersion', description: 'Kernel Version reported by the node.', cell: (o) => orNone(nodeInfo(o, 'kernelVersion')) },
  { name: 'Container-Runtime', type: 'string', priority: 1, jsonPath: '.status.nodeInfo.containerRuntimeVersion', description: 'ContainerRuntime Version reported by the node.', cell: (o) => orNone(nodeInfo(o, 'containerRuntimeVersion')) },
];

interface PodSummary {
  ready: string;
  reason: string;
  restarts: string;
}

function terminatedReason(t: Json, prefix: string): string {
  if (str(t.reason) !== '') return prefix + str(t.reason);
  return num(t.signal) !== 0 ? `${prefix}Signal:${num(t.signal)}` : `${prefix}ExitCode:${num(t.exitCode)}`;
}

/** The Ready / Status / Restarts summary of kubectl's pod printer. */
export function summarizePod(obj: KubeObject, now: number): PodSummary {
  const spec = field(obj, 'spec');
  const status = field(obj, 'status');
  let reason = str(status.reason) !== '' ? str(status.reason) : str(status.phase);
  let restarts = 0;
  let lastRestart = 0;
  const noteRestart = (cs: Json) => {
    restarts += num(cs.restartCount);
    const finished = Date.parse(str(rec(rec(cs.lastState).terminated).finishedAt));
    if (!Number.isNaN(finished) && finished > lastRestart) lastRestart = finished;
  };

  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  const initCount = list(spec.initContainers).length;
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i] ?? {};
    noteRestart(cs);
    const state = rec(cs.state);
    const terminated = state.terminated === undefined ? undefined : rec(state.terminated);
    const waiting = state.waiting === undefined ? undefined : rec(state.waiting);
    if (terminated !== undefined && num(terminated.exitCode) === 0) continue;
    initializing = true;
    if (terminated !== undefined) reason = terminatedReason(terminated, 'Init:');
    else if (waiting !== undefined && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') reason = `Init:${str(waiting.reason)}`;
    else reason = `Init:${i}/${initCount}`;
    break;
  }

  let readyCount = 0;
  if (!initializing) {
    restarts = 0;
    lastRestart = 0;
    let hasRunning = false;
    const statuses = list(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] ?? {};
      noteRestart(cs);
      const state = rec(cs.state);
      const waiting = rec(state.waiting);
      const terminated = state.terminated === undefined ? undefined : rec(state.terminated);
      if (str(waiting.reason) !== '') reason = str(waiting.reason);
      else if (terminated !== undefined) reason = terminatedReason(terminated, '');
      else if (cs.ready === true && state.running !== undefined) {
        hasRunning = true;
        readyCount++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = list(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }
  if (obj.metadata.deletionTimestamp !== undefined) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';

  const restartText = lastRestart > 0 ? `${restarts} (${ageSince(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  return { ready: `${readyCount}/${list(spec.containers).length}`, reason, restarts: restartText };
}

function readinessGates(obj: KubeObject): string {
  const gates = list(field(obj, 'spec').readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions = list(field(obj, 'status').conditions);
  const met = gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length;
  return `${met}/${gates.length}`;
}

const podColumns: PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.containerStatuses', description: 'The aggregate readiness state of this pod for accepting traffic.', cell: (o, now) => summarizePod(o, now).ready },
  { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The aggregate status of the containers in this pod.', cell: (o, now) => summarizePod(o, now).reason },
  { name: 'Restarts', type: 'string', jsonPath: '.status.containerStatuses', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.', cell: (o, now) => summarizePod(o, now).restarts },
  ageColumn,
  { name: 'IP', type: 'string', priority: 1, jsonPath: '.status.podIP', description: 'IP address allocated to the pod.', cell: (o) => orNone(str(field(o, 'status').podIP)) },
  { name: 'Node', type: 'string', priority: 1, jsonPath: '.spec.nodeName', description: 'Name of the node the pod is scheduled onto.', cell: (o) => orNone(str(field(o, 'spec').nodeName)) },
  { name: 'Nominated Node', type: 'string', priority: 1, jsonPath: '.status.nominatedNodeName', description: 'Name of the node the scheduler nominated for the pod.', cell: (o) => orNone(str(field(o, 'status').nominatedNodeName)) },
  { name: 'Readiness Gates', type: 'string', priority: 1, jsonPath: '.spec.readinessGates', description: 'Readiness gates met out of those the pod declares.', cell: readinessGates },
];

function countKeys(...maps: unknown[]): number {
  return maps.reduce<number>((n, m) => n + Object.keys(rec(m)).length, 0);
}

function intOrPercent(v: unknown): string {
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v !== '' ? v : 'N/A';
}

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
const eventColumns: PrinterColumn[] = [
  { name: 'Last Seen', type: 'string', jsonPath: '.lastTimestamp', description: 'The time at which the most recent occurrence of this event was recorded.', cell: (o, now) => summarizeEvent(o, now).lastSeen },
  { name: 'Type', type: 'string', jsonPath: '.type', description: 'Type of this event (Normal, Warning).', cell: (o) => str((o as unknown as Json).type) },
  { name: 'Reason', type: 'string', jsonPath: '.reason', description: 'Short, machine understandable reason for the transition into the object\'s current status.', cell: (o) => str((o as unknown as Json).reason) },
  { name: 'Object', type: 'string', jsonPath: '.involvedObject', description: 'The object that this event is about.', cell: eventObject },
  { name: 'Subobject', type: 'string', priority: 1, jsonPath: '.involvedObject.fieldPath', description: 'The part of the object this event is about.', cell: (o) => str(field(o, 'involvedObject').fieldPath) },
  { name: 'Source', type: 'string', priority: 1, jsonPath: '.source', description: 'The component reporting this event.', cell: eventSource },
  { name: 'Message', type: 'string', jsonPath: '.message', description: 'A human-readable description of the status of this operation.', cell: (o) => str((o as unknown as Json).message).trim() },
  { name: 'First Seen', type: 'string', priority: 1, jsonPath: '.firstTimestamp', description: 'The time at which the event was first recorded.', cell: (o, now) => summarizeEvent(o, now).firstSeen },
  { name: 'Count', type: 'string', priority: 1, jsonPath: '.count', description: 'The number of times this event has occurred.', cell: (o, now) => summarizeEvent(o, now).count },
  { name: 'Name', type: 'string', priority: 1, format: 'name', jsonPath: '.metadata.name', description: NAME_DESCRIPTION, cell: (o) => o.metadata.name ?? '' },
];

// kube prints the number of webhooks in a configuration.
const webhookColumns: PrinterColumn[] = [
  { name: 'Webhooks', type: 'integer', jsonPath: '.webhooks', description: 'Webhooks indicates the number of webhooks', cell: (o) => list((o as unknown as Json).webhooks).length },
  ageColumn,
];

const columnsByKind: Record<string, PrinterColumn[]> = {
  MutatingWebhookConfiguration: webhookColumns,
  ValidatingWebhookConfiguration: webhookColumns,
  Namespace: [
    { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The status of the namespace', cell: (o) => str(field(o, 'status').phase) },
    ageColumn,
  ],
  Node: nodeColumns,
  Event: eventColumns,
  Pod: podColumns,
  Secret: [
    { name: 'Type', type: 'string', jsonPath: '.type', description: 'The type of the secret', cell: (o) => str((o as unknown as Json).type) },
    { name: 'Data', type: 'string', jsonPath: '.data', description: 'The number of entries in the secret', cell: (o) => countKeys((o as unknown as Json).data) },
    ageColumn,
  ],
  ConfigMap: [
    { name: 'Data', type: 'string', jsonPath: '.data', description: 'The number of entries in the config map', cell: (o) => countKeys((o as unknown as Json).data, (o as unknown as Json).binaryData) },
    ageColumn,
  ],
  Lease: [
    { name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity', description: 'The holder of the lease', cell: (o) => str(field(o, 'spec').holderIdentity) },
    ageColumn,
  ],
  PodDisruptionBudget: [
    { name: 'Min Available', type: 'string', jsonPath: '.spec.minAvailable', description: 'The minimum number of pods that must be available', cell: (o) => intOrPercent(field(o, 'spec').minAvailable) },
    { name: 'Max Unavailable', type: 'string', jsonPath: '.spec.maxUnavailable', description: 'The maximum number of pods that may be unavailable', cell: (o) => intOrPercent(field(o, 'spec').maxUnavailable) },
    { name: 'Allowed Disruptions', type: 'integer', jsonPath: '.status.disruptionsAllowed', description: 'Calculated number of pods that may be disrupted at this time', cell: (o) => num(field(o, 'status').disruptionsAllowed) },
    ageColumn,
  ],
  // Kinds without a dedicated printer (CRDs themselves) get kube's default table: the creation time, in RFC 3339.
  CustomResourceDefinition: [
    {
      name: 'Created At',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      description: CREATION_TIMESTAMP_DESCRIPTION,
      cell: (o) => {
        const t = Date.parse(o.metadata.creationTimestamp ?? '');
        return Number.isNaN(t) ? null : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
      },
    },
  ],
};

/** The columns (after Name) kube prints for a built-in kind; any other kind gets Name and Age. */
export function defaultColumnsFor(kind: string): PrinterColumn[] {
  return [...(columnsByKind[kind] ?? [ageColumn])];
}
