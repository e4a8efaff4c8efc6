// The per-cloud part of admission. Each provider implements MachineAdmission with the decoder and the
// validation its actuator already uses, so the same code decides what is valid when a Machine is admitted
// and when it is reconciled. Everything not specific to a cloud (the AdmissionReview, field paths from the
// object root, the cluster label, MachineSet rules, Secret existence, the patch) lives in lib/admission.
import type { FieldIssue } from '../cloud/spec-reader.js';

/** What the webhooks know about the cluster: the Infrastructure "cluster" and the control plane's architecture. */
export interface AdmissionInfrastructure {
  /** status.infrastructureName: the cluster ID, the value of the cluster label and of GCP's default names. */
  clusterId: string;
  /** status.platformStatus.type, e.g. "AWS", "GCP", "IBMCloud". */
  platformType: string;
  /** status.platformStatus as read (e.g. { aws: { region } }). */
  platformStatus: Readonly<Record<string, unknown>>;
  /** The architecture default instance types are chosen for, as the reference picks them from its own binary. */
  architecture: 'amd64' | 'arm64';
}

export interface ProviderSpecContext {
  /** Where providerSpec.value sits in the admitted object: "spec.providerSpec.value" or "spec.template.spec.providerSpec.value". */
  fieldRoot: string;
  /** Whether the Machine (or the MachineSet's template) is a control-plane machine. */
  controlPlane: boolean;
  infrastructure: AdmissionInfrastructure;
}

export interface ProviderSpecDefaulting {
  /** The spec as the provider reads it with its defaults applied; only the fields the user left unwritten are taken from it. */
  value: unknown;
  /** Said to the user (e.g. which default instance type was chosen). */
  warnings: string[];
}

export interface ProviderSpecValidation {
  /** Each names its full field path from the object root and the rule. */
  errors: FieldIssue[];
  /** Unknown fields, deprecated values, likely mistakes: never fatal. */
  warnings: string[];
  /** The credentials Secret the spec names, for the existence warning; undefined when it names none. */
  credentialsSecret?: string;
}

export interface MachineAdmission {
  /** The Infrastructure platformStatus.type this plug-in serves. */
  readonly platform: string;
  default(providerSpec: unknown, ctx: ProviderSpecContext): ProviderSpecDefaulting;
  validate(providerSpec: unknown, ctx: ProviderSpecContext): ProviderSpecValidation;
}

/** The validation a provider answers: the issues and warnings of reading the spec, then of its rules, and the credentials Secret it names. */
export function providerSpecValidation(
  read: Pick<ProviderSpecValidation, 'errors' | 'warnings'>,
  rules: Pick<ProviderSpecValidation, 'errors' | 'warnings'>,
  credentialsSecret: string | undefined,
): ProviderSpecValidation {
  return {
    errors: [...read.errors, ...rules.errors],
    warnings: [...read.warnings, ...rules.warnings],
    credentialsSecret,
  };
}

/**
 * The reference webhook's warning when it picked the instance type because the spec wrote none in `field`: which
 * type, for which platform, chosen by the control plane's architecture.
 */
export function defaultInstanceTypeWarnings(
  providerSpec: unknown,
  field: string,
  chosen: string,
  platform: string,
  ctx: ProviderSpecContext,
): string[] {
  const written =
    typeof providerSpec === 'object' && providerSpec !== null && (providerSpec as Record<string, unknown>)[field];
  if (typeof written === 'string' && written !== '') return [];
  return [
    `setting the default instance type "${chosen}" for cloud provider "${platform}", based on the control plane architecture ("${ctx.infrastructure.architecture}")`,
  ];
}
