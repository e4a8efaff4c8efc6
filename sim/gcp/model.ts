// The emulated GCE world: seed catalog (projects, regions, zones, machine types, images, networks, load
// balancing) plus the instances, disks, memberships and operations that calls create. Resources that GCE
// returns as JSON are kept in their wire shape (`resource`) so reads are a copy, not a re-rendering.

export type InstanceStatus =
  'PROVISIONING' | 'STAGING' | 'RUNNING' | 'STOPPING' | 'SUSPENDING' | 'SUSPENDED' | 'REPAIRING' | 'TERMINATED';

export type Architecture = 'X86_64' | 'ARM64';

export interface GceProject {
  name: string;
  /** Project number, a decimal string as GCE returns it. */
  id: string;
}

export interface GceRegion {
  name: string;
  /** Quota limits by metric (e.g. CPUS, NVIDIA_A100_GPUS); usage is computed from live instances. */
  quotaLimits: Record<string, number>;
}

export interface GceZone {
  name: string;
  region: string;
  status: 'UP' | 'DOWN';
}

export interface MachineTypeSpec {
  name: string;
  guestCpus: number;
  memoryMb: number;
  isSharedCpu: boolean;
  architecture: Architecture;
  /** Accelerators built into the type (A2, A3, G2). */
  accelerators?: { guestAcceleratorType: string; guestAcceleratorCount: number }[];
  /** Zones offering the type; undefined = every zone. */
  zones?: string[];
}

export interface AcceleratorTypeSpec {
  name: string;
  description: string;
  maximumCardsPerInstance: number;
  /** The region quota metric, e.g. NVIDIA_A100_GPUS. */
  quotaMetric: string;
  zones?: string[];
}

export interface GceImage {
  /** The project the image lives in (often a public image project such as "debian-cloud"). */
  project: string;
  name: string;
  id: string;
  family?: string;
  architecture: Architecture;
  diskSizeGb: number;
  guestOsFeatures: string[];
  creationTimestamp: string;
  status: 'READY' | 'PENDING' | 'FAILED';
  /** Set when the image is deprecated; getFromFamily skips DEPRECATED/OBSOLETE/DELETED images. */
  deprecatedState?: 'DEPRECATED' | 'OBSOLETE' | 'DELETED';
}

export interface GceSubnetwork {
  project: string;
  region: string;
  name: string;
  network: string;
  /** e.g. "10.0.0.0/17"; instance networkIPs are allocated from it. */
  ipCidrRange: string;
}

export interface GceNetwork {
  project: string;
  name: string;
}

export interface GceTargetPool {
  project: string;
  region: string;
  name: string;
  id: string;
  creationTimestamp: string;
  /** Instance self-links (https://www.googleapis.com/compute/v1/...). */
  instances: string[];
}

export interface GceInstanceGroup {
  project: string;
  zone: string;
  name: string;
  id: string;
  creationTimestamp: string;
  network?: string;
  subnetwork?: string;
  description?: string;
  namedPorts: { name: string; port: number }[];
  /** Instance self-links. */
  instances: string[];
  fingerprint: string;
}

/** A regional backend service, stored in its wire shape (the provider PUTs it back whole). */
export interface GceBackendService {
  project: string;
  region: string;
  name: string;
  resource: Record<string, unknown>;
}

export interface GceDisk {
  project: string;
  zone: string;
  name: string;
  resource: Record<string, unknown>;
}

/** A Cloud Resource Manager tag value, looked up by its namespaced name "<parentId>/<key>/<value>". */
export interface GceTagValue {
  /** "tagValues/<id>". */
  name: string;
  /** "tagKeys/<id>". */
  parent: string;
  namespacedName: string;
  shortName: string;
  createTime: string;
}

/** A lifecycle step due at a clock time. */
export interface Transition {
  to: InstanceStatus | 'DELETED';
  at: number;
}

export interface GceInstance {
  project: string;
  zone: string;
  name: string;
  /** The Instance as GCE renders it (status, networkInterfaces, labels, fingerprints...). */
  resource: Record<string, unknown>;
  transitions: Transition[];
  /** Set once a delete was accepted: the instance shows STOPPING and then disappears. */
  deleting?: boolean;
  /**
   * A preemption GCE has begun: the metadata server answers instance/preempted "TRUE" from `noticeAt`, and
   * the instance is stopped (or deleted, per its termination action) at `reclaimAt`.
   */
  preemption?: { noticeAt: number; reclaimAt: number };
  /** Creation order, for stable listing. */
  seq: number;
}

export type OperationScope = { kind: 'zone'; name: string } | { kind: 'region'; name: string } | { kind: 'global' };

export interface GceOperation {
  project: string;
  scope: OperationScope;
  name: string;
  id: string;
  operationType: string;
  targetLink: string;
  targetId?: string;
  user: string;
  insertTime: number;
  /** RUNNING from startAt, DONE from doneAt (both clock times). */
  startAt: number;
  doneAt: number;
  /** Reported once DONE: the asynchronous failure of the call (quota, stockout...). */
  error?: { code: string; message: string; httpStatus: number; httpMessage: string };
  statusMessage?: string;
  description?: string;
}

/** A requestId seen for a project: repeats of the same call return the original operation. */
export interface RequestIdRecord {
  operationName: string;
  /** The call it was first used for, e.g. "instances.insert" (GCE answers any repeat with the original operation). */
  call: string;
  at: number;
}

/** Everything the emulator knows; persisted as JSON when a dataDir is given. */
export interface GceWorld {
  projects: GceProject[];
  regions: GceRegion[];
  zones: GceZone[];
  machineTypes: MachineTypeSpec[];
  acceleratorTypes: AcceleratorTypeSpec[];
  diskTypes: string[];
  images: GceImage[];
  networks: GceNetwork[];
  subnetworks: GceSubnetwork[];
  targetPools: GceTargetPool[];
  instanceGroups: GceInstanceGroup[];
  backendServices: GceBackendService[];
  tagValues: GceTagValue[];
  instances: GceInstance[];
  disks: GceDisk[];
  operations: GceOperation[];
  /** Keyed by "<project>/<requestId>". */
  requestIds: Record<string, RequestIdRecord>;
  nextSeq: number;
}
