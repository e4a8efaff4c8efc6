// Names the Machine API fixes: they must match openshift/api (machine/v1beta1), the machine-api-operator's
// controllers and the cluster-autoscaler's scale-from-zero annotations exactly, or other components miss them.

export const MachineFinalizer = 'machine.machine.openshift.io';

// Labels
export const MachineClusterIDLabel = 'machine.openshift.io/cluster-api-cluster';
export const MachineClusterLabelName = 'cluster.k8s.io/cluster-name';
export const MachineSetLabel = 'machine.openshift.io/cluster-api-machineset';
export const MachineRoleLabel = 'machine.openshift.io/cluster-api-machine-role';
export const MachineTypeLabel = 'machine.openshift.io/cluster-api-machine-type';
export const MachineRegionLabel = 'machine.openshift.io/region';
export const MachineAZLabel = 'machine.openshift.io/zone';
export const MachineInstanceTypeLabel = 'machine.openshift.io/instance-type';
export const MachineInterruptibleInstanceLabel = 'machine.openshift.io/interruptible-instance';
/**
 * On a Machine a MachineSet made: the hash of the template it was made from (see lib/machineset/template-hash.ts).
 * Our own group's prefix: Cluster API's `machine-template-hash` names a MachineSet inside a MachineDeployment
 * and sits in its selector, so reusing it would mislead anything that converts these Machines to Cluster API.
 */
export const MachineTemplateHashLabel = 'machine.openshift.io/template-hash';
export const ControlPlaneNodeRoleLabels = [
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
] as const;

// Annotations
export const MachineInstanceStateAnnotation = 'machine.openshift.io/instance-state';
export const ExcludeNodeDrainingAnnotation = 'machine.openshift.io/exclude-node-draining';
export const DeleteMachineAnnotation = 'machine.openshift.io/delete-machine';
export const LegacyDeleteMachineAnnotation = 'machine.openshift.io/cluster-api-delete-machine';
export const NodeMachineAnnotation = 'machine.openshift.io/machine';
export const TemplateClonedFromNameAnnotation = 'machine.openshift.io/cloned-from-name';
export const TemplateClonedFromGroupKindAnnotation = 'machine.openshift.io/cloned-from-groupkind';
export const MHCPausedAnnotation = 'cluster.x-k8s.io/paused';
export const ExternalRemediationAnnotation = 'host.metal3.io/external-remediation';
export const RemediationStrategyAnnotation = 'machine.openshift.io/remediation-strategy';
export const RemediationStrategyExternalBaremetal = 'external-baremetal';
export const MirrorPodAnnotation = 'kubernetes.io/config.mirror';
// Drains that end (our addition; without these annotations a drain behaves as the reference's).
/** On a Machine (or a MachineSet's template): how long a drain may run before termination goes ahead; a Go duration. */
export const DrainTimeoutAnnotation = 'machine.openshift.io/drain-timeout';
/** On a Machine: how long to wait, after the drain, for the Node's volumes to detach; a Go duration, default 10m, 0 skips. */
export const VolumeDetachTimeoutAnnotation = 'machine.openshift.io/volume-detach-timeout';
/** On a Pod: `skip` (never evicted, not waited for) or `wait-completed` (never evicted, waited for until it finishes). */
export const PodDrainAnnotation = 'machine.openshift.io/drain';
/** On a Pod: an integer (default 0); a drain evicts pods in ascending order, a group only once the previous is gone. */
export const PodDrainOrderAnnotation = 'machine.openshift.io/drain-order';
/** On a MachineHealthCheck: how many Machines it remediated may be in flight at once (integer or percentage of targets). */
export const MaxInFlightAnnotation = 'machine.openshift.io/max-in-flight';
/** Put on a Machine by the MachineHealthCheck that deletes it, naming that MachineHealthCheck. */
export const RemediatedByAnnotation = 'machine.openshift.io/remediated-by';

// Rolling replacement of a MachineSet's Machines (opt-in; the operator's CRD prunes unknown spec fields, so the
// settings are annotations on the MachineSet). The restart annotation is also stamped on each Machine with the
// value it was made under.
export const RolloutStrategyAnnotation = 'machine.openshift.io/rollout-strategy';
export const RolloutMaxSurgeAnnotation = 'machine.openshift.io/rollout-max-surge';
export const RolloutMaxUnavailableAnnotation = 'machine.openshift.io/rollout-max-unavailable';
export const RolloutRestartAnnotation = 'machine.openshift.io/rollout-restart';
export const RolloutPausedAnnotation = 'machine.openshift.io/rollout-paused';

// Scale from zero: the OpenShift keys the provider MachineSet controllers write ...
export const VCPUAnnotation = 'machine.openshift.io/vCPU';
export const MemoryMbAnnotation = 'machine.openshift.io/memoryMb';
export const GPUAnnotation = 'machine.openshift.io/GPU';
export const MaxPodsAnnotation = 'machine.openshift.io/maxPods';
// ... and the upstream cluster-autoscaler keys.
export const CapacityCPUAnnotation = 'capacity.cluster-autoscaler.kubernetes.io/cpu';
export const CapacityMemoryAnnotation = 'capacity.cluster-autoscaler.kubernetes.io/memory';
export const CapacityGPUCountAnnotation = 'capacity.cluster-autoscaler.kubernetes.io/gpu-count';
export const CapacityGPUTypeAnnotation = 'capacity.cluster-autoscaler.kubernetes.io/gpu-type';
export const CapacityMaxPodsAnnotation = 'capacity.cluster-autoscaler.kubernetes.io/maxPods';
export const CapacityLabelsAnnotation = 'capacity.cluster-autoscaler.kubernetes.io/labels';
export const CapacityTaintsAnnotation = 'capacity.cluster-autoscaler.kubernetes.io/taints';
export const ArchLabel = 'kubernetes.io/arch';
export const NodeGroupMinSizeAnnotation = 'machine.openshift.io/cluster-api-autoscaler-node-group-min-size';
export const NodeGroupMaxSizeAnnotation = 'machine.openshift.io/cluster-api-autoscaler-node-group-max-size';

// Phases
export const PhaseProvisioning = 'Provisioning';
export const PhaseProvisioned = 'Provisioned';
export const PhaseRunning = 'Running';
export const PhaseDeleting = 'Deleting';
export const PhaseFailed = 'Failed';

// Condition types
export const MachineCreatedCondition = 'MachineCreated';
export const MachineCreationCondition = 'MachineCreation';
export const InstanceExistsCondition = 'InstanceExists';
export const RemediationAllowedCondition = 'RemediationAllowed';
export const ExternalRemediationTemplateAvailableCondition = 'ExternalRemediationTemplateAvailable';
export const ExternalRemediationRequestAvailableCondition = 'ExternalRemediationRequestAvailable';
export const DrainedCondition = 'Drained';
export const DrainableCondition = 'Drainable';
export const TerminableCondition = 'Terminable';
export const IPAddressClaimedCondition = 'IPAddressClaimed';
export const PausedCondition = 'Paused';
/** Whether the Secrets the providerSpec names (credentials, user data) could be read; set only once one was missing. */
export const SecretsAvailableCondition = 'SecretsAvailable';
/**
 * Whether the cloud had capacity (and quota) for the Machine's instance at the last create attempt; set only
 * once a create was refused for want of it. While False, its lastTransitionTime is the first refusal.
 */
export const CapacityAvailableCondition = 'CapacityAvailable';
/** Set on a Machine while its deletion waits for the Node's volumes to detach (after the drain). */
export const VolumesDetachedCondition = 'VolumesDetached';
/** Set on a MachineHealthCheck with max-in-flight: False while unhealthy Machines wait for earlier remediations. */
export const RemediationInFlightAllowedCondition = 'RemediationInFlightAllowed';
/** On a MachineSet: whether every Machine it controls was made from its current template. */
export const UpToDateCondition = 'UpToDate';

// Condition reasons
export const MachineCreationSucceededReason = 'MachineCreationSucceeded';
export const MachineCreationFailedReason = 'MachineCreationFailed';
export const ErrorCheckingProviderReason = 'ErrorCheckingProvider';
export const InstanceMissingReason = 'InstanceMissing';
export const InstanceNotCreatedReason = 'InstanceNotCreated';
export const TooManyUnhealthyReason = 'TooManyUnhealthy';
export const SecretNotFoundReason = 'SecretNotFound';
export const SecretsFoundReason = 'SecretsFound';
export const InsufficientCapacityReason = 'InsufficientCapacity';
export const InstanceCreatedReason = 'InstanceCreated';
export const CreateFailedReason = 'CreateFailed';
export const ExternalRemediationTemplateNotFoundReason = 'ExternalRemediationTemplateNotFound';
export const ExternalRemediationRequestCreationFailedReason = 'ExternalRemediationRequestCreationFailed';
export const HookPresentReason = 'HookPresent';
export const DrainErrorReason = 'DrainError';
export const DrainTimeoutReason = 'DrainTimeout';
export const WaitingForVolumeDetachReason = 'WaitingForVolumeDetach';
export const VolumeDetachTimeoutReason = 'VolumeDetachTimeout';
export const MaxInFlightReachedReason = 'MaxInFlightReached';
export const PausedConditionReason = 'AuthoritativeAPINotMachineAPI';
export const NotPausedConditionReason = 'AuthoritativeAPIMachineAPI';
export const UpToDateReason = 'AsExpected';
export const RollingUpdateReason = 'RollingUpdate';
export const RolloutStalledReason = 'RolloutStalled';
export const RolloutPausedReason = 'RolloutPaused';
export const OnDeleteReason = 'OnDelete';

// Instance state written on Failed machines
export const InstanceStateUnknown = 'Unknown';

// Well-known namespaces
export const MachineAPINamespace = 'openshift-machine-api';
