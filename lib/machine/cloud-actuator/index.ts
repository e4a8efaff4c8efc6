export { CloudActuator, type LaunchRateLine } from './cloud-actuator.js';
export { CloudActuatorSteps, type TerminateFailure } from './steps.js';
export { launchFailureError, type LaunchFailure } from './launch-failure.js';
export { MachineMemory } from './machine-memory.js';
export {
  DEFAULT_CLOUD_REQUEUE_AFTER_MS,
  providerStatusSaver,
  type CloudActuatorOptions,
  type CloudActuatorSettings,
  type CloudActuatorTimings,
  type CloudMachineScope,
  type CloudProviderStatus,
  type CreationCondition,
} from './settings.js';
export {
  CapacityEntriesRefusedError,
  CapacityFallback,
  CapacityFallbackReason,
  launchOrder,
  recordedEntry,
  type CapacityEntry,
  type CapacityRefusal,
} from './capacity-entries.js';
