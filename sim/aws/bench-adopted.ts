// AWS's part of the steady-adopted scenario: one running instance per Machine, launched with the RunInstances input
// the actuator builds (its tags, Name and Machine UID, and its ClientToken), so the provider finds each as its own;
// and what the actuator records from it (providerID, placement labels, addresses, provider status).
import {
  DescribeDhcpOptionsCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  EC2Client,
  RunInstancesCommand,
  type Filter as Ec2Filter,
  type Instance,
} from '@aws-sdk/client-ec2';
import { MachineInstanceStateAnnotation, type Machine } from '../../lib/index.js';
import {
  addressesOf,
  buildRunInstancesInput,
  dhcpDomainsOf,
  machineLabelsFor,
  providerIdOf,
  type AWSMachineProviderConfig,
} from '../../providers/aws/index.js';
import { ADOPTED_BOOT_TIMEOUT_MS, mapConcurrently, type AdoptedInstance } from '../kit/bench-cloud.js';
import { benchAccessKey } from '../kit/planted-secrets.js';

const filtersOf = (f: Array<{ name: string; values: string[] }> | undefined): Ec2Filter[] =>
  (f ?? []).map((x) => ({ Name: x.name, Values: x.values }));

/** The DHCP domain names of the VPC, as the actuator adds them to private DNS names. */
async function dhcpDomains(ec2: EC2Client, vpcId: string | undefined): Promise<string[]> {
  if (!vpcId) return [];
  const vpc = (await ec2.send(new DescribeVpcsCommand({ VpcIds: [vpcId] }))).Vpcs?.[0];
  if (!vpc?.DhcpOptionsId) return [];
  const opts = (await ec2.send(new DescribeDhcpOptionsCommand({ DhcpOptionsIds: [vpc.DhcpOptionsId] }))).DhcpOptions;
  return dhcpDomainsOf(opts?.[0]?.DhcpConfigurations);
}

/** Every instance by id, in pages of 1,000 ids. */
async function describeAll(ec2: EC2Client, ids: string[]): Promise<Instance[]> {
  const out: Instance[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    let token: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeInstancesCommand({ InstanceIds: ids.slice(i, i + 1000), NextToken: token }),
      );
      for (const r of page.Reservations ?? []) out.push(...(r.Instances ?? []));
      token = page.NextToken;
    } while (token);
  }
  return out;
}

export async function launchAdoptedAws(
  endpoint: string,
  region: string,
  clusterId: string,
  machines: Machine[],
  spec: Record<string, unknown>,
): Promise<AdoptedInstance[]> {
  const config = spec as unknown as AWSMachineProviderConfig;
  const ec2 = new EC2Client({ region, endpoint, credentials: benchAccessKey, maxAttempts: 10 });
  try {
    const subnet = (await ec2.send(new DescribeSubnetsCommand({ Filters: filtersOf(config.subnet?.filters as never) })))
      .Subnets?.[0];
    const groups = (
      await ec2.send(
        new DescribeSecurityGroupsCommand({ Filters: filtersOf(config.securityGroups?.[0]?.filters as never) }),
      )
    ).SecurityGroups;
    const imageId = config.ami?.id ?? '';
    const image = (await ec2.send(new DescribeImagesCommand({ ImageIds: [imageId] }))).Images?.[0];
    const resolved = {
      imageId,
      rootDeviceName: image?.RootDeviceName,
      subnetId: subnet?.SubnetId,
      securityGroupIds: (groups ?? []).flatMap((g) => (g.GroupId ? [g.GroupId] : [])),
    };
    const launched = await mapConcurrently(machines, 64, async (m) => {
      const input = buildRunInstancesInput(m, config, clusterId, resolved);
      const id = (await ec2.send(new RunInstancesCommand(input))).Instances?.[0]?.InstanceId;
      if (!id) throw new Error(`RunInstances for ${m.metadata.name ?? ''} returned no instance`);
      return id;
    });
    let instances: Instance[] = [];
    for (const deadline = Date.now() + ADOPTED_BOOT_TIMEOUT_MS; ;) {
      instances = await describeAll(ec2, launched);
      if (instances.length === launched.length && instances.every((i) => i.State?.Name === 'running')) break;
      if (Date.now() > deadline)
        throw new Error(`adopted instances not all running after ${ADOPTED_BOOT_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const domains = await dhcpDomains(ec2, instances[0]?.VpcId);
    const byId = new Map(instances.map((i) => [i.InstanceId ?? '', i]));
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    return machines.map((m, n) => {
      const i = byId.get(launched[n] ?? '') as Instance;
      return {
        machine: m.metadata.name ?? '',
        providerID: providerIdOf(i),
        labels: machineLabelsFor(i, region),
        annotations: { [MachineInstanceStateAnnotation]: 'running' },
        addresses: addressesOf(i, domains),
        providerStatus: {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'AWSMachineProviderStatus',
          instanceId: i.InstanceId,
          instanceState: 'running',
          conditions: [
            {
              type: 'MachineCreation',
              status: 'True',
              reason: 'MachineCreationSucceeded',
              message: 'Machine successfully created',
              lastProbeTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      };
    });
  } finally {
    ec2.destroy();
  }
}
