// The EC2 / ELB / ELBv2 calls this provider makes, as one narrow interface (tests can fake it), and its
// implementation over the AWS SDK v3. Every attempt of every call waits in the shared rate limiter (the clients'
// middleware, metered-attempts.ts).
import {
  AllocateHostsCommand,
  CreateTagsCommand,
  DescribeAvailabilityZonesCommand,
  DescribeDhcpOptionsCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  ReleaseHostsCommand,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type AvailabilityZone,
  type DhcpOptions,
  type EC2Client,
  type Filter as Ec2Filter,
  type Image,
  type Instance,
  type InstanceStateChange,
  type InstanceTypeInfo as Ec2InstanceTypeInfo,
  type RunInstancesCommandInput,
  type SecurityGroup,
  type Subnet,
  type Tag,
  type Vpc,
} from '@aws-sdk/client-ec2';
import {
  RegisterInstancesWithLoadBalancerCommand,
  type ElasticLoadBalancingClient,
} from '@aws-sdk/client-elastic-load-balancing';
import {
  DeregisterTargetsCommand,
  DescribeLoadBalancersCommand,
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  RegisterTargetsCommand,
  type ElasticLoadBalancingV2Client,
} from '@aws-sdk/client-elastic-load-balancing-v2';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface TargetGroupRef {
  arn: string;
  targetType: string;
}

export interface Ec2Api {
  readonly region: string;
  runInstances(input: RunInstancesCommandInput, opts?: CallOptions): Promise<Instance>;
  /** By ids (unknown ids reject with InvalidInstanceID.NotFound) or by filters (all pages). */
  /** Every page; `maxResults` (5–1,000, not with instanceIds) sets the page size. */
  describeInstances(
    query: { instanceIds?: string[]; filters?: Ec2Filter[]; maxResults?: number },
    opts?: CallOptions,
  ): Promise<Instance[]>;
  terminateInstances(instanceIds: string[], opts?: CallOptions): Promise<InstanceStateChange[]>;
  createTags(resourceId: string, tags: Tag[], opts?: CallOptions): Promise<void>;
  describeImages(query: { imageIds?: string[]; filters?: Ec2Filter[] }, opts?: CallOptions): Promise<Image[]>;
  describeSubnets(query: { subnetIds?: string[]; filters?: Ec2Filter[] }, opts?: CallOptions): Promise<Subnet[]>;
  describeAvailabilityZones(zoneNames: string[], opts?: CallOptions): Promise<AvailabilityZone[]>;
  describeSecurityGroups(filters: Ec2Filter[], opts?: CallOptions): Promise<SecurityGroup[]>;
  describeVpcs(vpcIds: string[], opts?: CallOptions): Promise<Vpc[]>;
  describeDhcpOptions(ids: string[], opts?: CallOptions): Promise<DhcpOptions[]>;
  /** Allocates one dedicated host (AutoPlacement off); idempotent on clientToken. Returns its id. */
  allocateHost(
    input: { instanceType: string; availabilityZone: string; tags: Tag[]; clientToken: string },
    opts?: CallOptions,
  ): Promise<string>;
  /** Releases hosts; resolves with the ids EC2 could not release and why. */
  releaseHosts(hostIds: string[], opts?: CallOptions): Promise<Array<{ id: string; code: string; message: string }>>;
  /** Every instance type the region offers (all pages). */
  describeInstanceTypes(opts?: CallOptions): Promise<Ec2InstanceTypeInfo[]>;
  registerInstanceWithClassicLoadBalancer(
    loadBalancerName: string,
    instanceId: string,
    opts?: CallOptions,
  ): Promise<void>;
  /** Network load balancer ARNs by name. */
  describeNetworkLoadBalancers(names: string[], opts?: CallOptions): Promise<Array<{ name: string; arn: string }>>;
  describeTargetGroups(loadBalancerArn: string, opts?: CallOptions): Promise<TargetGroupRef[]>;
  /** Ids of the targets registered with a target group. */
  describeTargetHealth(targetGroupArn: string, opts?: CallOptions): Promise<string[]>;
  registerTarget(targetGroupArn: string, targetId: string, opts?: CallOptions): Promise<void>;
  deregisterTarget(targetGroupArn: string, targetId: string, opts?: CallOptions): Promise<void>;
}

export interface SdkEc2ApiOptions {
  region: string;
  ec2: EC2Client;
  elb: ElasticLoadBalancingClient;
  elbv2: ElasticLoadBalancingV2Client;
}

const MAX_PAGES = 1000;

export class SdkEc2Api implements Ec2Api {
  readonly region: string;

  constructor(private readonly o: SdkEc2ApiOptions) {
    this.region = o.region;
  }

  /** Sends a command; the clients' own middleware meters each attempt (metered-attempts.ts). */
  private call<T>(opts: CallOptions | undefined, send: (abortSignal?: AbortSignal) => Promise<T>): Promise<T> {
    return send(opts?.signal);
  }

  async runInstances(input: RunInstancesCommandInput, opts?: CallOptions): Promise<Instance> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new RunInstancesCommand(input), { abortSignal }),
    );
    const instances = out.Instances ?? [];
    const first = instances[0];
    if (instances.length !== 1 || !first?.InstanceId)
      throw new Error(`unexpected reservation creating instance: ${instances.length} instances returned`);
    return first;
  }

  async describeInstances(
    query: { instanceIds?: string[]; filters?: Ec2Filter[]; maxResults?: number },
    opts?: CallOptions,
  ): Promise<Instance[]> {
    const out: Instance[] = [];
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.call(opts, (abortSignal) =>
        this.o.ec2.send(
          new DescribeInstancesCommand({
            InstanceIds: query.instanceIds,
            Filters: query.filters,
            MaxResults: query.maxResults,
            NextToken: token,
          }),
          { abortSignal },
        ),
      );
      for (const r of res.Reservations ?? []) for (const i of r.Instances ?? []) if (i.InstanceId) out.push(i);
      token = res.NextToken;
      if (!token) break;
    }
    return out;
  }

  async terminateInstances(instanceIds: string[], opts?: CallOptions): Promise<InstanceStateChange[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new TerminateInstancesCommand({ InstanceIds: instanceIds }), { abortSignal }),
    );
    return out.TerminatingInstances ?? [];
  }

  async createTags(resourceId: string, tags: Tag[], opts?: CallOptions): Promise<void> {
    await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new CreateTagsCommand({ Resources: [resourceId], Tags: tags }), { abortSignal }),
    );
  }

  async describeImages(query: { imageIds?: string[]; filters?: Ec2Filter[] }, opts?: CallOptions): Promise<Image[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new DescribeImagesCommand({ ImageIds: query.imageIds, Filters: query.filters }), { abortSignal }),
    );
    return out.Images ?? [];
  }

  async describeSubnets(query: { subnetIds?: string[]; filters?: Ec2Filter[] }, opts?: CallOptions): Promise<Subnet[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new DescribeSubnetsCommand({ SubnetIds: query.subnetIds, Filters: query.filters }), {
        abortSignal,
      }),
    );
    return out.Subnets ?? [];
  }

  async describeAvailabilityZones(zoneNames: string[], opts?: CallOptions): Promise<AvailabilityZone[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new DescribeAvailabilityZonesCommand({ ZoneNames: zoneNames }), { abortSignal }),
    );
    return out.AvailabilityZones ?? [];
  }

  async describeSecurityGroups(filters: Ec2Filter[], opts?: CallOptions): Promise<SecurityGroup[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new DescribeSecurityGroupsCommand({ Filters: filters }), { abortSignal }),
    );
    return out.SecurityGroups ?? [];
  }

  async describeVpcs(vpcIds: string[], opts?: CallOptions): Promise<Vpc[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new DescribeVpcsCommand({ VpcIds: vpcIds }), { abortSignal }),
    );
    return out.Vpcs ?? [];
  }

  async describeDhcpOptions(ids: string[], opts?: CallOptions): Promise<DhcpOptions[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new DescribeDhcpOptionsCommand({ DhcpOptionsIds: ids }), { abortSignal }),
    );
    return out.DhcpOptions ?? [];
  }

  async allocateHost(
    input: { instanceType: string; availabilityZone: string; tags: Tag[]; clientToken: string },
    opts?: CallOptions,
  ): Promise<string> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(
        new AllocateHostsCommand({
          InstanceType: input.instanceType,
          AvailabilityZone: input.availabilityZone,
          Quantity: 1,
          AutoPlacement: 'off',
          ClientToken: input.clientToken,
          TagSpecifications: input.tags.length > 0 ? [{ ResourceType: 'dedicated-host', Tags: input.tags }] : undefined,
        }),
        { abortSignal },
      ),
    );
    const id = out.HostIds?.[0];
    if (!id) throw new Error('AllocateHosts returned no host id');
    return id;
  }

  async releaseHosts(
    hostIds: string[],
    opts?: CallOptions,
  ): Promise<Array<{ id: string; code: string; message: string }>> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.ec2.send(new ReleaseHostsCommand({ HostIds: hostIds }), { abortSignal }),
    );
    return (out.Unsuccessful ?? []).map((u) => ({
      id: u.ResourceId ?? '',
      code: u.Error?.Code ?? '',
      message: u.Error?.Message ?? '',
    }));
  }

  async describeInstanceTypes(opts?: CallOptions): Promise<Ec2InstanceTypeInfo[]> {
    const out: Ec2InstanceTypeInfo[] = [];
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.call(opts, (abortSignal) =>
        this.o.ec2.send(new DescribeInstanceTypesCommand({ NextToken: token }), { abortSignal }),
      );
      out.push(...(res.InstanceTypes ?? []));
      token = res.NextToken;
      if (!token) break;
    }
    return out;
  }

  async registerInstanceWithClassicLoadBalancer(
    loadBalancerName: string,
    instanceId: string,
    opts?: CallOptions,
  ): Promise<void> {
    await this.call(opts, (abortSignal) =>
      this.o.elb.send(
        new RegisterInstancesWithLoadBalancerCommand({
          LoadBalancerName: loadBalancerName,
          Instances: [{ InstanceId: instanceId }],
        }),
        { abortSignal },
      ),
    );
  }

  async describeNetworkLoadBalancers(
    names: string[],
    opts?: CallOptions,
  ): Promise<Array<{ name: string; arn: string }>> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.elbv2.send(new DescribeLoadBalancersCommand({ Names: names }), { abortSignal }),
    );
    return (out.LoadBalancers ?? []).flatMap((lb) =>
      lb.LoadBalancerArn ? [{ name: lb.LoadBalancerName ?? '', arn: lb.LoadBalancerArn }] : [],
    );
  }

  async describeTargetGroups(loadBalancerArn: string, opts?: CallOptions): Promise<TargetGroupRef[]> {
    const out: TargetGroupRef[] = [];
    let marker: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.call(opts, (abortSignal) =>
        this.o.elbv2.send(new DescribeTargetGroupsCommand({ LoadBalancerArn: loadBalancerArn, Marker: marker }), {
          abortSignal,
        }),
      );
      for (const tg of res.TargetGroups ?? [])
        if (tg.TargetGroupArn) out.push({ arn: tg.TargetGroupArn, targetType: tg.TargetType ?? 'instance' });
      marker = res.NextMarker;
      if (!marker) break;
    }
    return out;
  }

  async describeTargetHealth(targetGroupArn: string, opts?: CallOptions): Promise<string[]> {
    const out = await this.call(opts, (abortSignal) =>
      this.o.elbv2.send(new DescribeTargetHealthCommand({ TargetGroupArn: targetGroupArn }), { abortSignal }),
    );
    return (out.TargetHealthDescriptions ?? []).flatMap((d) => (d.Target?.Id ? [d.Target.Id] : []));
  }

  async registerTarget(targetGroupArn: string, targetId: string, opts?: CallOptions): Promise<void> {
    await this.call(opts, (abortSignal) =>
      this.o.elbv2.send(new RegisterTargetsCommand({ TargetGroupArn: targetGroupArn, Targets: [{ Id: targetId }] }), {
        abortSignal,
      }),
    );
  }

  async deregisterTarget(targetGroupArn: string, targetId: string, opts?: CallOptions): Promise<void> {
    await this.call(opts, (abortSignal) =>
      this.o.elbv2.send(new DeregisterTargetsCommand({ TargetGroupArn: targetGroupArn, Targets: [{ Id: targetId }] }), {
        abortSignal,
      }),
    );
  }
}
