// What the machine controller does when the cloud refuses a create for want of capacity or quota: the refusal
// is recorded on the Machine (CapacityAvailable=False, timed from the first refusal), the create is retried
// while the window lasts, and then the Machine fails with InsufficientResources so that the autoscaler sees
// the failure and tries another MachineSet. The window's rules are in capacity-window.ts.
import { CapacityAvailableCondition, PhaseFailed, PhaseProvisioning } from '../apis/constants.js';
import { getCondition, setCondition } from '../apis/conditions.js';
import type { Clock } from '../base/clock.js';
import type { EventRecorder } from '../client/event-recorder.js';
import {
  CapacityRetry,
  firstRefusalOf,
  judgeRefusal,
  refusedCondition,
  windowEndedCondition,
} from './capacity-window.js';
import { formatDuration, type InsufficientCapacityError } from '../apis/errors.js';
import type { MachineDraft } from './machine-writer.js';
import type { MachineMetrics } from './metrics.js';
import { currentPhase, type StatusWriter } from './status-writer.js';

export interface CapacityRefusalsDeps {
  clock: Clock;
  events: EventRecorder;
  metrics: MachineMetrics;
  /** How long refusals are retried from the first one; 0 fails the Machine at once. Default 2 min. */
  capacityRetryWindowMs?: number;
}

export class CapacityRefusals {
  constructor(
    private readonly d: CapacityRefusalsDeps,
    private readonly status: StatusWriter,
  ) {}

  /**
   * A create the cloud refused: throws CapacityRetry while the window lasts (the pacing turns it into a
   * requeue), and fails the Machine once it is over.
   */
  async refused(draft: MachineDraft, refusal: InsufficientCapacityError, signal: AbortSignal): Promise<void> {
    const windowMs = this.d.capacityRetryWindowMs ?? 120_000;
    const verdict = judgeRefusal(windowMs, firstRefusalOf(draft.machine), this.d.clock.now());
    const status = (draft.machine.status ??= {});
    // Replaced rather than set: a new message must not move the first refusal's time.
    const others = (status.conditions ?? []).filter((c) => c.type !== CapacityAvailableCondition);
    status.conditions = setCondition(others, refusedCondition(refusal, verdict.sinceMs, windowMs), this.d.clock.now());
    if (!verdict.fail) {
      await this.status.updateStatus(draft, currentPhase(draft.machine) || PhaseProvisioning, undefined, signal);
      throw new CapacityRetry(verdict.windowLeftMs, { cause: refusal });
    }
    await this.status.updateStatus(draft, PhaseFailed, refusal, signal);
    const waited =
      windowMs > 0 ? `; no capacity for ${formatDuration(Math.max(0, this.d.clock.now() - verdict.sinceMs))}` : '';
    this.d.events.event(
      draft.machine,
      'Warning',
      'InsufficientResources',
      'Create',
      `${draft.machine.metadata.name ?? ''}: ${refusal.message}${waited}`,
    );
    this.d.metrics.recordCapacityFailure({
      namespace: draft.key.namespace,
      zone: refusal.zone,
      instanceType: refusal.instanceType,
      code: refusal.cloudCode,
    });
  }

  /** An instance that exists, or a create that failed for another reason, ends a run of refusals (Machines that never had one get no condition). */
  ended(draft: MachineDraft, how: 'created' | 'other-error'): void {
    if (getCondition(draft.machine.status?.conditions, CapacityAvailableCondition))
      this.status.setCondition(draft, windowEndedCondition(how === 'created'));
  }
}
