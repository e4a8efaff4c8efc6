// How the machine controller writes a Machine's status: conditions set on the draft with the controller's
// clock, a phase applied with the reference's updateStatus rules (machine-status.ts) and persisted, and the
// time a Machine took to reach each new phase observed for the phase-transition metric.
import { PhaseDeleting } from '../apis/constants.js';
import { setCondition } from '../apis/conditions.js';
import type { Condition, Machine } from '../apis/machine-types.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import { messageOf } from '../apis/errors.js';
import { applyPhase } from './machine-status.js';
import type { MachineDraft } from './machine-writer.js';
import type { MachineMetrics } from './metrics.js';

export const currentPhase = (m: Machine): string => m.status?.phase ?? '';

export class StatusWriter {
  constructor(
    private readonly clock: Clock,
    private readonly metrics: MachineMetrics,
  ) {}

  setCondition(draft: MachineDraft, c: Condition): void {
    const status = (draft.machine.status ??= {});
    status.conditions = setCondition(status.conditions, c, this.clock.now());
  }

  /** Moves the Machine to `phase` and persists the draft; a Failed phase records `cause` as errorReason/errorMessage. */
  async updateStatus(draft: MachineDraft, phase: string, cause: unknown, signal: AbortSignal): Promise<void> {
    const before = draft.base.status?.phase ?? '';
    applyPhase(draft.machine, draft.base, phase, cause, this.clock.now());
    await draft.persist(signal);
    if (before !== phase && phase !== PhaseDeleting) {
      const created = Date.parse(draft.machine.metadata.creationTimestamp ?? '');
      if (!Number.isNaN(created)) this.metrics.observePhaseTransition(phase, (this.clock.now() - created) / 1000);
    }
  }

  /** updateStatus on a path that is already failing: a failed write is logged, and the first error stands. */
  async updateStatusLogged(
    draft: MachineDraft,
    phase: string,
    cause: unknown,
    log: Logger,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await this.updateStatus(draft, phase, cause, signal);
    } catch (err) {
      log.error('failed to update machine status', { error: messageOf(err) });
    }
  }

  /** Persists what the actuator changed on a path that is already failing; a failed write is logged. */
  async persistLogged(draft: MachineDraft, log: Logger, signal: AbortSignal): Promise<void> {
    try {
      await draft.persist(signal);
    } catch (err) {
      log.error('failed to persist actuator changes', { error: messageOf(err) });
    }
  }
}
