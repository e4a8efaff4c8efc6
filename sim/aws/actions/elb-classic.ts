// Classic ELB (Query, Version 2012-06-01): DescribeLoadBalancers, RegisterInstancesWithLoadBalancer,
// DeregisterInstancesFromLoadBalancer, DescribeInstanceHealth. Terminated instances drop out on their own.
import { Ec2ApiError, missingParameter } from '../api-error.js';
import type { ClassicLoadBalancer } from '../model.js';
import { el, memberList, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';

function requireLb(ctx: ActionContext): ClassicLoadBalancer {
  const name = ctx.params.get('LoadBalancerName');
  if (name === undefined) throw missingParameter('LoadBalancerName');
  const lb = ctx.state.world.classicLoadBalancers.find((l) => l.name === name);
  if (!lb) throw new Ec2ApiError(400, 'LoadBalancerNotFound', `There is no ACTIVE Load Balancer named '${name}'`);
  return lb;
}

function requestedInstances(ctx: ActionContext): string[] {
  const ids = ctx.params.structList('Instances.member').map((m) => m.get('InstanceId') ?? '');
  if (ids.length === 0) throw missingParameter('Instances');
  return ids;
}

const instancesXml = (ids: readonly string[]) => memberList('Instances', ids, (id) => el('InstanceId', id));

export function elbDescribeLoadBalancers(ctx: ActionContext): XmlChild {
  const names = ctx.params.list('LoadBalancerNames.member');
  const all = ctx.state.world.classicLoadBalancers;
  const missing = names.filter((n) => !all.some((l) => l.name === n));
  if (missing.length > 0)
    throw new Ec2ApiError(400, 'LoadBalancerNotFound', `Cannot find Load Balancer ${missing.join(', ')}`);
  const selected = names.length === 0 ? all : all.filter((l) => names.includes(l.name));
  return memberList('LoadBalancerDescriptions', selected, (l) => [
    el('LoadBalancerName', l.name),
    el('DNSName', l.dnsName),
    el('VPCId', l.vpcId),
    el('Scheme', l.scheme),
    el('CreatedTime', l.createdTime),
    instancesXml(l.instances),
    memberList('Subnets', l.subnets, (s) => s),
    memberList('SecurityGroups', l.securityGroups, (s) => s),
    memberList(
      'AvailabilityZones',
      [...new Set(l.subnets.map((s) => ctx.state.world.subnets.find((x) => x.subnetId === s)?.availabilityZone ?? ''))],
      (z) => z,
    ),
  ]);
}

export function elbRegisterInstances(ctx: ActionContext): XmlChild {
  const lb = requireLb(ctx);
  const ids = requestedInstances(ctx);
  for (const id of ids) {
    const inst = ctx.state.instance(id);
    if (!inst || inst.state === 'terminated' || inst.vpcId !== lb.vpcId || !ctx.state.knobs.isVisible(id, 'by-id')) {
      throw new Ec2ApiError(400, 'InvalidInstance', `EC2 instance ${id} is not valid for load balancer '${lb.name}'`);
    }
  }
  for (const id of ids) if (!lb.instances.includes(id)) lb.instances.push(id);
  ctx.state.changed();
  return instancesXml(lb.instances);
}

export function elbDeregisterInstances(ctx: ActionContext): XmlChild {
  const lb = requireLb(ctx);
  const ids = requestedInstances(ctx);
  for (const id of ids) {
    if (!ctx.state.instance(id))
      throw new Ec2ApiError(400, 'InvalidInstance', `EC2 instance ${id} is not valid for load balancer '${lb.name}'`);
  }
  lb.instances = lb.instances.filter((id) => !ids.includes(id));
  ctx.state.changed();
  return instancesXml(lb.instances);
}

export function elbDescribeInstanceHealth(ctx: ActionContext): XmlChild {
  const lb = requireLb(ctx);
  const asked = ctx.params.structList('Instances.member').map((m) => m.get('InstanceId') ?? '');
  const ids = asked.length > 0 ? asked : lb.instances;
  for (const id of ids) {
    if (!lb.instances.includes(id))
      throw new Ec2ApiError(
        400,
        'InvalidInstance',
        `Could not find EC2 instance ${id} registered with load balancer '${lb.name}'`,
      );
  }
  return memberList('InstanceStates', ids, (id) => {
    const running = ctx.state.instance(id)?.state === 'running';
    return [
      el('InstanceId', id),
      el('State', running ? 'InService' : 'OutOfService'),
      el('ReasonCode', running ? 'N/A' : 'Instance'),
      el('Description', running ? 'N/A' : 'Instance is not running.'),
    ];
  });
}
