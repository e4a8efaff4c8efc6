export { CloudActuator, type CloudActuatorSettings, type CloudMachineScope, type CloudProviderStatus, type CreationCondition } from './cloud-actuator.js';
export { MachineMemory } from './machine-memory.js';
