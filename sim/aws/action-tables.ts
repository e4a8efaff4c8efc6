// Which handler answers which action of which service.
import type { ActionTable } from './actions/action-context.js';
import { describeImages, describeInstanceTypes } from './actions/catalog.js';
import {
  elbDeregisterInstances,
  elbDescribeInstanceHealth,
  elbDescribeLoadBalancers,
  elbRegisterInstances,
} from './actions/elb-classic.js';
import {
  deregisterTargets,
  describeLoadBalancersV2,
  describeTargetGroups,
  describeTargetHealth,
  registerTargets,
} from './actions/elbv2.js';
import { allocateHosts, describeHosts, releaseHosts } from './actions/hosts.js';
import {
  describeInstanceStatus,
  describeInstances,
  startInstances,
  stopInstances,
  terminateInstances,
} from './actions/instances.js';
import {
  describeAvailabilityZones,
  describeDhcpOptions,
  describeRegions,
  describeSecurityGroups,
  describeSubnets,
  describeVpcs,
} from './actions/network.js';
import { runInstances } from './actions/run-instances.js';
import { assumeRoleWithWebIdentity } from './actions/sts.js';
import { createTags, deleteTags, describeTags } from './actions/tags.js';
import type { ServiceName } from './wire.js';

export const ACTIONS: Record<ServiceName, ActionTable> = {
  ec2: {
    RunInstances: runInstances,
    DescribeInstances: describeInstances,
    DescribeInstanceStatus: describeInstanceStatus,
    TerminateInstances: terminateInstances,
    StopInstances: stopInstances,
    StartInstances: startInstances,
    CreateTags: createTags,
    DeleteTags: deleteTags,
    DescribeTags: describeTags,
    DescribeInstanceTypes: describeInstanceTypes,
    DescribeImages: describeImages,
    DescribeSubnets: describeSubnets,
    DescribeSecurityGroups: describeSecurityGroups,
    DescribeVpcs: describeVpcs,
    DescribeDhcpOptions: describeDhcpOptions,
    DescribeAvailabilityZones: describeAvailabilityZones,
    DescribeRegions: describeRegions,
    AllocateHosts: allocateHosts,
    ReleaseHosts: releaseHosts,
    DescribeHosts: describeHosts,
  },
  elb: {
    DescribeLoadBalancers: elbDescribeLoadBalancers,
    RegisterInstancesWithLoadBalancer: elbRegisterInstances,
    DeregisterInstancesFromLoadBalancer: elbDeregisterInstances,
    DescribeInstanceHealth: elbDescribeInstanceHealth,
  },
  elbv2: {
    DescribeLoadBalancers: describeLoadBalancersV2,
    DescribeTargetGroups: describeTargetGroups,
    RegisterTargets: registerTargets,
    DeregisterTargets: deregisterTargets,
    DescribeTargetHealth: describeTargetHealth,
  },
  sts: {
    AssumeRoleWithWebIdentity: assumeRoleWithWebIdentity,
  },
};
