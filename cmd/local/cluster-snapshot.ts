// What the live view and the change log show, read from the API server in three list calls: plain rows,
// so rendering stays a pure function of them.
import { Events, Machines, MachineSets, type Condition, type CoreEvent, type KubeClient } from '../../lib/index.js';
import { UpToDateCondition } from '../../lib/apis/constants.js';

export interface MachineSetRow {
  namespace: string;
  name: string;
  desired: number;
  current: number;
  ready: number;
  /** The UpToDate condition: "yes" when True, else its reason (RollingUpdate, RolloutStalled, ...); unset before the first one. */
  upToDate?: string;
}

export interface MachineRow {
  namespace: string;
  name: string;
  phase: string;
  node: string;
  providerID: string;
  createdMs: number;
  deleting: boolean;
}

export interface EventRow {
  timeMs: number;
  type: string;
  /** e.g. "Machine/worker-us-east-1a-x7k2p" */
  object: string;
  reason: string;
  message: string;
  count: number;
}

export interface ClusterSnapshot {
  machineSets: MachineSetRow[];
  machines: MachineRow[];
  /** Newest first. */
  events: EventRow[];
}

const byName = <T extends { namespace: string; name: string }>(a: T, b: T) =>
  a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);

function timeOf(s: string | undefined): number {
  const ms = s ? Date.parse(s) : NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

export function eventRow(e: CoreEvent & { eventTime?: string }): EventRow {
  return {
    timeMs:
      timeOf(e.lastTimestamp) ||
      timeOf(e.eventTime) ||
      timeOf(e.firstTimestamp) ||
      timeOf(e.metadata.creationTimestamp),
    type: e.type ?? 'Normal',
    object: `${e.involvedObject.kind ?? ''}/${e.involvedObject.name ?? ''}`,
    reason: e.reason ?? '',
    message: e.message ?? '',
    count: e.count ?? 1,
  };
}

function upToDateOf(conditions: Condition[] | undefined): Pick<MachineSetRow, 'upToDate'> {
  const c = conditions?.find((x) => x.type === UpToDateCondition);
  if (!c) return {};
  return { upToDate: c.status === 'True' ? 'yes' : (c.reason ?? c.status) };
}

export async function readClusterSnapshot(
  client: KubeClient,
  opts: { maxEvents?: number; signal?: AbortSignal } = {},
): Promise<ClusterSnapshot> {
  const [sets, machines, events] = await Promise.all([
    client.list(MachineSets, { signal: opts.signal }),
    client.list(Machines, { signal: opts.signal }),
    client.list(Events, { signal: opts.signal }),
  ]);
  return {
    machineSets: sets.items
      .map((s) => ({
        namespace: s.metadata.namespace ?? '',
        name: s.metadata.name ?? '',
        desired: s.spec?.replicas ?? 1,
        current: s.status?.replicas ?? 0,
        ready: s.status?.readyReplicas ?? 0,
        ...upToDateOf(s.status?.conditions),
      }))
      .sort(byName),
    machines: machines.items
      .map((m) => ({
        namespace: m.metadata.namespace ?? '',
        name: m.metadata.name ?? '',
        phase: m.status?.phase ?? '',
        node: m.status?.nodeRef?.name ?? '',
        providerID: m.spec?.providerID ?? '',
        createdMs: timeOf(m.metadata.creationTimestamp),
        deleting: m.metadata.deletionTimestamp !== undefined,
      }))
      .sort(byName),
    events: events.items
      .map(eventRow)
      .sort((a, b) => b.timeMs - a.timeMs)
      .slice(0, opts.maxEvents ?? 20),
  };
}
