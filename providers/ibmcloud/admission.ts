// The IBM Cloud VPC part of the Machine and MachineSet admission webhooks. The reference has none; this one
// is built from the provider's own rules: the validation the actuator uses, and defaults for what the cluster
// already knows (its region and resource group from the Infrastructure, the worker-user-data and
// ibmcloud-credentials Secrets the installer and the cloud credential operator create).
import { providerSpecValidation, type MachineAdmission, type ProviderSpecContext } from '../../lib/index.js';
import { checkProviderSpec, readProviderSpec, type DecodeOptions } from './provider-spec.js';

export const IBMCLOUD_PLATFORM = 'IBMCloud';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function decodeOptions(ctx: ProviderSpecContext, withDefaults: boolean): DecodeOptions {
  if (!withDefaults) return { path: ctx.fieldRoot };
  const ibm = ctx.infrastructure.platformStatus.ibmcloud as
    { location?: unknown; resourceGroupName?: unknown } | undefined;
  return {
    path: ctx.fieldRoot,
    webhookDefaults: { region: str(ibm?.location), resourceGroup: str(ibm?.resourceGroupName) },
  };
}

export const ibmCloudMachineAdmission: MachineAdmission = {
  platform: IBMCLOUD_PLATFORM,
  default(providerSpec, ctx) {
    return { value: readProviderSpec(providerSpec, decodeOptions(ctx, true)).spec, warnings: [] };
  },
  validate(providerSpec, ctx) {
    // Validated as the actuator reads it: without defaults, so what is admitted is what reconciles.
    // The spec and each fallback entry merged over it, validated whole.
    const checked = checkProviderSpec(providerSpec, decodeOptions(ctx, false));
    return providerSpecValidation(checked, { errors: [], warnings: [] }, checked.spec.credentialsSecret?.name);
  },
};
