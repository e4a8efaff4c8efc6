// The GCP part of the Machine and MachineSet admission webhooks: the providerSpec decoder and validation the
// actuator uses, with the reference webhook's defaults (machine type by control-plane architecture, a boot
// disk with the RHCOS image, the cluster's network, subnetwork and tags from its infrastructure name,
// worker-user-data, gcp-cloud-credentials, one GPU when a count is left out).
import {
  defaultInstanceTypeWarnings,
  providerSpecValidation,
  type MachineAdmission,
  type ProviderSpecContext,
} from '../../lib/index.js';
import { checkProviderSpec, readProviderSpec, type DecodeOptions } from './provider-spec.js';

export const GCP_PLATFORM = 'GCP';
/** The reference webhook's boot image for a disk that names none, by architecture. */
export const DEFAULT_DISK_IMAGE_AMD64 = 'projects/rhcos-cloud/global/images/rhcos-414-92-202307070025-0-gcp-x86-64';
export const DEFAULT_DISK_IMAGE_ARM64 = 'projects/rhcos-cloud/global/images/rhcos-414-92-202307070025-0-gcp-aarch64';

function decodeOptions(ctx: ProviderSpecContext): DecodeOptions {
  const arch = ctx.infrastructure.architecture;
  return {
    clusterId: ctx.infrastructure.clusterId || undefined,
    defaultArchitecture: arch,
    defaultImage: arch === 'arm64' ? DEFAULT_DISK_IMAGE_ARM64 : DEFAULT_DISK_IMAGE_AMD64,
    path: ctx.fieldRoot,
  };
}

export const gcpMachineAdmission: MachineAdmission = {
  platform: GCP_PLATFORM,
  default(providerSpec, ctx) {
    const { spec } = readProviderSpec(providerSpec, decodeOptions(ctx));
    return {
      value: spec,
      warnings: defaultInstanceTypeWarnings(providerSpec, 'machineType', spec.machineType, GCP_PLATFORM, ctx),
    };
  },
  validate(providerSpec, ctx) {
    // The spec and each fallback entry merged over it, validated whole.
    const checked = checkProviderSpec(providerSpec, decodeOptions(ctx));
    return providerSpecValidation(checked, { errors: [], warnings: [] }, checked.spec.credentialsSecret?.name);
  },
};
