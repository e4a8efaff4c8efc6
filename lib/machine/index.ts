export * from './actuator.js';
export * from './metrics.js';
export * from './controller.js';
export { MachineValidationError, validateMachine, type FieldError } from './validation.js';
export { formatHooks, hasPreDrainHooks, hasPreTerminateHooks } from './lifecycle-hooks.js';
export { NodeDrainer, defaultDrainOptions, type DrainOptions, type DrainOutcome } from './drain/node-drainer.js';
export { drainPermission, isControlPlaneNode } from './drain/drain-guard.js';
export { decidePods, type PodDecision } from './drain/pod-filter.js';
export {
  decodeProviderSpec,
  machineProviderSpecValue,
  templateProviderSpecValue,
  PROVIDER_SPEC_VALUE_FIELD,
  TEMPLATE_PROVIDER_SPEC_VALUE_FIELD,
} from './provider-spec.js';
export {
  reportActuatorFailures,
  failureStep,
  setFailureReason,
  failureReasonOf,
  failureLabels,
  machineChangeFingerprint,
  emitUpdatedWhenChanged,
  scopeForDelete,
  type FailureReportOptions,
  type MachineChangeMark,
} from './actuator-reporting.js';
export { ReconcileNotes, NoteKey } from './reconcile-notes.js';
export { CarriedNotes, DEFAULT_CARRY_MS } from './carried-notes.js';
export * from './cloud-actuator/index.js';
