// The GCP actuator's record step: what create's look and every update write onto a Machine from its instance
// (providerID, addresses, the region/zone/machine-type labels, the interruptible label on the Machine and its
// Node for Spot and preemptible instances, the instance state), and the provider status.
import { MachineInstanceStateAnnotation, MachineInterruptibleInstanceLabel } from '../../lib/index.js';
import type { Instance } from './compute-api.js';
import { addressesOf, isInterruptible, machineLabelsFor, stateToRecord } from './instances.js';
import type { MachineScope } from './machine-scope.js';

/** Writes what the instance says onto the Machine and into its provider status (the caller saves it). */
export function recordInstance(scope: MachineScope, instance: Instance): void {
  const m = scope.machine;
  const state = stateToRecord(scope.status.instanceState, instance);
  m.spec = { ...m.spec, providerID: scope.providerID };
  m.status = { ...m.status, addresses: addressesOf(instance, scope.project, scope.spec.zone) };
  m.metadata.labels = { ...m.metadata.labels, ...machineLabelsFor(scope.spec) };
  if (isInterruptible(scope.spec, instance)) {
    m.metadata.labels[MachineInterruptibleInstanceLabel] = '';
    const nodeMeta = m.spec.metadata ?? {};
    m.spec.metadata = { ...nodeMeta, labels: { ...nodeMeta.labels, [MachineInterruptibleInstanceLabel]: '' } };
  }
  m.metadata.annotations = { ...m.metadata.annotations, [MachineInstanceStateAnnotation]: state };
  scope.status.instanceId = instance.name ?? scope.instanceName;
  scope.status.instanceState = state;
}
