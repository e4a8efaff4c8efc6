// What the actuator reads of a described instance, and nothing else. The instance cache holds a listing of
// every instance of the cluster for a resync; EC2's full description (block devices, ENI attachments, security
// groups, CPU options, metadata options...) would cost the provider several kilobytes of heap per instance.
import type { Instance, InstanceNetworkInterface } from '@aws-sdk/client-ec2';

/** The object without its undefined fields (each field costs a slot, set or not), built field by field. */
function defined<T extends object>(o: T): T {
  const out: Partial<T> = {};
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] !== undefined) out[k] = o[k];
  return out as T;
}

const slimInterface = (n: InstanceNetworkInterface): InstanceNetworkInterface =>
  defined({
    Status: n.Status,
    Ipv6Addresses: n.Ipv6Addresses?.map((a) => ({ Ipv6Address: a.Ipv6Address })),
    PrivateIpAddresses: n.PrivateIpAddresses?.map((a) => ({ PrivateIpAddress: a.PrivateIpAddress })),
  });

/**
 * The fields the actuator reads of an instance: identity and ownership (id, tags, client token, launch time),
 * state, what update() records (placement zone, type, lifecycle, VPC, addresses and DNS names).
 */
export function slimInstance(i: Instance): Instance {
  const slim = defined({
    InstanceId: i.InstanceId,
    State: i.State && { Name: i.State.Name },
    Tags: i.Tags?.map((t) => ({ Key: t.Key, Value: t.Value })),
    ClientToken: i.ClientToken,
    LaunchTime: i.LaunchTime,
    Placement: i.Placement && { AvailabilityZone: i.Placement.AvailabilityZone },
    InstanceType: i.InstanceType,
    InstanceLifecycle: i.InstanceLifecycle,
    VpcId: i.VpcId,
    PrivateIpAddress: i.PrivateIpAddress,
    PublicIpAddress: i.PublicIpAddress,
    PrivateDnsName: i.PrivateDnsName,
    PublicDnsName: i.PublicDnsName,
    NetworkInterfaces: i.NetworkInterfaces?.map(slimInterface),
  });
  // A copy with strings of its own: the parser's strings may be slices of the whole reply, which would keep
  // every page's text alive for as long as one id is held. LaunchTime stays a Date.
  const copy = JSON.parse(JSON.stringify(slim)) as Instance;
  if (slim.LaunchTime) copy.LaunchTime = new Date(slim.LaunchTime.getTime());
  return copy;
}
