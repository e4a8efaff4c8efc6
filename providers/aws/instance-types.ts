// The InstanceTypeCatalog for scale-from-zero: DescribeInstanceTypes, all pages, cached per region and
// credentials for 24 h (the reference keys by region only), with one refresh in flight per key. A failed
// refresh serves the previous list while it has one.
import type { InstanceTypeInfo as Ec2InstanceTypeInfo } from '@aws-sdk/client-ec2';
import {
  INSTANCE_TYPE_CACHE_TTL_MS,
  InvalidMachineConfigurationError,
  RefreshingCache,
  templateProviderSpecValue,
  type Architecture,
  type CloudInstanceTypeCatalogOptions,
  type InstanceTypeCatalog,
  type InstanceTypeInfo,
  type InstanceTypeLookupContext,
  type Logger,
  type MachineSet,
  smallestAcross,
} from '../../lib/index.js';
import type { AwsClientFactory } from './aws-clients.js';
import { credentialsFingerprint } from './credentials.js';
import { classifyEc2Error, describeEc2Error } from './errors.js';
import { credentialsFor } from './machine-scope.js';
import { decodeProviderConfig } from './provider-spec.js';

export { INSTANCE_TYPE_CACHE_TTL_MS };

export interface AwsInstanceTypeCatalogOptions extends CloudInstanceTypeCatalogOptions {
  clients: AwsClientFactory;
  regionOverride?: string;
  defaultRegion?: string;
}

/** x86_64 → amd64, arm64 → arm64; anything else (i386, *_mac) is reported as amd64, as the reference does. */
export function architectureOf(t: Ec2InstanceTypeInfo): Architecture {
  const archs = t.ProcessorInfo?.SupportedArchitectures ?? [];
  return archs[0] === 'arm64' ? 'arm64' : 'amd64';
}

export function toInstanceTypeInfo(t: Ec2InstanceTypeInfo): InstanceTypeInfo | undefined {
  if (!t.InstanceType) return undefined;
  const gpus = t.GpuInfo?.Gpus ?? [];
  const gpuCount = gpus.reduce((n, g) => n + (g.Count ?? 0), 0);
  const info: InstanceTypeInfo = {
    name: t.InstanceType,
    vCPU: t.VCpuInfo?.DefaultVCpus ?? 0,
    memoryMiB: t.MemoryInfo?.SizeInMiB ?? 0,
    gpuCount,
    architecture: architectureOf(t),
  };
  if (gpuCount > 0) {
    const maker = (gpus.find((g) => (g.Count ?? 0) > 0)?.Manufacturer ?? '').toUpperCase();
    if (maker === 'NVIDIA') info.gpuType = 'nvidia.com/gpu';
    else if (maker === 'AMD') info.gpuType = 'amd.com/gpu';
  }
  return info;
}

export class AwsInstanceTypeCatalog implements InstanceTypeCatalog {
  private readonly cache: RefreshingCache<Map<string, InstanceTypeInfo>>;

  constructor(private readonly o: AwsInstanceTypeCatalogOptions) {
    this.cache = new RefreshingCache(o.clock, o.ttlMs ?? INSTANCE_TYPE_CACHE_TTL_MS);
  }

  refusesCredentials(err: unknown): boolean {
    return classifyEc2Error(err) === 'unauthorized';
  }

  async lookup(machineSet: MachineSet, ctx: InstanceTypeLookupContext): Promise<InstanceTypeInfo | undefined> {
    const { config, fallbacks } = decodeProviderConfig(templateProviderSpecValue(machineSet), {
      defaultRegion: this.o.regionOverride ?? this.o.defaultRegion,
    });
    if (!config.credentialsSecret?.name) {
      throw new InvalidMachineConfigurationError(
        `nil credentialsSecret for machineSet ${machineSet.metadata.name ?? ''}`,
        {
          field: 'spec.template.spec.providerSpec.value.credentialsSecret',
        },
      );
    }
    const creds = await credentialsFor(machineSet.metadata.namespace ?? '', config, this.o.client, ctx.signal);
    const region = this.o.regionOverride ?? config.placement.region ?? '';
    const key = `${region}|${credentialsFingerprint(creds.credentials)}`;
    const types = await this.typesFor(
      key,
      () => this.o.clients.get(region, creds.credentials, creds.source).ec2.describeInstanceTypes(),
      ctx.log,
    );
    return smallestAcross([config, ...fallbacks].map((c) => types.get(c.instanceType)));
  }

  private typesFor(
    key: string,
    load: () => Promise<Ec2InstanceTypeInfo[]>,
    log: Logger,
  ): Promise<Map<string, InstanceTypeInfo>> {
    return this.cache.get(
      key,
      async () => {
        const types = new Map<string, InstanceTypeInfo>();
        for (const t of await load()) {
          const info = toInstanceTypeInfo(t);
          if (info) types.set(info.name, info);
        }
        if (types.size === 0) throw new Error('unable to load EC2 Instance Type list');
        return types;
      },
      (err) =>
        log.info('refreshing EC2 instance types failed; using the previous list', { error: describeEc2Error(err) }),
    );
  }
}

export function createAwsInstanceTypeCatalog(opts: AwsInstanceTypeCatalogOptions): InstanceTypeCatalog {
  return new AwsInstanceTypeCatalog(opts);
}
