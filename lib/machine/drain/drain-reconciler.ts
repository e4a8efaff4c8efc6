// The machine-drain-controller: once the machine controller has set phase Deleting, drain the machine's node
// and record Drained=True so that the machine controller may terminate the instance.
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/machine/drain_controller.go
// A failed drain is persisted as Drained=False/DrainError, visible to users (the reference set it in memory and
// returned before writing it, so only the DrainRequeued event showed the failure).
// Beyond the reference: a Machine annotated machine.openshift.io/drain-timeout stops draining once its drain has
// run that long (Drained=False/DrainTimeout, a Warning event naming the pods left and why) and termination goes
// ahead; pods' own drain annotations (skip, wait-completed, drain-order) are honoured and announced by events.
import {
  DrainErrorReason,
  DrainedCondition,
  DrainTimeoutAnnotation,
  DrainTimeoutReason,
  ExcludeNodeDrainingAnnotation,
  PhaseDeleting,
} from '../../apis/constants.js';
import type { Node } from '../../apis/core.js';
import type { Machine } from '../../apis/machine-types.js';
import { isNodeOfAnotherInstance } from '../../apis/node-identity.js';
import { isNotFound } from '../../client/errors.js';
import { Nodes } from '../../client/resources.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KubeClient } from '../../client/kube-client.js';
import type { Clock } from '../../base/clock.js';
import { requestKey } from '../../runtime/request-key.js';
import type { Informer, ReconcileContext, Reconciler, Request, Result } from '../../runtime/types.js';
import { falseCondition, setCondition, trueConditionWithReason } from '../../apis/conditions.js';
import { formatGoDuration } from '../../apis/duration.js';
import { messageOf, requeueAfterOf } from '../../apis/errors.js';
import { hasPreDrainHooks } from '../lifecycle-hooks.js';
import { fingerprintOf } from '../reconcile-pacing.js';
import { MachineDraft } from '../machine-writer.js';
import { clone } from '../merge-patch.js';
import { RetryGate } from '../retry-gate.js';
import type { MachineMetrics } from '../metrics.js';
import { isDrainFinished, isWaitingForVolumes } from './drain-finished.js';
import { VolumeDetachWait } from './volume-detach.js';
import type { PlannedPod } from './drain-plan.js';
import { deletionSettings, drainStartedAt } from './drain-settings.js';
import { DrainIncompleteError, type NodeDrainer, type RemainingPod } from './node-drainer.js';

/** How many pods a DrainTimeout message names before it counts the rest. */
const MaxPodsNamed = 10;

export interface DrainReconcilerDeps {
  client: KubeClient;
  machines: Informer<Machine>;
  drainer: NodeDrainer;
  clock: Clock;
  events: EventRecorder;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Counts drains ended by their timeout; none when unset. */
  metrics?: MachineMetrics;
}

export class DrainReconciler implements Reconciler {
  private readonly gate: RetryGate;
  private readonly volumes: VolumeDetachWait;

  constructor(private readonly d: DrainReconcilerDeps) {
    this.gate = new RetryGate(d.clock, d.retryBaseMs, d.retryMaxMs);
    this.volumes = new VolumeDetachWait({ client: d.client, clock: d.clock, events: d.events });
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const cached = this.d.machines.get(req);
    if (!cached) {
      // Gone: its backoff entry would otherwise stay for the life of the process.
      this.gate.succeeded(requestKey(req));
      return;
    }
    if (!cached.metadata.deletionTimestamp || cached.status?.phase !== PhaseDeleting) return;
    const drainDone = isDrainFinished(cached);
    if (drainDone && !isWaitingForVolumes(cached)) return;

    const key = requestKey(req);
    const fp = fingerprintOf(cached);
    // Our own DrainError status write comes straight back through the watch; hold it to the backoff.
    const wait = this.gate.remaining(key, fp);
    if (wait !== undefined) return { requeueAfterMs: wait };
    const started = this.d.clock.now();

    const draft = new MachineDraft(clone(cached), this.d.client);
    if (!drainDone) {
      const drained = await this.drainStep(draft, key, fp, started, ctx);
      if (drained !== 'finished') return drained;
    }
    // After the drain, before the machine controller terminates: the Node's volumes must have detached.
    const volumeWait = await this.volumes.step(draft.machine, ctx);
    try {
      await draft.persist(ctx.signal);
    } catch (err) {
      if (isNotFound(err)) return this.gone(key, ctx);
      this.gate.failed(key, fp, started);
      throw new Error(`could not patch machine status: ${messageOf(err)}`, { cause: err });
    }
    this.gate.succeeded(key);
    return volumeWait === undefined ? undefined : { requeueAfterMs: volumeWait };
  }

  /**
   * Drains the Node (or skips the drain) and records Drained on the draft: 'finished' when the drain is over
   * (drained, skipped, or ended by its timeout); otherwise what the reconcile returns.
   */
  private async drainStep(
    draft: MachineDraft,
    key: string,
    fp: string,
    started: number,
    ctx: ReconcileContext,
  ): Promise<'finished' | Result | void> {
    const machine = draft.machine;
    const { events } = this.d;
    const nodeName = machine.status?.nodeRef?.name;
    let message: string;
    if (machine.metadata.annotations?.[ExcludeNodeDrainingAnnotation] === undefined && nodeName) {
      if (hasPreDrainHooks(machine)) {
        events.event(machine, 'Normal', 'DrainBlocked', 'Drain', 'Drain blocked by pre-drain hook');
        return;
      }
      let stranger: string | undefined;
      try {
        stranger = await this.nodeOfAnotherInstance(nodeName, machine, ctx.signal);
      } catch (err) {
        return this.drainFailed(draft, err, key, fp, started, ctx);
      }
      if (stranger) {
        // The instance is gone and its private IP, hence the Node name in nodeRef, went to a new instance:
        // cordoning and evicting that Node would hurt a healthy Machine, and nothing of ours is left to drain.
        events.event(
          machine,
          'Normal',
          'DrainSkipped',
          'Drain',
          `Node drain skipped: node "${nodeName}" belongs to instance ${stranger}`,
        );
        message = 'Node drain skipped';
      } else {
        events.event(machine, 'Normal', 'DrainProceeds', 'Drain', 'Node drain proceeds');
        const settings = deletionSettings(machine.metadata.annotations);
        for (const problem of settings.problems)
          events.event(machine, 'Warning', 'InvalidDrainSetting', 'Drain', `${problem}; the annotation is ignored`);
        const startedAt = drainStartedAt(machine);
        const deadlineMs =
          settings.drainTimeoutMs !== undefined && startedAt !== undefined
            ? startedAt + settings.drainTimeoutMs
            : undefined;
        try {
          const report = await this.d.drainer.drain(nodeName, ctx.signal, { deadlineMs });
          this.announceRules(machine, report.applied);
          if (report.outcome === 'drained')
            events.event(machine, 'Normal', 'Deleted', 'Drain', `Node "${nodeName}" drained`);
        } catch (err) {
          if (err instanceof DrainIncompleteError) this.announceRules(machine, err.applied);
          if (deadlineMs === undefined || this.d.clock.now() < deadlineMs || ctx.signal.aborted)
            return this.drainFailed(draft, err, key, fp, started, ctx, deadlineMs);
          this.timedOut(machine, nodeName, err, settings.drainTimeoutMs ?? 0, ctx);
          return 'finished';
        }
        events.event(machine, 'Normal', 'DrainSucceeded', 'Drain', 'Node drain succeeded');
        message = 'Drain finished successfully';
      }
    } else {
      events.event(machine, 'Normal', 'DrainSkipped', 'Drain', 'Node drain skipped');
      message = 'Node drain skipped';
    }

    const status = (machine.status ??= {});
    status.conditions = setCondition(
      status.conditions,
      trueConditionWithReason(DrainedCondition, '', message),
      this.d.clock.now(),
    );
    return 'finished';
  }

  /**
   * The Machine went while it was drained (a pass that started from a cache behind the finalizer's removal):
   * nothing is left to drain or record, which is how a deletion ends, not an error.
   */
  private gone(key: string, ctx: ReconcileContext): Result {
    this.gate.succeeded(key);
    ctx.log.debug('machine gone meanwhile; nothing to record', {}, 2);
    return {};
  }

  /** The providerID of the Node named `name` when it provably belongs to another instance; else undefined. */
  private async nodeOfAnotherInstance(
    name: string,
    machine: Machine,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    let node: Node;
    try {
      node = await this.d.client.get(Nodes, { name }, { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    return isNodeOfAnotherInstance(node, machine) ? node.spec?.providerID : undefined;
  }

  /** One event per pod whose own drain annotations applied, and a Warning for one that could not be read. */
  private announceRules(machine: Machine, applied: readonly PlannedPod[]): void {
    for (const p of applied) {
      const pod = `${p.pod.metadata.namespace ?? ''}/${p.pod.metadata.name ?? ''}`;
      if (p.problem) this.d.events.event(machine, 'Warning', 'DrainRuleInvalid', 'Drain', `Pod ${pod}: ${p.problem}`);
      if (p.byAnnotation) this.d.events.event(machine, 'Normal', 'DrainRule', 'Drain', `Pod ${pod}: ${p.reason}`);
    }
  }

  /**
   * The drain ran out of its drain-timeout: stop evicting, say what is left and why, and let termination go
   * ahead (the machine controller treats Drained=False/DrainTimeout as the end of the drain).
   */
  private timedOut(machine: Machine, nodeName: string, err: unknown, timeoutMs: number, ctx: ReconcileContext): void {
    const left =
      err instanceof DrainIncompleteError
        ? describeRemaining(err.remaining)
        : `the last attempt failed: ${messageOf(err)}`;
    const note = `Node "${nodeName}" drain did not finish within ${formatGoDuration(timeoutMs)} (${DrainTimeoutAnnotation}); terminating anyway. Left: ${left}`;
    const status = (machine.status ??= {});
    status.conditions = setCondition(
      status.conditions,
      falseCondition(DrainedCondition, DrainTimeoutReason, 'Warning', note),
      this.d.clock.now(),
    );
    this.d.events.event(machine, 'Warning', DrainTimeoutReason, 'Drain', note);
    ctx.log.info('drain timed out; termination goes ahead', { node: nodeName, timeout: formatGoDuration(timeoutMs) });
    this.d.metrics?.recordDrainTimeout(machine.metadata.namespace ?? '');
  }

  private async drainFailed(
    draft: MachineDraft,
    err: unknown,
    key: string,
    fp: string,
    started: number,
    ctx: ReconcileContext,
    deadlineMs?: number,
  ): Promise<Result> {
    const status = (draft.machine.status ??= {});
    status.conditions = setCondition(
      status.conditions,
      falseCondition(DrainedCondition, DrainErrorReason, 'Warning', `could not drain machine: ${messageOf(err)}`),
      this.d.clock.now(),
    );
    this.d.events.event(draft.machine, 'Normal', 'DrainRequeued', 'Drain', `Node drain requeued: ${messageOf(err)}`);
    try {
      await draft.persist(ctx.signal);
    } catch (patchErr) {
      if (isNotFound(patchErr)) return this.gone(key, ctx);
      ctx.log.error('could not record the drain error on the machine', { error: messageOf(patchErr) });
    }
    const after = requeueAfterOf(err);
    if (after !== undefined) {
      const wait = capAt(after, deadlineMs, this.d.clock.now());
      this.gate.hold(key, fp, wait, started);
      return { requeueAfterMs: wait };
    }
    const delay = this.gate.failed(key, fp, started);
    if (deadlineMs === undefined) throw err;
    // The work queue's own backoff could carry the next attempt far past the drain's deadline: come back at the
    // backoff or at the deadline, whichever is first.
    const wait = capAt(delay, deadlineMs, this.d.clock.now());
    this.gate.hold(key, fp, wait, started);
    ctx.log.info('drain attempt failed; retrying', { error: messageOf(err), requeueAfterMs: wait });
    return { requeueAfterMs: wait };
  }
}

/** `ms`, but no later than `deadlineMs` (at least 1 ms from now). */
function capAt(ms: number, deadlineMs: number | undefined, nowMs: number): number {
  return deadlineMs === undefined ? ms : Math.max(1, Math.min(ms, deadlineMs - nowMs));
}

/** "ns/a (why), ns/b (why)", naming at most MaxPodsNamed pods. */
export function describeRemaining(remaining: readonly RemainingPod[]): string {
  if (remaining.length === 0) return 'no pods';
  const named = remaining.slice(0, MaxPodsNamed).map((r) => `${r.pod} (${r.why})`);
  if (remaining.length > MaxPodsNamed) named.push(`and ${remaining.length - MaxPodsNamed} more`);
  return named.join(', ');
}
