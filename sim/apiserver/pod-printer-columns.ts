// The columns kube-apiserver's pod printer gives, with kubectl's Ready / Status / Restarts summary of a pod's
// containers, so `kubectl get pods` looks as against a real cluster.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { PrinterColumn } from './printer-column.js';
import type { Json } from './builtin-column-cells.js';
import { ageColumn, field, list, num, orNone, rec, str } from './builtin-column-cells.js';
import { ageSince } from './human-duration.js';

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
    else if (waiting !== undefined && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing')
      reason = `Init:${str(waiting.reason)}`;
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

  const restartText =
    lastRestart > 0 ? `${restarts} (${ageSince(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts);
  return { ready: `${readyCount}/${list(spec.containers).length}`, reason, restarts: restartText };
}

function readinessGates(obj: KubeObject): string {
  const gates = list(field(obj, 'spec').readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions = list(field(obj, 'status').conditions);
  const met = gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length;
  return `${met}/${gates.length}`;
}

export const podColumns: PrinterColumn[] = [
  {
    name: 'Ready',
    type: 'string',
    jsonPath: '.status.containerStatuses',
    description: 'The aggregate readiness state of this pod for accepting traffic.',
    cell: (o, now) => summarizePod(o, now).ready,
  },
  {
    name: 'Status',
    type: 'string',
    jsonPath: '.status.phase',
    description: 'The aggregate status of the containers in this pod.',
    cell: (o, now) => summarizePod(o, now).reason,
  },
  {
    name: 'Restarts',
    type: 'string',
    jsonPath: '.status.containerStatuses',
    description:
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    cell: (o, now) => summarizePod(o, now).restarts,
  },
  ageColumn,
  {
    name: 'IP',
    type: 'string',
    priority: 1,
    jsonPath: '.status.podIP',
    description: 'IP address allocated to the pod.',
    cell: (o) => orNone(str(field(o, 'status').podIP)),
  },
  {
    name: 'Node',
    type: 'string',
    priority: 1,
    jsonPath: '.spec.nodeName',
    description: 'Name of the node the pod is scheduled onto.',
    cell: (o) => orNone(str(field(o, 'spec').nodeName)),
  },
  {
    name: 'Nominated Node',
    type: 'string',
    priority: 1,
    jsonPath: '.status.nominatedNodeName',
    description: 'Name of the node the scheduler nominated for the pod.',
    cell: (o) => orNone(str(field(o, 'status').nominatedNodeName)),
  },
  {
    name: 'Readiness Gates',
    type: 'string',
    priority: 1,
    jsonPath: '.spec.readinessGates',
    description: 'Readiness gates met out of those the pod declares.',
    cell: readinessGates,
  },
];
