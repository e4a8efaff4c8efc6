// Turning a Machine's opaque spec.providerSpec.value into a provider's typed config. A missing or undecodable
// value is a configuration error (terminal: phase Failed, errorReason InvalidConfiguration), never a retry.
import type { Machine, MachineSet } from '../apis/machine-types.js';
import { InvalidMachineConfigurationError, messageOf } from '../apis/errors.js';

export const PROVIDER_SPEC_VALUE_FIELD = 'spec.providerSpec.value';
/** Where a MachineSet's template holds its providerSpec value. */
export const TEMPLATE_PROVIDER_SPEC_VALUE_FIELD = 'spec.template.spec.providerSpec.value';

function required(value: unknown, field: string, owner: string): unknown {
  if (!value)
    throw new InvalidMachineConfigurationError(`${field}: Required value: the ${owner} has no providerSpec`, { field });
  return value;
}

/** The Machine's providerSpec value, for a provider's own decoder; none is InvalidConfiguration naming the field. */
export const machineProviderSpecValue = (machine: Machine): unknown =>
  required(machine.spec?.providerSpec?.value, PROVIDER_SPEC_VALUE_FIELD, 'machine');

/** The providerSpec value of a MachineSet's template (scale-from-zero reads it); none is InvalidConfiguration naming the field. */
export const templateProviderSpecValue = (machineSet: MachineSet): unknown =>
  required(machineSet.spec?.template?.spec?.providerSpec?.value, TEMPLATE_PROVIDER_SPEC_VALUE_FIELD, 'machine set');

/**
 * Runs `decode` on spec.providerSpec.value.
 * - value missing/null → InvalidMachineConfigurationError (field "spec.providerSpec.value");
 * - value not a JSON object → InvalidMachineConfigurationError naming the type found;
 * - `decode` throws InvalidMachineConfigurationError → passed through unchanged (it names its own field);
 * - `decode` throws anything else → wrapped in InvalidMachineConfigurationError with the original as cause.
 * `decode` gets the value itself; copy it first if it mutates.
 */
export function decodeProviderSpec<T>(machine: Machine, decode: (value: Record<string, unknown>) => T): T {
  const name = machine.metadata.name ?? '';
  const value: unknown = machine.spec?.providerSpec?.value;
  if (value === undefined || value === null) {
    throw new InvalidMachineConfigurationError(
      `${name}: ${PROVIDER_SPEC_VALUE_FIELD}: Required value: the provider configuration is missing`,
      {
        field: PROVIDER_SPEC_VALUE_FIELD,
      },
    );
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    const found = Array.isArray(value) ? 'array' : typeof value;
    throw new InvalidMachineConfigurationError(
      `${name}: ${PROVIDER_SPEC_VALUE_FIELD}: Invalid value: must be an object, found ${found}`,
      {
        field: PROVIDER_SPEC_VALUE_FIELD,
      },
    );
  }
  try {
    return decode(value as Record<string, unknown>);
  } catch (err) {
    if (err instanceof InvalidMachineConfigurationError) throw err;
    const detail = messageOf(err);
    throw new InvalidMachineConfigurationError(`${name}: failed to decode ${PROVIDER_SPEC_VALUE_FIELD}: ${detail}`, {
      field: PROVIDER_SPEC_VALUE_FIELD,
      cause: err,
    });
  }
}
