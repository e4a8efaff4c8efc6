// The AWS part of the Machine and MachineSet admission webhooks: the providerSpec decoder and validation the
// actuator uses, with the reference webhook's defaults (instance type by control-plane architecture, the
// cluster's region from the Infrastructure, worker-user-data, aws-cloud-credentials).
import {
  defaultInstanceTypeWarnings,
  providerSpecValidation,
  type MachineAdmission,
  type ProviderSpecContext,
} from '../../lib/index.js';
import { checkProviderConfig, readProviderConfig, type DecodeOptions } from './provider-spec.js';

export const AWS_PLATFORM = 'AWS';

function decodeOptions(ctx: ProviderSpecContext): DecodeOptions {
  const aws = ctx.infrastructure.platformStatus.aws as { region?: unknown } | undefined;
  return {
    defaultRegion: typeof aws?.region === 'string' && aws.region ? aws.region : undefined,
    defaultArchitecture: ctx.infrastructure.architecture,
    controlPlane: ctx.controlPlane,
    path: ctx.fieldRoot,
  };
}

export const awsMachineAdmission: MachineAdmission = {
  platform: AWS_PLATFORM,
  default(providerSpec, ctx) {
    const { config } = readProviderConfig(providerSpec, decodeOptions(ctx));
    return {
      value: config,
      warnings: defaultInstanceTypeWarnings(providerSpec, 'instanceType', config.instanceType, AWS_PLATFORM, ctx),
    };
  },
  validate(providerSpec, ctx) {
    // The spec and each fallback entry merged over it, validated whole.
    const checked = checkProviderConfig(providerSpec, decodeOptions(ctx));
    return providerSpecValidation(checked, { errors: [], warnings: [] }, checked.config.credentialsSecret?.name);
  },
};
