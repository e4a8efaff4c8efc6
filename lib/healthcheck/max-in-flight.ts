// The max-in-flight gate of a MachineHealthCheck pass: of the Machines due for remediation, how many may be
// remediated now (in-flight.ts counts what is already under way, from the cluster), and what the MHC says about
// the others: its RemediationInFlightAllowed condition, a Normal event once per change of the waiting set, and
// mapi_machinehealthcheck_remediations_held_back_total, once per Machine per wait.
import {
  ExternalRemediationAnnotation,
  MaxInFlightAnnotation,
  MaxInFlightReachedReason,
  RemediatedByAnnotation,
  RemediationInFlightAllowedCondition,
} from '../apis/constants.js';
import { falseCondition, setCondition, trueCondition } from '../apis/conditions.js';
import { selectorFromLabelSelector } from '../apis/label-selector.js';
import type { Condition, Machine, MachineHealthCheck, MachineSet } from '../apis/machine-types.js';
import { getControllerOf } from '../apis/objects.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { Informer } from '../runtime/types.js';
import type { EventOnce } from './event-once.js';
import type { HealthCheckTarget } from './health.js';
import {
  admitRemediations,
  countInFlight,
  maxInFlightOf,
  type InFlightCount,
  type InFlightTarget,
} from './in-flight.js';
import type { HealthCheckMetrics } from './metrics.js';

/** While Machines wait, the MHC looks again this often even if no watch event wakes it. */
export const HeldBackRecheckMs = 30_000;
/** How long a remediation this process started may go unseen by the informer cache before it is forgotten. */
export const UnseenRemediationTtlMs = 2 * 60_000;

export interface GateInput {
  mhc: MachineHealthCheck;
  /** The MHC's queue key, prefix of its once-keys. */
  key: string;
  targets: readonly HealthCheckTarget[];
  due: readonly HealthCheckTarget[];
  /** Which due targets already have a request from the remediation template (template MHCs only). */
  hasRequest: (t: HealthCheckTarget) => boolean;
  /**
   * Whether remediating the target would do anything (a Machine without a controller owner is skipped: nothing
   * would replace it); default all. Only those take a slot or wait for one.
   */
  remediable?: (t: HealthCheckTarget) => boolean;
  nodeStartupTimeoutMs: number;
  nowMs: number;
  conditions: Condition[] | undefined;
  /** Once-keys still standing are added here (the reconciler forgets the rest). */
  live: Set<string>;
}

export interface GateResult {
  /** The targets to remediate in this pass. */
  now: HealthCheckTarget[];
  held: HealthCheckTarget[];
  conditions: Condition[] | undefined;
  /** What was in flight before this pass (set when Machines wait), for logs. */
  inFlight?: InFlightCount;
  /** Look again after this long (something waits). */
  recheckMs?: number;
}

export class MaxInFlightGate {
  /**
   * Remediations this process started that the Machine cache may not show yet (the delete, or the external
   * remediation annotation, written a moment ago), per MHC key: Machine UID → when to stop waiting for it. Only
   * a bridge over the cache's lag: a restarted process lists afresh, and the list shows every write before it.
   */
  private readonly unseen = new Map<string, Map<string, number>>();

  constructor(
    private readonly machines: Informer<Machine>,
    private readonly machineSets: Informer<MachineSet>,
    private readonly events: EventRecorder,
    private readonly metrics: HealthCheckMetrics,
    private readonly once: EventOnce,
  ) {}

  /** Whether the MHC sets a limit at all (without the annotation everything due is remediated, as the reference). */
  static applies(mhc: MachineHealthCheck): boolean {
    return mhc.metadata.annotations?.[MaxInFlightAnnotation] !== undefined;
  }

  /** Records that this pass started remediating `machine` (so the next pass counts it, whatever the cache shows). */
  started(key: string, machine: Machine, nowMs: number): void {
    const uid = machine.metadata.uid;
    if (!uid) return;
    let m = this.unseen.get(key);
    if (!m) this.unseen.set(key, (m = new Map()));
    m.set(uid, nowMs + UnseenRemediationTtlMs);
  }

  /** Forgets a MachineHealthCheck that is gone. */
  forget(key: string): void {
    this.unseen.delete(key);
  }

  /** Remediations started here that the cache does not show yet; forgets those it shows (or that are gone). */
  private unseenCount(key: string, machines: readonly Machine[], nowMs: number): number {
    const m = this.unseen.get(key);
    if (!m) return 0;
    const byUid = new Map(machines.map((x) => [x.metadata.uid ?? '', x]));
    let n = 0;
    for (const [uid, until] of m) {
      const cached = byUid.get(uid);
      const shown =
        !cached ||
        !!cached.metadata.deletionTimestamp ||
        ExternalRemediationAnnotation in (cached.metadata.annotations ?? {});
      if (shown || until <= nowMs) m.delete(uid);
      else n++;
    }
    if (m.size === 0) this.unseen.delete(key);
    return n;
  }

  /** Throws InvalidMaxInFlightError for an annotation that cannot be read. */
  admit(input: GateInput): GateResult {
    const { mhc } = input;
    const limit = maxInFlightOf(mhc.metadata.annotations, input.targets.length) ?? Number.POSITIVE_INFINITY;
    const dueSet = new Set(input.due);
    const targets: InFlightTarget[] = input.targets.map((t) => ({
      machine: t.machine,
      node: t.node,
      dueForRemediation: dueSet.has(t),
      hasRemediationRequest: dueSet.has(t) && input.hasRequest(t),
    }));
    const namespace = mhc.metadata.namespace;
    const machines = this.machines.list({ namespace });
    const count = countInFlight({
      mhcName: mhc.metadata.name ?? '',
      targets,
      machines,
      machineSets: this.relevantMachineSets(mhc, input.targets),
      nodeStartupTimeoutMs: input.nodeStartupTimeoutMs,
      nowMs: input.nowMs,
    });
    const unseen = this.unseenCount(input.key, machines, input.nowMs);
    count.total += unseen;
    // Those already under way (being deleted, or remediated in place) need no new action and hold their own slot.
    const open = input.due.filter(
      (t) =>
        (input.remediable?.(t) ?? true) &&
        !t.machine.metadata.deletionTimestamp &&
        !(ExternalRemediationAnnotation in (t.machine.metadata.annotations ?? {})) &&
        !input.hasRequest(t),
    );
    // Marked by us but not (yet) shown deleting: a remediation begun (by this process a moment ago, or by one that
    // stopped between the mark and the delete). It holds a slot, and goes again at once, so that it is finished.
    const mhcName = mhc.metadata.name ?? '';
    const isMarked = (t: HealthCheckTarget) => t.machine.metadata.annotations?.[RemediatedByAnnotation] === mhcName;
    const marked = open.filter(isMarked);
    count.total += marked.length;
    const admitted = admitRemediations(
      open.filter((t) => !isMarked(t)),
      limit - count.total,
    );
    const now = [...marked, ...admitted.now];
    const held = admitted.held;
    const name = mhc.metadata.name ?? '';
    const labels = { name, namespace: namespace ?? '' };
    if (held.length === 0) {
      return {
        now,
        held,
        conditions: setCondition(input.conditions, trueCondition(RemediationInFlightAllowedCondition), input.nowMs),
      };
    }
    const raw = mhc.metadata.annotations?.[MaxInFlightAnnotation] ?? '';
    // In flight once this pass's remediations are under way.
    const inFlight = count.total + admitted.now.length;
    const setting = raw.trim() === String(limit) ? raw.trim() : `${raw.trim()} (${limit})`;
    const waiting = held.map((t) => t.machine.metadata.name ?? '').join(', ');
    const message = `${inFlight} remediation${inFlight === 1 ? '' : 's'} in flight, max-in-flight ${setting}; waiting: ${waiting}`;
    for (const t of held) {
      const onceKey = `${input.key}|${t.machine.metadata.uid ?? ''}|HeldBack`;
      input.live.add(onceKey);
      this.once.emit(onceKey, 'held', () => this.metrics.remediationsHeldBack.inc(labels));
    }
    const eventKey = `${input.key}|RemediationDeferred`;
    input.live.add(eventKey);
    this.once.emit(eventKey, waiting, () =>
      this.events.event(
        mhc,
        'Normal',
        'RemediationDeferred',
        'Remediate',
        `Remediation of ${held.length} unhealthy Machine${held.length === 1 ? '' : 's'} deferred: ${message}`,
      ),
    );
    return {
      now,
      held,
      inFlight: count,
      conditions: setCondition(
        input.conditions,
        falseCondition(RemediationInFlightAllowedCondition, MaxInFlightReachedReason, 'Info', message),
        input.nowMs,
      ),
      recheckMs: HeldBackRecheckMs,
    };
  }

  /** The MachineSets of the namespace that own a target or whose template the MHC's selector matches. */
  private relevantMachineSets(mhc: MachineHealthCheck, targets: readonly HealthCheckTarget[]): MachineSet[] {
    const owners = new Set(targets.map((t) => getControllerOf(t.machine)?.uid).filter((u) => u !== undefined));
    let selector: ReturnType<typeof selectorFromLabelSelector> | undefined;
    try {
      selector = selectorFromLabelSelector(mhc.spec?.selector);
    } catch {
      selector = undefined;
    }
    return this.machineSets
      .list({ namespace: mhc.metadata.namespace })
      .filter(
        (ms) => owners.has(ms.metadata.uid ?? '') || (selector?.matches(ms.spec?.template?.metadata?.labels) ?? false),
      );
  }
}
