// The view of a cloud emulator's instances that the KubeletSimulator turns into Nodes.
import type { NodeAddress } from '../../lib/apis/core.js';

/**
 * An instance's state in cloud-neutral terms. Each emulator maps its cloud's states: one booting (again, after
 * a stop) is pending; a stopped one is stopped (GCE's TERMINATED and SUSPENDED too); only an instance being
 * deleted is terminating, and terminated once deleted.
 */
export type EmulatedInstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'terminating' | 'terminated';

/** Whether the instance is being deleted or is gone: only then does its Node go; a stopped one keeps it. */
export function isTerminated(state: EmulatedInstanceState): boolean {
  return state === 'terminating' || state === 'terminated';
}

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

/**
 * The states one instance passes through, as the view shows them at each change (a repeat is kept once);
 * `states` grows until `stop()`. Lets a test check the states an emulator's stop, start or deletion map to.
 */
export function stateHistory(view: InstanceView, nodeName: string): { states: EmulatedInstanceState[]; stop(): void } {
  const states: EmulatedInstanceState[] = [];
  const look = (): void => {
    const state = view.listInstances().find((i) => i.nodeName === nodeName)?.state;
    if (state !== undefined && states.at(-1) !== state) states.push(state);
  };
  look();
  return { states, stop: view.onChange(look) };
}
