// ELBv2 (Query, Version 2015-12-01): DescribeLoadBalancers, DescribeTargetGroups, RegisterTargets,
// DeregisterTargets, DescribeTargetHealth. Target health follows the instance behind the target.
import { cidrContains } from '../addressing.js';
import { Ec2ApiError, missingParameter, invalidParameterValue } from '../api-error.js';
import type { Ec2Instance, TargetGroup } from '../model.js';
import { pageByOffset } from '../pagination.js';
import { el, memberList, opt, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';

const lbNotFound = () => new Ec2ApiError(400, 'LoadBalancerNotFound', 'One or more load balancers not found');
const tgNotFound = () => new Ec2ApiError(400, 'TargetGroupNotFound', 'One or more target groups not found');

function readPageSize(ctx: ActionContext): number {
  const n = ctx.params.int('PageSize') ?? 400;
  if (n < 1 || n > 400)
    throw new Ec2ApiError(
      400,
      'ValidationError',
      `1 validation error detected: Value '${n}' at 'pageSize' failed to satisfy constraint: Member must have value between 1 and 400`,
    );
  return n;
}

export function describeLoadBalancersV2(ctx: ActionContext): XmlChild {
  const w = ctx.state.world;
  const names = ctx.params.list('Names.member');
  const arns = ctx.params.list('LoadBalancerArns.member');
  if (names.length > 0 && arns.length > 0)
    throw new Ec2ApiError(
      400,
      'ValidationError',
      'Load balancer names and load balancer ARNs cannot be specified at the same time',
    );
  if (
    names.some((n) => !w.loadBalancers.some((l) => l.name === n)) ||
    arns.some((a) => !w.loadBalancers.some((l) => l.arn === a))
  )
    throw lbNotFound();
  const selected = w.loadBalancers.filter(
    (l) => (names.length === 0 || names.includes(l.name)) && (arns.length === 0 || arns.includes(l.arn)),
  );
  const { page, nextToken } = pageByOffset(selected, 'elbv2-lbs', ctx.params.get('Marker'), readPageSize(ctx));
  return [
    memberList('LoadBalancers', page, (l) => [
      el('LoadBalancerArn', l.arn),
      el('DNSName', l.dnsName),
      el('CanonicalHostedZoneId', 'Z26RNL4JYFTOTI'),
      el('CreatedTime', l.createdTime),
      el('LoadBalancerName', l.name),
      el('Scheme', l.scheme),
      el('VpcId', l.vpcId),
      el('State', el('Code', 'active')),
      el('Type', l.type),
      memberList('AvailabilityZones', l.subnets, (s) => [
        el('ZoneName', w.subnets.find((x) => x.subnetId === s)?.availabilityZone ?? ''),
        el('SubnetId', s),
      ]),
      el('IpAddressType', 'ipv4'),
    ]),
    opt('NextMarker', nextToken),
  ];
}

export function describeTargetGroups(ctx: ActionContext): XmlChild {
  const w = ctx.state.world;
  const lbArn = ctx.params.get('LoadBalancerArn');
  const arns = ctx.params.list('TargetGroupArns.member');
  const names = ctx.params.list('Names.member');
  if (lbArn !== undefined && !w.loadBalancers.some((l) => l.arn === lbArn)) throw lbNotFound();
  if (
    arns.some((a) => !w.targetGroups.some((t) => t.arn === a)) ||
    names.some((n) => !w.targetGroups.some((t) => t.name === n))
  )
    throw tgNotFound();
  const selected = w.targetGroups.filter(
    (t) =>
      (lbArn === undefined || t.loadBalancerArns.includes(lbArn)) &&
      (arns.length === 0 || arns.includes(t.arn)) &&
      (names.length === 0 || names.includes(t.name)),
  );
  const { page, nextToken } = pageByOffset(selected, 'elbv2-tgs', ctx.params.get('Marker'), readPageSize(ctx));
  return [
    memberList('TargetGroups', page, (t) => [
      el('TargetGroupArn', t.arn),
      el('TargetGroupName', t.name),
      el('Protocol', t.protocol),
      el('Port', t.port),
      el('VpcId', t.vpcId),
      el('HealthCheckProtocol', t.protocol),
      el('HealthCheckPort', 'traffic-port'),
      el('HealthCheckEnabled', true),
      el('HealthCheckIntervalSeconds', 10),
      el('HealthCheckTimeoutSeconds', 10),
      el('HealthyThresholdCount', 2),
      el('UnhealthyThresholdCount', 2),
      memberList('LoadBalancerArns', t.loadBalancerArns, (a) => a),
      el('TargetType', t.targetType),
      el('IpAddressType', 'ipv4'),
    ]),
    opt('NextMarker', nextToken),
  ];
}

function requireTargetGroup(ctx: ActionContext): TargetGroup {
  const arn = ctx.params.get('TargetGroupArn');
  if (arn === undefined) throw missingParameter('TargetGroupArn');
  const tg = ctx.state.world.targetGroups.find((t) => t.arn === arn);
  if (!tg) throw tgNotFound();
  return tg;
}

function readTargets(ctx: ActionContext, tg: TargetGroup): { id: string; port: number; availabilityZone?: string }[] {
  const targets = ctx.params.structList('Targets.member').map((m) => {
    const id = m.get('Id');
    if (!id) throw missingParameter('Targets.member.N.Id');
    return { id, port: m.int('Port') ?? tg.port, availabilityZone: m.get('AvailabilityZone') };
  });
  if (targets.length === 0) throw missingParameter('Targets');
  return targets;
}

/** The instance serving a target: by id for instance target groups, by private IPv4 for ip ones. */
function instanceBehind(ctx: ActionContext, tg: TargetGroup, id: string): Ec2Instance | undefined {
  const live = ctx.state.world.instances.filter((i) => i.state !== 'terminated');
  return tg.targetType === 'instance'
    ? live.find((i) => i.instanceId === id)
    : live.find((i) => i.privateIpAddress === id);
}

export function registerTargets(ctx: ActionContext): XmlChild {
  const tg = requireTargetGroup(ctx);
  const targets = readTargets(ctx, tg);
  const vpc = ctx.state.world.vpcs.find((v) => v.vpcId === tg.vpcId);
  for (const t of targets) {
    if (tg.targetType === 'instance') {
      const inst = ctx.state.instance(t.id);
      if (!inst || !ctx.state.knobs.isVisible(t.id, 'by-id'))
        throw new Ec2ApiError(400, 'InvalidTarget', `The following targets are not valid instances: '${t.id}'`);
      if (inst.state !== 'running') {
        throw new Ec2ApiError(
          400,
          'InvalidTarget',
          `The following targets are not in a running state and cannot be registered: '${t.id}'`,
        );
      }
      if (inst.vpcId !== tg.vpcId)
        throw new Ec2ApiError(
          400,
          'InvalidTarget',
          `The following targets are not in the target group VPC '${tg.vpcId}': '${t.id}'`,
        );
    } else if (tg.targetType === 'ip') {
      if (!vpc || !cidrContains(vpc.cidrBlock, t.id)) {
        throw new Ec2ApiError(
          400,
          'InvalidTarget',
          `The IP address '${t.id}' is not within the CIDR of the target group VPC '${tg.vpcId}'`,
        );
      }
    } else {
      throw invalidParameterValue(
        `The emulator does not support registering targets in ${tg.targetType} target groups`,
      );
    }
  }
  for (const t of targets) {
    if (!tg.targets.some((x) => x.id === t.id && x.port === t.port)) tg.targets.push(t);
  }
  ctx.state.changed();
  return [];
}

export function deregisterTargets(ctx: ActionContext): XmlChild {
  const tg = requireTargetGroup(ctx);
  const targets = readTargets(ctx, tg);
  const notRegistered = targets.filter((t) => !tg.targets.some((x) => x.id === t.id));
  if (notRegistered.length > 0) {
    throw new Ec2ApiError(
      400,
      'InvalidTarget',
      `The following targets are not registered in target group '${tg.name}': '${notRegistered.map((t) => t.id).join("', '")}'`,
    );
  }
  tg.targets = tg.targets.filter(
    (x) => !targets.some((t) => t.id === x.id && (t.port === x.port || t.port === tg.port)),
  );
  ctx.state.changed();
  return [];
}

export function describeTargetHealth(ctx: ActionContext): XmlChild {
  const tg = requireTargetGroup(ctx);
  const asked = ctx.params.structList('Targets.member').map((m) => m.get('Id') ?? '');
  const targets = asked.length > 0 ? tg.targets.filter((t) => asked.includes(t.id)) : tg.targets;
  return memberList('TargetHealthDescriptions', targets, (t) => {
    const inst = instanceBehind(ctx, tg, t.id);
    const health =
      inst?.state === 'running'
        ? { state: 'healthy' }
        : inst?.state === 'pending'
          ? {
              state: 'initial',
              reason: 'Elb.RegistrationInProgress',
              description: 'Target registration is in progress',
            }
          : inst
            ? { state: 'unused', reason: 'Target.InvalidState', description: 'Target is in the stopped state' }
            : { state: 'unhealthy', reason: 'Target.FailedHealthChecks', description: 'Health checks failed' };
    return [
      el('Target', el('Id', t.id), el('Port', t.port), opt('AvailabilityZone', t.availabilityZone)),
      el('HealthCheckPort', String(t.port)),
      el(
        'TargetHealth',
        el('State', health.state),
        opt('Reason', health.reason),
        opt('Description', health.description),
      ),
    ];
  });
}
