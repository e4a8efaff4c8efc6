// The reference machine controller's updateStatus semantics: what a status write does to the in-memory machine
// before it is persisted.
import {
  DrainableCondition,
  HookPresentReason,
  InstanceStateUnknown,
  MachineInstanceStateAnnotation,
  PhaseFailed,
  TerminableCondition,
} from '../apis/constants.js';
import type { Machine } from '../apis/machine-types.js';
import { falseCondition, setCondition, trueCondition } from '../apis/conditions.js';
import { MachineError } from '../apis/errors.js';
import { findError } from '../apis/errors.js';
import { formatHooks, hasPreDrainHooks, hasPreTerminateHooks } from './lifecycle-hooks.js';
import { deepEqual } from './merge-patch.js';

/** Mutates `machine` into the status the controller wants for `phase`; `base` decides whether lastUpdated moves. */
export function applyPhase(machine: Machine, base: Machine, phase: string, cause: unknown, nowMs: number): void {
  const status = (machine.status ??= {});
  status.conditions = setCondition(
    status.conditions,
    hasPreDrainHooks(machine)
      ? falseCondition(
          DrainableCondition,
          HookPresentReason,
          'Warning',
          `Drain operation currently blocked by: ${formatHooks(machine.spec?.lifecycleHooks?.preDrain)}`,
        )
      : trueCondition(DrainableCondition),
    nowMs,
  );
  status.conditions = setCondition(
    status.conditions,
    hasPreTerminateHooks(machine)
      ? falseCondition(
          TerminableCondition,
          HookPresentReason,
          'Warning',
          `Terminate operation currently blocked by: ${formatHooks(machine.spec?.lifecycleHooks?.preTerminate)}`,
        )
      : trueCondition(TerminableCondition),
    nowMs,
  );

  if (phase === PhaseFailed) {
    machine.metadata.annotations = {
      ...machine.metadata.annotations,
      [MachineInstanceStateAnnotation]: InstanceStateUnknown,
    };
    const ps = status.providerStatus;
    if (ps && typeof ps === 'object') {
      const next = { ...ps };
      if (typeof next.instanceState === 'string') next.instanceState = InstanceStateUnknown;
      if (typeof next.vmState === 'string') next.vmState = InstanceStateUnknown;
      status.providerStatus = next;
    }
  }

  // An empty phase stays absent rather than becoming "" (the next pass moves it to Provisioning).
  if (phase) status.phase = phase;
  else delete status.phase;
  delete status.errorReason;
  delete status.errorMessage;
  if (phase === PhaseFailed && cause !== undefined && cause !== null) {
    const me = findError(cause, MachineError);
    if (me) {
      status.errorReason = me.reason;
      status.errorMessage = me.message;
    } else {
      status.errorMessage = causeText(cause);
    }
  }

  const { lastUpdated: _a, ...now } = status;
  const { lastUpdated: _b, ...before } = base.status ?? {};
  if (!deepEqual(now, before)) status.lastUpdated = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** What Go's err.Error() would print. An unknown thrown object is never dumped: it may carry request details (headers, credentials). */
function causeText(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  if (typeof cause === 'string') return cause;
  const message = typeof cause === 'object' ? (cause as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : `unexpected ${typeof cause} thrown`;
}
