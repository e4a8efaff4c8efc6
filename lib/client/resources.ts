// Resource descriptors: where a kind lives in the REST API. The type parameter ties a descriptor to the
// object shape, so `client.get(Machines, ...)` returns a Machine.
import type {
  ConfigMap,
  CoreEvent,
  DaemonSet,
  Lease,
  Namespace,
  Node,
  Pod,
  PersistentVolumeClaim,
  PodDisruptionBudget,
  Secret,
  VolumeAttachment,
} from '../apis/core.js';
import type { Machine, MachineHealthCheck, MachineSet } from '../apis/machine-types.js';
import type { KubeObject } from '../apis/meta.js';

export interface Resource<T extends KubeObject = KubeObject> {
  /** "" for the core group. */
  group: string;
  version: string;
  /** Lower-case plural, as in the URL. */
  plural: string;
  kind: string;
  namespaced: boolean;
  /** Phantom field carrying the object type; never set. */
  readonly __type?: T;
}

export function defineResource<T extends KubeObject>(r: Omit<Resource<T>, '__type'>): Resource<T> {
  return r;
}

export function apiVersionOf(r: Resource): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

export const Machines = defineResource<Machine>({
  group: 'machine.openshift.io',
  version: 'v1beta1',
  plural: 'machines',
  kind: 'Machine',
  namespaced: true,
});
export const MachineSets = defineResource<MachineSet>({
  group: 'machine.openshift.io',
  version: 'v1beta1',
  plural: 'machinesets',
  kind: 'MachineSet',
  namespaced: true,
});
export const MachineHealthChecks = defineResource<MachineHealthCheck>({
  group: 'machine.openshift.io',
  version: 'v1beta1',
  plural: 'machinehealthchecks',
  kind: 'MachineHealthCheck',
  namespaced: true,
});
export const Nodes = defineResource<Node>({
  group: '',
  version: 'v1',
  plural: 'nodes',
  kind: 'Node',
  namespaced: false,
});
export const Pods = defineResource<Pod>({ group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true });
export const Secrets = defineResource<Secret>({
  group: '',
  version: 'v1',
  plural: 'secrets',
  kind: 'Secret',
  namespaced: true,
});
export const ConfigMaps = defineResource<ConfigMap>({
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
});
export const Namespaces = defineResource<Namespace>({
  group: '',
  version: 'v1',
  plural: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
});
export const Events = defineResource<CoreEvent>({
  group: '',
  version: 'v1',
  plural: 'events',
  kind: 'Event',
  namespaced: true,
});
export const Leases = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
});
export const PodDisruptionBudgets = defineResource<PodDisruptionBudget>({
  group: 'policy',
  version: 'v1',
  plural: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  namespaced: true,
});
export const VolumeAttachments = defineResource<VolumeAttachment>({
  group: 'storage.k8s.io',
  version: 'v1',
  plural: 'volumeattachments',
  kind: 'VolumeAttachment',
  namespaced: false,
});
export const PersistentVolumeClaims = defineResource<PersistentVolumeClaim>({
  group: '',
  version: 'v1',
  plural: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
});
export const DaemonSets = defineResource<DaemonSet>({
  group: 'apps',
  version: 'v1',
  plural: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
});
