// The machine controller's own validation (the cluster label and a providerSpec value, as the reference checks
// before anything else); provider-specific checks live in actuators.
import { MachineClusterIDLabel } from '../apis/constants.js';
import type { Machine } from '../apis/machine-types.js';

export interface FieldError {
  field: string;
  detail: string;
}

export function validateMachine(machine: Machine): FieldError[] {
  const errs: FieldError[] = [];
  if (!machine.metadata.labels?.[MachineClusterIDLabel]) {
    errs.push({ field: 'spec.labels', detail: `missing ${MachineClusterIDLabel} label.` });
  }
  if (machine.spec?.providerSpec?.value == null) {
    errs.push({ field: 'spec.spec.providerspec', detail: 'value field must be set' });
  }
  return errs;
}

export class MachineValidationError extends Error {
  override readonly name = 'MachineValidationError';
  constructor(
    machineName: string,
    readonly fieldErrors: FieldError[],
  ) {
    const parts = fieldErrors.map((e) => `${e.field}: Invalid value: ${e.detail}`);
    // k8s aggregates print a single error bare and several in brackets.
    super(`${machineName}: machine validation failed: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`);
  }
}
