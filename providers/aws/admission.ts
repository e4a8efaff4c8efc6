// The AWS part of the Machine and MachineSet admission webhooks: the providerSpec decoder and validation the
// actuator uses, with the reference webhook's defaults (instance type by control-plane architecture, the
// cluster's region from the Infrastructure, worker-user-data, aws-cloud-credentials).
import type { MachineAdmission, ProviderSpecContext } from '../../lib/index.js';
import { readProviderConfig, type DecodeOptions } from './provider-spec.js';
import { validateProviderConfig } from './provider-spec-validation.js';

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

const writtenInstanceType = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && typeof (value as { instanceType?: unknown }).instanceType === 'string' && (value as { instanceType: string }).instanceType !== '';

export const awsMachineAdmission: MachineAdmission = {
  platform: AWS_PLATFORM,
  default(providerSpec, ctx) {
    const { config } = readProviderConfig(providerSpec, decodeOptions(ctx));
    const warnings = writtenInstanceType(providerSpec)
      ? []
      : [`setting the default instance type "${config.instanceType}" for cloud provider "${AWS_PLATFORM}", based on the control plane architecture ("${ctx.infrastructure.architecture}")`];
    return { value: config, warnings };
  },
  validate(providerSpec, ctx) {
    const opts = decodeOptions(ctx);
    const decoded = readProviderConfig(providerSpec, opts);
    const validation = validateProviderConfig(decoded.config, { controlPlane: ctx.controlPlane, path: ctx.fieldRoot });
    return {
      errors: [...decoded.errors, ...validation.errors],
      warnings: [...decoded.warnings, ...validation.warnings],
      credentialsSecret: decoded.config.credentialsSecret?.name,
    };
  },
};
