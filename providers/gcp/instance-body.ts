// The instances.insert body of a Machine: the pure builder (instances.ts) fed with what needs a look-up first —
// the user data Secret (within GCE's metadata caps), the resource-manager tag values, and whether the boot image
// is UEFI-compatible (Shielded VM is turned off for a legacy image when the spec leaves it unset).
import { InvalidMachineConfigurationError, type Clock, type KubeClient } from '../../lib/index.js';
import { BootImageChecker, ImageReferenceError } from './boot-image.js';
import type { Instance } from './compute-api.js';
import { classifyGceError, describeGceError } from './errors.js';
import { buildInstance } from './instances.js';
import { userDataFor, type MachineScope } from './machine-scope.js';
import { checkUserDataMetadata } from './metadata-limits.js';
import { PROVIDER_SPEC_PATH, type ResourceManagerTag } from './provider-spec.js';
import { TagResolver, mergeTags, restTagValueLookup, type TagValueLookup } from './resource-manager-tags.js';

export interface InstanceBodyOptions {
  /** Reads the user-data Secret. */
  client: KubeClient;
  clock: Clock;
  infrastructureLabels?: Record<string, string>;
  infrastructureTags?: ResourceManagerTag[];
  /** Resolves resource-manager tag values (default: the Resource Manager REST API). */
  tagValueLookup?: TagValueLookup;
}

export class InstanceBodyBuilder {
  private readonly images: BootImageChecker;
  private readonly tags: TagResolver;

  constructor(private readonly o: InstanceBodyOptions) {
    this.images = new BootImageChecker(o.clock);
    this.tags = new TagResolver(o.tagValueLookup ?? restTagValueLookup(), o.clock);
  }

  async build(scope: MachineScope, signal: AbortSignal): Promise<Instance> {
    const { spec, clients } = scope;
    const userData = await userDataFor(scope.machine, spec, this.o.client, signal);
    // Before any GCE call: user data GCE would refuse on every retry fails the Machine now.
    checkUserDataMetadata(scope.machine, spec, userData);
    const resourceManagerTags = await this.tags.resolve(
      mergeTags(spec.resourceManagerTags, this.o.infrastructureTags),
      scope.credentials,
      signal,
    );
    let uefiCompatible: boolean | undefined;
    if (
      !spec.shieldedInstanceConfig.secureBoot &&
      !spec.shieldedInstanceConfig.virtualizedTrustedPlatformModule &&
      !spec.shieldedInstanceConfig.integrityMonitoring
    ) {
      try {
        uefiCompatible = await this.images.uefiCompatible(clients.compute, spec, scope.project, signal);
      } catch (err) {
        if (err instanceof ImageReferenceError)
          throw new InvalidMachineConfigurationError(err.message, { field: `${PROVIDER_SPEC_PATH}.disks`, cause: err });
        if (classifyGceError(err) === 'notFound') {
          throw new InvalidMachineConfigurationError(
            `boot image of ${PROVIDER_SPEC_PATH}.disks does not exist: ${describeGceError(err)}`,
            { field: `${PROVIDER_SPEC_PATH}.disks`, cause: err },
          );
        }
        throw new Error(`error fetching disk information: ${describeGceError(err)}`, { cause: err });
      }
    }
    return buildInstance(scope.machine, spec, {
      project: scope.project,
      clusterId: scope.clusterId,
      userData,
      infrastructureLabels: this.o.infrastructureLabels,
      resourceManagerTags,
      uefiCompatible,
    });
  }
}
