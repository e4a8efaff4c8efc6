// The core/v1 and friends kinds the controllers touch, reduced to the fields we use (plain JSON).
import type { KubeObject, LabelSelector, ObjectReference } from './meta.js';

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
  timeAdded?: string;
}

export type NodeAddressType = 'Hostname' | 'ExternalIP' | 'InternalIP' | 'ExternalDNS' | 'InternalDNS';

export interface NodeAddress {
  type: NodeAddressType | string;
  address: string;
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Node extends KubeObject {
  spec?: { providerID?: string; unschedulable?: boolean; taints?: Taint[]; podCIDR?: string };
  status?: {
    addresses?: NodeAddress[];
    conditions?: NodeCondition[];
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    nodeInfo?: Record<string, string>;
  };
}

export interface Volume {
  name: string;
  emptyDir?: Record<string, unknown>;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  [source: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    terminationGracePeriodSeconds?: number;
    volumes?: Volume[];
    containers?: Array<{ name: string; image?: string; [k: string]: unknown }>;
    [k: string]: unknown;
  };
  status?: { phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown'; [k: string]: unknown };
}

export interface Secret extends KubeObject {
  type?: string;
  /** base64-encoded values */
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export type Namespace = KubeObject;

export interface PodDisruptionBudget extends KubeObject {
  spec?: { minAvailable?: number | string; maxUnavailable?: number | string; selector?: LabelSelector };
  status?: {
    currentHealthy?: number;
    desiredHealthy?: number;
    disruptionsAllowed?: number;
    expectedPods?: number;
    observedGeneration?: number;
  };
}

export interface DaemonSet extends KubeObject {
  spec?: Record<string, unknown>;
}

/** storage.k8s.io/v1 VolumeAttachment: the attach/detach controller's record that a volume is attached to a Node. */
export interface VolumeAttachment extends KubeObject {
  spec?: { attacher?: string; nodeName?: string; source?: { persistentVolumeName?: string; [k: string]: unknown } };
  status?: { attached?: boolean; [k: string]: unknown };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: { volumeName?: string; [k: string]: unknown };
  status?: { phase?: string; [k: string]: unknown };
}

/** core/v1 Event. */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
  /** MicroTime (RFC 3339, microseconds) of the first occurrence. */
  eventTime?: string;
}

/** coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** policy/v1 Eviction, POSTed to pods/<name>/eviction. */
export interface Eviction extends KubeObject {
  deleteOptions?: { gracePeriodSeconds?: number };
}

/** autoscaling/v1 Scale. */
export interface Scale extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}
