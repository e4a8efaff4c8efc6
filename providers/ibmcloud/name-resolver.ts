// Resolves the names in a providerSpec (resource groups, VPC, image, profile, subnet, security groups,
// dedicated host) to ids once per spec and keeps the answer, so a MachineSet of a hundred Machines costs one
// set of look-ups rather than the reference's eight calls per create. Concurrent creates of the same spec
// share one resolution. Every list is read to its last page; security groups are looked up in the network
// resource group (the reference uses resourceGroup and swallows the list's error).
import { InvalidMachineConfigurationError, PromiseCache, type Clock } from '../../lib/index.js';
import type { IbmClients } from './ibm-clients.js';
import type { ResolvedIds } from './instances.js';
import { networkResourceGroupOf, PROVIDER_SPEC_PATH, type IBMCloudMachineProviderSpec } from './provider-spec.js';

export const RESOLUTION_CACHE_TTL_MS = 3_600_000;

/** A resource group the API key cannot see: often missing IAM access on it, so worth retrying (never terminal). */
export class ResourceGroupNotFoundError extends Error {
  override readonly name = 'ResourceGroupNotFoundError';
}

const P = PROVIDER_SPEC_PATH;

function invalid(field: string, message: string): InvalidMachineConfigurationError {
  return new InvalidMachineConfigurationError(`${P}.${field}: ${message}`, { field: `${P}.${field}` });
}

export class NameResolver {
  private readonly cache: PromiseCache<ResolvedIds>;

  constructor(clock: Clock, ttlMs = RESOLUTION_CACHE_TTL_MS) {
    this.cache = new PromiseCache(clock, ttlMs);
  }

  private static keyOf(clients: IbmClients, s: IBMCloudMachineProviderSpec): string {
    return JSON.stringify([
      clients.key,
      s.resourceGroup,
      networkResourceGroupOf(s),
      s.vpc,
      s.image,
      s.profile,
      s.zone,
      s.primaryNetworkInterface,
      s.dedicatedHost ?? '',
    ]);
  }

  /** The ids of the spec's names; cached until the TTL runs out or invalidate() is called. */
  resolve(clients: IbmClients, spec: IBMCloudMachineProviderSpec, signal?: AbortSignal): Promise<ResolvedIds> {
    // Failures are not remembered: a fixed spec or a recovered API must take effect on the next try.
    return this.cache.get(NameResolver.keyOf(clients, spec), () => resolveIds(clients, spec, signal));
  }

  /** Forgets the ids of a spec, e.g. after the VPC said one of them no longer exists. */
  invalidate(clients: IbmClients, spec: IBMCloudMachineProviderSpec): void {
    this.cache.delete(NameResolver.keyOf(clients, spec));
  }
}

async function resourceGroupId(
  clients: IbmClients,
  name: string,
  field: string,
  signal?: AbortSignal,
): Promise<string> {
  const accountId = await clients.accountId(signal);
  const groups = (await clients.vpc.listResourceGroups({ accountId, name }, { signal })).filter((g) => g.name === name);
  const first = groups[0];
  if (!first) {
    throw new ResourceGroupNotFoundError(
      `${P}.${field}: resource group ${JSON.stringify(name)} not found in account ${accountId}; it may not exist, or the API key may lack Viewer access to it`,
    );
  }
  return first.id;
}

async function resolveIds(
  clients: IbmClients,
  s: IBMCloudMachineProviderSpec,
  signal?: AbortSignal,
): Promise<ResolvedIds> {
  const o = { signal };
  const { vpc: api } = clients;
  const rg = await resourceGroupId(clients, s.resourceGroup, 'resourceGroup', signal);
  const netRg =
    s.networkResourceGroup && s.networkResourceGroup !== s.resourceGroup
      ? await resourceGroupId(clients, s.networkResourceGroup, 'networkResourceGroup', signal)
      : rg;
  const netField = s.networkResourceGroup ? 'networkResourceGroup' : 'resourceGroup';

  const [vpcs, images, profiles, hosts] = await Promise.all([
    api.listVpcs({ resourceGroupId: netRg }, o),
    api.listImages({ name: s.image, visibility: 'private', resourceGroupId: rg }, o),
    clients.profiles(signal),
    s.dedicatedHost
      ? api.listDedicatedHosts({ resourceGroupId: rg, zoneName: s.zone, name: s.dedicatedHost }, o)
      : Promise.resolve([]),
  ]);
  const vpc = vpcs.find((v) => v.name === s.vpc);
  if (!vpc)
    throw invalid(
      'vpc',
      `VPC ${JSON.stringify(s.vpc)} not found in resource group ${JSON.stringify(networkResourceGroupOf(s))} (${netField})`,
    );
  const image = images.find((i) => i.name === s.image);
  if (!image)
    throw invalid(
      'image',
      `private image ${JSON.stringify(s.image)} not found in resource group ${JSON.stringify(s.resourceGroup)}`,
    );
  const profile = profiles.find((p) => p.name === s.profile);
  if (!profile) throw invalid('profile', `could not find instance profile: ${s.profile}`);
  const imageArch = image.operating_system?.architecture;
  const profileArch = profile.vcpu_architecture?.value;
  if (imageArch && profileArch && imageArch !== profileArch) {
    throw invalid('image', `image ${s.image} is built for ${imageArch} but profile ${s.profile} runs ${profileArch}`);
  }
  let dedicatedHostId: string | undefined;
  if (s.dedicatedHost) {
    const host = hosts.find((h) => h.name === s.dedicatedHost);
    if (!host)
      throw invalid(
        'dedicatedHost',
        `dedicated host ${JSON.stringify(s.dedicatedHost)} not found in resource group ${JSON.stringify(s.resourceGroup)} and zone ${s.zone}`,
      );
    dedicatedHostId = host.id;
  }

  const wanted = s.primaryNetworkInterface.securityGroups ?? [];
  const [subnets, groups] = await Promise.all([
    api.listSubnets({ resourceGroupId: netRg, vpcId: vpc.id }, o),
    wanted.length > 0 ? api.listSecurityGroups({ resourceGroupId: netRg, vpcId: vpc.id }, o) : Promise.resolve([]),
  ]);
  const subnetName = s.primaryNetworkInterface.subnet;
  const subnet = subnets.find((x) => x.name === subnetName);
  if (!subnet)
    throw invalid('primaryNetworkInterface.subnet', `subnet ${JSON.stringify(subnetName)} not found in VPC ${s.vpc}`);
  if (subnet.zone?.name && subnet.zone.name !== s.zone) {
    throw invalid(
      'primaryNetworkInterface.subnet',
      `subnet ${subnetName} is in zone ${subnet.zone.name}, not in ${s.zone}`,
    );
  }
  const securityGroupIds: string[] = [];
  const missing: string[] = [];
  for (const name of wanted) {
    const g = groups.find((x) => x.name === name);
    if (g) securityGroupIds.push(g.id);
    else missing.push(name);
  }
  if (missing.length > 0) {
    throw invalid(
      'primaryNetworkInterface.securityGroups',
      `security groups not found in VPC ${s.vpc} and resource group ${JSON.stringify(networkResourceGroupOf(s))}: ${missing.join(', ')}`,
    );
  }
  return {
    resourceGroupId: rg,
    vpcId: vpc.id,
    imageId: image.id,
    subnetId: subnet.id,
    securityGroupIds,
    dedicatedHostId,
  };
}
