// A load balancer per cloud for the chaos MachineSet that registers with one, created in the emulator's world
// as an installer would have, and read back as the instances registered behind it: an AWS network load
// balancer with an instance and an ip target group (the provider registers with both), a GCE target pool.
// IBM Cloud's provider registers with no load balancer, so that cloud has none.
import type { Ec2Emulator } from '../../sim/aws/index.js';
import type { GceEmulator } from '../../sim/gcp/index.js';

/** One target group (AWS) or target pool (GCE) and what is registered in it. */
export interface LoadBalancerMembership {
  group: string;
  /** Each registration as the id of the live instance behind it, or as the bare target when no live instance is. */
  members: string[];
}

export interface BenchLoadBalancer {
  /** Merged into the providerSpec of the MachineSet whose Machines register with it. */
  providerSpecFields: Record<string, unknown>;
  memberships(): LoadBalancerMembership[];
}

export const CHAOS_LB_NAME = 'chaos-nlb';

export function addAwsLoadBalancer(emu: Ec2Emulator): BenchLoadBalancer {
  const w = emu.world;
  const model = w.targetGroups.find((t) => t.targetType === 'ip');
  if (!model) throw new Error('the EC2 emulator world has no target group to take the VPC from');
  const arnPrefix = model.arn.slice(0, model.arn.indexOf(':targetgroup/'));
  const lbArn = `${arnPrefix}:loadbalancer/net/${CHAOS_LB_NAME}/0c0a0b0c0d0e0f01`;
  const created = new Date().toISOString();
  w.loadBalancers.push({
    arn: lbArn,
    name: CHAOS_LB_NAME,
    type: 'network',
    scheme: 'internal',
    vpcId: model.vpcId,
    dnsName: `${CHAOS_LB_NAME}.elb.${emu.region}.amazonaws.com`,
    subnets: [],
    createdTime: created,
  });
  for (const [suffix, targetType, id] of [
    ['instances', 'instance', '0c0a0b0c0d0e0f02'],
    ['ips', 'ip', '0c0a0b0c0d0e0f03'],
  ] as const) {
    const name = `${CHAOS_LB_NAME}-${suffix}`;
    w.targetGroups.push({
      arn: `${arnPrefix}:targetgroup/${name}/${id}`,
      name,
      protocol: 'TCP',
      port: 443,
      vpcId: model.vpcId,
      targetType,
      loadBalancerArns: [lbArn],
      targets: [],
    });
  }
  return {
    providerSpecFields: { loadBalancers: [{ name: CHAOS_LB_NAME, type: 'network' }] },
    memberships() {
      // An address stands for the live instance that holds it; a terminated one's address stays bare.
      const byIp = new Map(
        emu
          .instances()
          .filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down')
          .map((i) => [i.privateIpAddress, i.instanceId]),
      );
      return w.targetGroups
        .filter((t) => t.loadBalancerArns.includes(lbArn))
        .map((t) => ({
          group: t.name,
          members: t.targets.map((x) => (t.targetType === 'ip' ? (byIp.get(x.id) ?? x.id) : x.id)),
        }));
    },
  };
}

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
