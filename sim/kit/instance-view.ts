// The view of a cloud emulator's instances that the KubeletSimulator turns into Nodes.
import type { NodeAddress } from '../../lib/apis/core.js';

export type EmulatedInstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'terminating' | 'terminated';

export interface EmulatedInstance {
  /** The providerID the Node must carry, e.g. "aws:///us-east-1a/i-0123". */
  providerID: string;
  /** The Node name the kubelet would register (e.g. the private DNS name). */
  nodeName: string;
  state: EmulatedInstanceState;
  addresses: NodeAddress[];
  /** Labels the kubelet would set from the instance (instance type, zone, region, arch). */
  labels?: Record<string, string>;
  /** What the instance type gives the Node (vCPUs, memory, GPUs); the kubelet simulator reports it as capacity. */
  capacity?: { cpu: number; memoryMiB: number; gpus?: number };
}

export interface InstanceView {
  /** Every instance the cloud knows, including recently terminated ones. */
  listInstances(): EmulatedInstance[];
  /** Called whenever an instance changes state; returns a function that unsubscribes. */
  onChange(listener: () => void): () => void;
}
