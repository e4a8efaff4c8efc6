// How many of a MachineHealthCheck's remediations are in flight, and so how many more it may start, under the
// machine.openshift.io/max-in-flight annotation (an integer, or a percentage of the MHC's targets rounded down,
// at least 1 for a percentage that is not 0%). Pure: everything it needs is passed in.
//
// A remediation is in flight from the moment the MHC acts on a Machine until a replacement Machine has a Ready
// Node. Nothing is remembered between passes (a restart, or a new leader, must count the same), so the count is
// read off the cluster, per owner (the MachineSet that will replace the Machine):
//   deleting  = its Machines being deleted that carry this MHC's machine.openshift.io/remediated-by mark;
//   replacing = its Machines not being deleted whose Node is not Ready yet, still inside their startup window
//               (created less than the MHC's nodeStartupTimeout ago, 10 minutes when the check is off), and not
//               themselves due for remediation; plus the replicas it has not created yet (spec.replicas minus its
//               Machines not being deleted).
//   in flight = max(deleting, replacing).
// Why max and not a sum: a MachineSet replaces a Machine as soon as its deletion starts, so one remediation shows
// first as a deleting Machine and a missing replica, then as a deleting Machine and a booting one, then as a
// booting one alone; max counts it once in each of those states. Every remediation not yet replaced is in
// `replacing` (its replacement is missing or booting) unless the MachineSet was scaled down meanwhile, and then
// `deleting` still holds it until the Machine is gone; so the count never falls below the true number. It can
// exceed it: a Machine that boots because of a scale-up, or a NotReady Node still within its unhealthy-condition
// timeout, holds a slot too. That errs on the side the setting exists for (capacity is already short), and
// every such slot frees itself within the startup or condition timeout, so remediation is delayed, never stopped.
// In-place remediations count while they last: a Machine marked for external bare-metal remediation, or one with
// a request from the MHC's remediation template.
import { scaledValueFromIntOrPercent, IntOrPercentError, parseIntOrPercent } from '../apis/int-or-percent.js';
import type { Machine, MachineSet } from '../apis/machine-types.js';
import { getControllerOf } from '../apis/objects.js';
import { ExternalRemediationAnnotation, MaxInFlightAnnotation, RemediatedByAnnotation } from '../apis/constants.js';
import type { Node } from '../apis/core.js';
import { DEFAULT_NODE_STARTUP_TIMEOUT_MS } from './health.js';

export class InvalidMaxInFlightError extends Error {
  override readonly name = 'InvalidMaxInFlightError';
}

/**
 * The limit an MHC's max-in-flight annotation sets for `targets` machines; undefined without the annotation.
 * Throws InvalidMaxInFlightError naming the annotation for a value that is not a non-negative integer or percentage.
 */
export function maxInFlightOf(
  annotations: Readonly<Record<string, string>> | undefined,
  targets: number,
): number | undefined {
  const raw = annotations?.[MaxInFlightAnnotation];
  if (raw === undefined) return undefined;
  const v = raw.trim();
  let parsed;
  try {
    parsed = parseIntOrPercent(v);
  } catch (err) {
    if (!(err instanceof IntOrPercentError)) throw err;
    throw new InvalidMaxInFlightError(
      `metadata.annotations.${MaxInFlightAnnotation}: Invalid value: ${JSON.stringify(raw)}: must be an integer or a percentage such as "2" or "20%"`,
    );
  }
  if (parsed.value < 0 || (parsed.isPercent && parsed.value > 100))
    throw new InvalidMaxInFlightError(
      `metadata.annotations.${MaxInFlightAnnotation}: Invalid value: ${JSON.stringify(raw)}: must be between 0 and ${parsed.isPercent ? '100%' : 'the number of Machines'}`,
    );
  const n = scaledValueFromIntOrPercent(v, targets);
  // "10%" of 5 Machines is 0.5: one at a time, not none (0 or 0% is how to stop remediation).
  return parsed.isPercent && parsed.value > 0 ? Math.max(1, n) : n;
}

export interface InFlightTarget {
  machine: Machine;
  node?: Node;
  /** The MHC would remediate it now. */
  dueForRemediation: boolean;
  /** A request from the MHC's remediation template exists for it. */
  hasRemediationRequest?: boolean;
}

export interface InFlightInput {
  /** The MHC's name: the value of the remediated-by mark it puts on Machines it deletes. */
  mhcName: string;
  targets: readonly InFlightTarget[];
  /** Every Machine of the namespace (a MachineSet's replicas may not all be targets). */
  machines: readonly Machine[];
  /** The MachineSets whose Machines the MHC covers. */
  machineSets: readonly MachineSet[];
  nodeStartupTimeoutMs: number;
  nowMs: number;
}

export interface InFlightCount {
  total: number;
  /** Per owner (MachineSet name, or kind/name of another owner), for messages and logs. */
  byOwner: Record<string, number>;
  inPlace: number;
}

const isReady = (n: Node | undefined) => n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const createdAt = (m: Machine) => Date.parse(m.metadata.creationTimestamp ?? '');

export function countInFlight(input: InFlightInput): InFlightCount {
  const window = input.nodeStartupTimeoutMs > 0 ? input.nodeStartupTimeoutMs : DEFAULT_NODE_STARTUP_TIMEOUT_MS;
  interface Group {
    name: string;
    deleting: number;
    booting: number;
    missing: number;
  }
  const groups = new Map<string, Group>();
  const group = (uid: string, name: string): Group => {
    let g = groups.get(uid);
    if (!g) groups.set(uid, (g = { name, deleting: 0, booting: 0, missing: 0 }));
    return g;
  };
  for (const ms of input.machineSets) {
    const uid = ms.metadata.uid ?? ms.metadata.name ?? '';
    const live = input.machines.filter((m) => !m.metadata.deletionTimestamp && getControllerOf(m)?.uid === uid).length;
    group(uid, ms.metadata.name ?? '').missing = Math.max(0, (ms.spec?.replicas ?? 1) - live);
  }
  let inPlace = 0;
  for (const t of input.targets) {
    const m = t.machine;
    const owner = getControllerOf(m);
    if (m.metadata.deletionTimestamp) {
      if (owner && m.metadata.annotations?.[RemediatedByAnnotation] === input.mhcName)
        group(owner.uid, owner.kind === 'MachineSet' ? owner.name : `${owner.kind}/${owner.name}`).deleting++;
      continue;
    }
    if (m.metadata.annotations && ExternalRemediationAnnotation in m.metadata.annotations) {
      inPlace++;
      continue;
    }
    if (t.hasRemediationRequest) {
      inPlace++;
      continue;
    }
    if (!owner || t.dueForRemediation || isReady(t.node)) continue;
    const age = input.nowMs - createdAt(m);
    if (!(age < window)) continue;
    group(owner.uid, owner.kind === 'MachineSet' ? owner.name : `${owner.kind}/${owner.name}`).booting++;
  }
  const byOwner: Record<string, number> = {};
  let total = inPlace;
  for (const g of groups.values()) {
    const n = Math.max(g.deleting, g.booting + g.missing);
    if (n > 0) byOwner[g.name] = n;
    total += n;
  }
  return { total, byOwner, inPlace };
}

/** Of the Machines due for remediation, which go now and which wait: `room` go, newest first (least likely to run workloads). */
export function admitRemediations<T extends { machine: Machine }>(
  due: readonly T[],
  room: number,
): { now: T[]; held: T[] } {
  const ordered = [...due].sort((a, b) => {
    const d = (createdAt(b.machine) || 0) - (createdAt(a.machine) || 0);
    if (d !== 0) return d;
    return (a.machine.metadata.name ?? '') < (b.machine.metadata.name ?? '') ? -1 : 1;
  });
  const n = Math.max(0, room);
  return { now: ordered.slice(0, n), held: ordered.slice(n) };
}
