// The InstanceTypeCatalog for scale-from-zero, read from the VPC instance profiles (GET /instance/profiles,
// cached per API key and region for a day by the client factory, shared with the actuator). The reference
// parses the profile *name* instead: memory overflows a 16-bit int, names such as bx2d-metal-96x384 panic,
// and GPU count and architecture are never reported. Here vCPU, memory, GPU count and kind, and the
// architecture come from the API's own fields.
import {
  InvalidMachineConfigurationError,
  TEMPLATE_PROVIDER_SPEC_VALUE_FIELD as TEMPLATE_SPEC_PATH,
  templateProviderSpecValue,
  type Architecture,
  type CloudInstanceTypeCatalogOptions,
  type InstanceTypeCatalog,
  type InstanceTypeInfo,
  type InstanceTypeLookupContext,
  type MachineSet,
  smallestAcross,
} from '../../lib/index.js';
import { classifyVpcError } from './errors.js';
import type { IbmClientFactory } from './ibm-clients.js';
import { apiKeyFor } from './machine-scope.js';
import { checkProviderSpec, readProviderSpec, throwIfInvalid } from './provider-spec.js';
import type { InstanceProfile, ProfileValue } from './vpc-types.js';

export { PROFILE_CACHE_TTL_MS as INSTANCE_TYPE_CACHE_TTL_MS } from './ibm-clients.js';

/** A profile property's value: the fixed value, else the default (or lowest) of a range or enum. */
export function profileValue(v: ProfileValue | undefined): number | undefined {
  if (!v) return undefined;
  return v.value ?? v.default ?? v.min ?? v.values?.[0];
}

const ARCHITECTURES: Record<string, Architecture> = {
  amd64: 'amd64',
  x86_64: 'amd64',
  s390x: 's390x',
  arm64: 'arm64',
  aarch64: 'arm64',
  ppc64le: 'ppc64le',
  power: 'ppc64le',
};

/** The profile's CPU architecture (vcpu_architecture, else the default OS architecture); amd64 if neither says. */
export function architectureOf(p: InstanceProfile): Architecture {
  return ARCHITECTURES[p.vcpu_architecture?.value ?? ''] ?? ARCHITECTURES[p.os_architecture?.default ?? ''] ?? 'amd64';
}

/** The extended resource a GPU manufacturer's devices show up as on the node. */
export function gpuResourceOf(manufacturer: string | undefined): string {
  switch ((manufacturer ?? '').toLowerCase()) {
    case 'amd':
      return 'amd.com/gpu';
    case 'intel':
      return 'gpu.intel.com/i915';
    default:
      return 'nvidia.com/gpu';
  }
}

export function toInstanceTypeInfo(p: InstanceProfile): InstanceTypeInfo {
  const gpuCount = profileValue(p.gpu_count) ?? 0;
  const info: InstanceTypeInfo = {
    name: p.name,
    vCPU: profileValue(p.vcpu_count) ?? 0,
    // The API reports GiB; scale-from-zero wants integer MiB.
    memoryMiB: Math.round((profileValue(p.memory) ?? 0) * 1024),
    gpuCount,
    architecture: architectureOf(p),
  };
  if (gpuCount > 0) info.gpuType = gpuResourceOf(p.gpu_manufacturer?.values?.[0]);
  return info;
}

/** The profiles are cached by the client factory (shared with the actuator), so the catalog keeps no cache of its own. */
export interface IbmCloudInstanceTypeCatalogOptions extends Omit<CloudInstanceTypeCatalogOptions, 'ttlMs'> {
  clients: IbmClientFactory;
}

export class IbmCloudInstanceTypeCatalog implements InstanceTypeCatalog {
  constructor(private readonly o: IbmCloudInstanceTypeCatalogOptions) {}

  refusesCredentials(err: unknown): boolean {
    return classifyVpcError(err) === 'unauthorized';
  }

  async lookup(machineSet: MachineSet, ctx: InstanceTypeLookupContext): Promise<InstanceTypeInfo | undefined> {
    const { spec, errors } = readProviderSpec(templateProviderSpecValue(machineSet), { path: TEMPLATE_SPEC_PATH });
    throwIfInvalid(errors);
    for (const key of ['profile', 'region'] as const) {
      if (!spec[key])
        throw new InvalidMachineConfigurationError(`${TEMPLATE_SPEC_PATH}.${key}: Required value`, {
          field: `${TEMPLATE_SPEC_PATH}.${key}`,
        });
    }
    if (!spec.credentialsSecret?.name) {
      throw new InvalidMachineConfigurationError(`${TEMPLATE_SPEC_PATH}.credentialsSecret.name: Required value`, {
        field: `${TEMPLATE_SPEC_PATH}.credentialsSecret.name`,
      });
    }
    const { apiKey, source } = await apiKeyFor(
      machineSet.metadata.namespace ?? '',
      spec,
      this.o.client,
      ctx.signal,
      TEMPLATE_SPEC_PATH,
    );
    const clients = await this.o.clients.get(apiKey, spec.region, source, ctx.signal);
    const profiles = await clients.profiles(ctx.signal);
    // With capacity fallbacks: the smallest of every entry's profile.
    const { fallbacks } = checkProviderSpec(templateProviderSpecValue(machineSet), { path: TEMPLATE_SPEC_PATH });
    const infos = [spec, ...fallbacks].map((entry) => {
      const profile = profiles.find((p) => p.name === entry.profile);
      if (!profile)
        ctx.log.info('instance profile unknown in the region; no scale-from-zero annotations', {
          profile: entry.profile,
          region: spec.region,
        });
      return profile ? toInstanceTypeInfo(profile) : undefined;
    });
    return smallestAcross(infos);
  }
}

export function createIbmCloudInstanceTypeCatalog(
  opts: IbmCloudInstanceTypeCatalogOptions,
): IbmCloudInstanceTypeCatalog {
  return new IbmCloudInstanceTypeCatalog(opts);
}
