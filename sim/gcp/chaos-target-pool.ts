// The chaos run's GCE load balancer: a target pool created in the emulator's world as an installer would have,
// read back as the instances registered in it.
import type { BenchLoadBalancer } from '../kit/bench-cloud.js';
import type { GceEmulator } from './gce-emulator.js';

export function addGcpTargetPool(emu: GceEmulator, project: string, region: string): BenchLoadBalancer {
  const name = 'chaos-pool';
  emu.world.targetPools.push({
    project,
    region,
    name,
    id: '7400000000000000001',
    creationTimestamp: new Date().toISOString(),
    instances: [],
  });
  return {
    providerSpecFields: { targetPools: [name] },
    memberships: () =>
      emu.world.targetPools
        .filter((t) => t.name === name && t.project === project && t.region === region)
        // Instances are named after their Machine; the self-link ends with the name.
        .map((t) => ({ group: name, members: t.instances.map((link) => link.split('/').pop() ?? link) })),
  };
}
