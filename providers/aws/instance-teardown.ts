// What deleting a Machine does at EC2 around the TerminateInstances call: its instances leave the load balancers
// first; a dynamically allocated dedicated host is released once they have terminated; and when they ended
// without our delete, the ip targets their addresses left behind are removed (EC2 removes only instance targets
// by itself). Each step carries the reference's metric reason.
import type { Instance } from '@aws-sdk/client-ec2';
import { MachineInstanceStateAnnotation, failureStep, type KubeClient } from '../../lib/index.js';
import { machineAddressHolderJudge } from './address-holder.js';
import { releaseDynamicHost } from './dedicated-hosts.js';
import { instanceState } from './instances.js';
import { deregisterEndedInstanceAddresses, deregisterFromLoadBalancers } from './load-balancers.js';
import type { MachineScope } from './machine-scope.js';

export interface InstanceTeardownOptions {
  /** Reads the Machines that may hold an ended instance's address now. */
  client: KubeClient;
  /** How long to wait for a termination before releasing the host. */
  requeueAfterMs: number;
}

export class InstanceTeardown {
  constructor(private readonly o: InstanceTeardownOptions) {}

  /** No instance of the Machine runs any more: clean up after them and record the Machine's instance terminated. */
  async afterInstancesGone(scope: MachineScope, signal: AbortSignal): Promise<void> {
    const { machine } = scope;
    const { ec2 } = scope.clients;
    const lbs = scope.spec.loadBalancers ?? [];
    if (lbs.length > 0) {
      const recorded = (machine.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
      const holders = machineAddressHolderJudge(this.o.client, machine.metadata.namespace ?? '', scope.clusterId);
      await failureStep('failed to remove instance from load balancers', () =>
        deregisterEndedInstanceAddresses(ec2, recorded, lbs, holders, signal),
      );
    }
    await failureStep('failed to release dedicated host', () =>
      releaseDynamicHost(scope, ec2, true, this.o.requeueAfterMs, signal),
    );
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: 'terminated' };
  }

  /** Takes the live instances off the load balancers and terminates those not shutting down yet: their ids, and the state to record. */
  async terminate(
    scope: MachineScope,
    live: Instance[],
    signal: AbortSignal,
  ): Promise<{ terminated: string[]; state: string }> {
    const { ec2 } = scope.clients;
    const lbs = scope.spec.loadBalancers ?? [];
    for (const i of live)
      await failureStep('failed to remove instance from load balancers', () =>
        deregisterFromLoadBalancers(ec2, i, lbs, signal),
      );
    const terminated = live.filter((i) => instanceState(i) !== 'shutting-down').map((i) => i.InstanceId ?? '');
    let state = 'shutting-down';
    if (terminated.length > 0) {
      const changes = await failureStep('failed to delete instances', () =>
        ec2.terminateInstances(terminated, { signal }),
      );
      if (changes.length === 1 && changes[0]?.CurrentState?.Name) state = changes[0].CurrentState.Name;
    }
    return { terminated, state };
  }

  /** Records the terminating state; a dynamic host is released once its instance has terminated: delete is called again until then. */
  async whileTerminating(scope: MachineScope, state: string, signal: AbortSignal): Promise<void> {
    const { machine } = scope;
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: state };
    await releaseDynamicHost(scope, scope.clients.ec2, false, this.o.requeueAfterMs, signal);
  }
}
