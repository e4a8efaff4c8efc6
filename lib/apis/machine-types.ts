// machine.openshift.io/v1beta1 Machine, MachineSet and MachineHealthCheck, as plain JSON.
import type { NodeAddress, Taint } from './core.js';
import type { KubeObject, LabelSelector, ObjectMeta, ObjectReference } from './meta.js';

export const MACHINE_API_GROUP = 'machine.openshift.io';
export const MACHINE_API_VERSION = 'v1beta1';
export const MACHINE_API_GROUP_VERSION = `${MACHINE_API_GROUP}/${MACHINE_API_VERSION}`;

export type MachinePhase = 'Provisioning' | 'Provisioned' | 'Running' | 'Deleting' | 'Failed';

export type MachineStatusError =
  | 'InvalidConfiguration'
  | 'UnsupportedChange'
  | 'InsufficientResources'
  | 'CreateError'
  | 'UpdateError'
  | 'DeleteError'
  | 'JoinClusterTimeoutError'
  | 'IPAddressInvalid';

export type MachineAuthority = 'MachineAPI' | 'ClusterAPI' | 'Migrating';

export type ConditionStatus = 'True' | 'False' | 'Unknown';
export type ConditionSeverity = 'Error' | 'Warning' | 'Info' | '';

/** The Machine API condition (openshift/api machine/v1beta1 Condition), not metav1.Condition. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  severity?: ConditionSeverity;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface LifecycleHook {
  name: string;
  owner: string;
}

export interface LifecycleHooks {
  preDrain?: LifecycleHook[];
  preTerminate?: LifecycleHook[];
}

/** spec.providerSpec: the provider's configuration, opaque to the library. */
export interface ProviderSpec {
  value?: Record<string, unknown> | null;
}

/** The labels, annotations and taints the machine wants on its Node (spec.metadata). */
export interface MachineNodeMetadata {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  name?: string;
  generateName?: string;
  namespace?: string;
  ownerReferences?: ObjectMeta['ownerReferences'];
}

export interface MachineSpec {
  metadata?: MachineNodeMetadata;
  lifecycleHooks?: LifecycleHooks;
  taints?: Taint[];
  providerSpec?: ProviderSpec;
  providerID?: string;
  authoritativeAPI?: MachineAuthority;
}

export interface MachineStatus {
  nodeRef?: ObjectReference;
  lastUpdated?: string;
  errorReason?: MachineStatusError | string;
  errorMessage?: string;
  providerStatus?: Record<string, unknown> | null;
  addresses?: NodeAddress[];
  lastOperation?: { description?: string; lastUpdated?: string; state?: string; type?: string };
  phase?: MachinePhase | string;
  conditions?: Condition[];
  authoritativeAPI?: MachineAuthority | '';
  /** The last stable authoritativeAPI (never Migrating), kept to undo a cancelled migration. */
  synchronizedAPI?: Exclude<MachineAuthority, 'Migrating'>;
  synchronizedGeneration?: number;
}

export interface Machine extends KubeObject {
  spec?: MachineSpec;
  status?: MachineStatus;
}

export type MachineSetDeletePolicy = 'Random' | 'Newest' | 'Oldest';

export interface MachineTemplateSpec {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: MachineSpec;
}

export interface MachineSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  deletePolicy?: MachineSetDeletePolicy | string;
  selector: LabelSelector;
  template?: MachineTemplateSpec;
  authoritativeAPI?: MachineAuthority;
}

export interface MachineSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  errorReason?: string;
  errorMessage?: string;
  labelSelector?: string;
  conditions?: Condition[];
  authoritativeAPI?: MachineAuthority | '';
  /** The last stable authoritativeAPI (never Migrating), kept to undo a cancelled migration. */
  synchronizedAPI?: Exclude<MachineAuthority, 'Migrating'>;
  synchronizedGeneration?: number;
}

export interface MachineSet extends KubeObject {
  spec?: MachineSetSpec;
  status?: MachineSetStatus;
}

export interface UnhealthyCondition {
  type: string;
  status: ConditionStatus;
  /** A Go duration string, e.g. "300s" or "5m". */
  timeout: string;
}

export interface MachineHealthCheckSpec {
  selector: LabelSelector;
  unhealthyConditions?: UnhealthyCondition[];
  /** An int or a percentage string ("40%"); the CRD defaults it to "100%". */
  maxUnhealthy?: number | string;
  /** A Go duration string; "0" disables the startup check; the CRD defaults it to "10m". */
  nodeStartupTimeout?: string;
  remediationTemplate?: ObjectReference;
}

export interface MachineHealthCheckStatus {
  expectedMachines?: number;
  currentHealthy?: number;
  remediationsAllowed?: number;
  conditions?: Condition[];
}

export interface MachineHealthCheck extends KubeObject {
  spec?: MachineHealthCheckSpec;
  status?: MachineHealthCheckStatus;
}
