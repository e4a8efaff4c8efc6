// spec.authoritativeAPI says whether the Machine API or the Cluster API manages a resource. It only has an
// effect with the MachineAPIMigration feature gate: with the gate, a value other than MachineAPI or ClusterAPI
// is refused (the controllers would ignore the resource forever); without it, a ClusterAPI value is admitted
// with a warning that the Machine API controllers still manage the resource.
import { previewValue, unsupportedValue, type FieldIssue } from '../cloud/spec-reader.js';
import { MachineAPIMigrationGate } from '../machine/controller.js';

export const AuthoritativeAPIs = ['MachineAPI', 'ClusterAPI'] as const;

export interface AuthoritativeApiFindings {
  errors: FieldIssue[];
  warnings: string[];
}

export function checkAuthoritativeAPI(
  value: unknown,
  field: string,
  featureGates: Readonly<Record<string, boolean>>,
): AuthoritativeApiFindings {
  const out: AuthoritativeApiFindings = { errors: [], warnings: [] };
  if (value === undefined || value === null || value === '') return out;
  if (featureGates[MachineAPIMigrationGate] === true) {
    if (!(AuthoritativeAPIs as readonly unknown[]).includes(value))
      out.errors.push(unsupportedValue(field, value, AuthoritativeAPIs));
  } else if (value !== 'MachineAPI') {
    out.warnings.push(
      `${field}: ${previewValue(value)} has no effect: the ${MachineAPIMigrationGate} feature gate is disabled, so the Machine API controllers manage this resource`,
    );
  }
  return out;
}
