// The Node object a simulated kubelet registers for an instance: the labels, addresses and providerID a
// kubelet sets, its nodeInfo, and capacity and allocatable from the instance type.
import type { Node } from '../../lib/apis/core.js';
import type { EmulatedInstance } from './instance-view.js';

/** What the kubelet keeps for the system on an OpenShift node (systemReserved): 500m CPU, 1 GiB memory. */
const RESERVED_MILLICPU = 500;
const RESERVED_MIB = 1024;

/** Marks the Nodes the simulator registered, so a restarted simulator finds (and adopts or removes) its own. */
export const managedByLabel = 'machine-api-ts.openshift.io/kubelet-simulator';

export interface SimulatedNodeOptions {
  /** Extra labels put on the node. */
  nodeLabels?: Record<string, string>;
  /** The kubelet version the node reports. */
  kubeletVersion: string;
}

/** The Node a kubelet on this instance registers (no conditions yet: the simulator writes Ready next). */
export function newNode(inst: EmulatedInstance, o: SimulatedNodeOptions): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: inst.nodeName,
      labels: {
        'kubernetes.io/hostname': inst.nodeName,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
        ...inst.labels,
        ...o.nodeLabels,
        [managedByLabel]: 'true',
      },
    },
    spec: { providerID: inst.providerID },
    status: {
      addresses: inst.addresses,
      conditions: [],
      ...resources(inst),
      nodeInfo: nodeInfo(inst, o.kubeletVersion),
    },
  };
}

function nodeInfo(inst: EmulatedInstance, version: string): Record<string, string> {
  const id = inst.providerID.split('/').at(-1) ?? inst.nodeName;
  return {
    kubeletVersion: version,
    kubeProxyVersion: '',
    containerRuntimeVersion: `cri-o://${version.replace(/^v/, '')}`,
    operatingSystem: 'linux',
    architecture: inst.labels?.['kubernetes.io/arch'] ?? 'amd64',
    osImage: 'Red Hat Enterprise Linux CoreOS (simulated)',
    kernelVersion: '5.14.0-427.el9_4.x86_64',
    machineID: id,
    systemUUID: id,
    bootID: inst.providerID,
  };
}

/** Capacity from the instance type, and allocatable as the kubelet computes it: capacity less what the system keeps. */
function resources(inst: EmulatedInstance): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const cpu = inst.capacity?.cpu ?? 4;
  const mib = inst.capacity?.memoryMiB ?? 16 * 1024;
  const gpus = inst.capacity?.gpus ?? 0;
  const gpu: Record<string, string> = gpus > 0 ? { 'nvidia.com/gpu': String(gpus) } : {};
  const common = {
    pods: '250',
    'ephemeral-storage': '125293548Ki',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    ...gpu,
  };
  return {
    capacity: { cpu: String(cpu), memory: `${mib}Mi`, ...common },
    allocatable: {
      cpu: `${Math.max(0, cpu * 1000 - RESERVED_MILLICPU)}m`,
      memory: `${Math.max(0, mib - RESERVED_MIB)}Mi`,
      ...common,
    },
  };
}
