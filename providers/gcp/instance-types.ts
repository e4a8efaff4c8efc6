// The InstanceTypeCatalog for scale-from-zero: machineTypes.get, cached for a day per project + zone + type
// (the reference keys by zone and type only, with no expiry, and calls with a possibly empty project), with
// one look-up in flight per key. A 404 is "unknown type" (never an error); a failed refresh serves the
// previous answer while it has one.
import {
  INSTANCE_TYPE_CACHE_TTL_MS,
  InvalidMachineConfigurationError,
  RefreshingCache,
  TEMPLATE_PROVIDER_SPEC_VALUE_FIELD as TEMPLATE_SPEC_PATH,
  templateProviderSpecValue,
  type CloudInstanceTypeCatalogOptions,
  type InstanceTypeCatalog,
  type InstanceTypeInfo,
  type InstanceTypeLookupContext,
  type Logger,
  type MachineSet,
  smallestAcross,
} from '../../lib/index.js';
import type { MachineType } from './compute-api.js';
import { classifyGceError, describeGceError } from './errors.js';
import type { GcpClientFactory } from './gcp-clients.js';
import { credentialsFor, projectOf } from './machine-scope.js';
import { architectureOf } from './machine-type-architecture.js';
import { checkProviderSpec, readProviderSpec, throwIfInvalid, type GCPGPUConfig } from './provider-spec.js';

export { INSTANCE_TYPE_CACHE_TTL_MS };

export { ARM64_FAMILIES, architectureOf } from './machine-type-architecture.js';

/** The extended resource an accelerator type shows up as on the node. */
export const gpuResourceOf = (acceleratorType: string): string =>
  acceleratorType.startsWith('nvidia-')
    ? 'nvidia.com/gpu'
    : acceleratorType.startsWith('amd-')
      ? 'amd.com/gpu'
      : 'nvidia.com/gpu';

/** The scale-from-zero view of a machine type; GPUs the spec attaches count instead of built-in ones. */
export function toInstanceTypeInfo(mt: MachineType, gpus?: GCPGPUConfig[]): InstanceTypeInfo {
  const name = mt.name ?? '';
  const builtIn = mt.accelerators?.[0];
  const specGpu = gpus?.[0];
  const gpuCount = specGpu ? specGpu.count : (builtIn?.guestAcceleratorCount ?? 0);
  const gpuKind = specGpu ? specGpu.type : (builtIn?.guestAcceleratorType ?? '');
  const info: InstanceTypeInfo = {
    name,
    vCPU: mt.guestCpus ?? 0,
    memoryMiB: mt.memoryMb ?? 0,
    gpuCount,
    architecture: architectureOf(name, mt.architecture),
  };
  if (gpuCount > 0) info.gpuType = gpuResourceOf(gpuKind);
  return info;
}

export interface GcpInstanceTypeCatalogOptions extends CloudInstanceTypeCatalogOptions {
  clients: GcpClientFactory;
  defaultProject?: string;
}

export class GcpInstanceTypeCatalog implements InstanceTypeCatalog {
  // A cached null is "no such type"; a failed refresh falls back only to a type that was found.
  private readonly cache: RefreshingCache<MachineType | null>;

  constructor(private readonly o: GcpInstanceTypeCatalogOptions) {
    this.cache = new RefreshingCache(o.clock, o.ttlMs ?? INSTANCE_TYPE_CACHE_TTL_MS, {
      serveStale: (previous) => previous !== null,
    });
  }

  refusesCredentials(err: unknown): boolean {
    return classifyGceError(err) === 'unauthorized';
  }

  async lookup(machineSet: MachineSet, ctx: InstanceTypeLookupContext): Promise<InstanceTypeInfo | undefined> {
    const { spec, errors } = readProviderSpec(templateProviderSpecValue(machineSet), { path: TEMPLATE_SPEC_PATH });
    throwIfInvalid(errors);
    if (!spec.zone)
      throw new InvalidMachineConfigurationError(`${TEMPLATE_SPEC_PATH}.zone: Required value: zone is required`, {
        field: `${TEMPLATE_SPEC_PATH}.zone`,
      });
    const creds = await credentialsFor(machineSet.metadata.namespace ?? '', spec, this.o.client, ctx.signal);
    const project = projectOf(spec, creds.credentials, this.o.defaultProject, TEMPLATE_SPEC_PATH);
    const compute = this.o.clients.get(creds.credentials, creds.source).compute;
    // With capacity fallbacks: the smallest of every entry's machine type, each looked up in its own zone.
    const { fallbacks } = checkProviderSpec(templateProviderSpecValue(machineSet), { path: TEMPLATE_SPEC_PATH });
    const infos = [];
    for (const entry of [spec, ...fallbacks]) {
      const zone = entry.zone || spec.zone;
      const mt = await this.cached(`${project}/${zone}/${entry.machineType}`, ctx.log, async () => {
        try {
          return await compute.getMachineType(project, zone, entry.machineType, { signal: ctx.signal });
        } catch (err) {
          if (classifyGceError(err) === 'notFound') return null;
          throw err;
        }
      });
      infos.push(mt ? toInstanceTypeInfo(mt, entry.gpus) : undefined);
    }
    return smallestAcross(infos);
  }

  private cached(key: string, log: Logger, load: () => Promise<MachineType | null>): Promise<MachineType | null> {
    return this.cache.get(key, load, (err) =>
      log.info('refreshing a GCE machine type failed; using the previous answer', {
        machineType: key,
        error: describeGceError(err),
      }),
    );
  }
}

export function createGcpInstanceTypeCatalog(opts: GcpInstanceTypeCatalogOptions): GcpInstanceTypeCatalog {
  return new GcpInstanceTypeCatalog(opts);
}
