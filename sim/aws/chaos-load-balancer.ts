// The chaos run's AWS load balancer, created in the EC2 emulator's world as an installer would have: a network
// load balancer with an instance and an ip target group (the provider registers with both), read back as the
// instances registered behind it.
import { CHAOS_LB_NAME, type BenchLoadBalancer } from '../kit/bench-cloud.js';
import type { Ec2Emulator } from './ec2-emulator.js';

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
