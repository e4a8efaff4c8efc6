// How the GCP actuator reads one Machine's instance outside the batched listing: instances.get with "not found"
// as undefined, and the reference's project/zone classification, which makes a Machine Failed rather than
// retried forever when its project or zone does not exist.
import { InvalidMachineConfigurationError, isInvalidMachineConfiguration } from '../../lib/index.js';
import type { Instance } from './compute-api.js';
import { classifyGceError } from './errors.js';
import type { MachineScope } from './machine-scope.js';
import { PROVIDER_SPEC_PATH } from './provider-spec.js';

/** The InvalidConfiguration a GCE error means when it names the spec's project or zone, else undefined. */
export function locationError(scope: MachineScope, err: unknown): Error | undefined {
  const cls = classifyGceError(err);
  const text = err instanceof Error ? err.message : '';
  if (cls === 'notFound' && text.includes(`'projects/${scope.project}'`)) {
    return new InvalidMachineConfigurationError(`${scope.project}: Project does not exist`, { field: `${PROVIDER_SPEC_PATH}.projectID`, cause: err });
  }
  if (cls === 'invalid' && text.includes("'zone'")) {
    return new InvalidMachineConfigurationError(`${scope.spec.zone}: Zone does not exist`, { field: `${PROVIDER_SPEC_PATH}.zone`, cause: err });
  }
  return undefined;
}

/** instances.get of the Machine's instance; undefined when GCE does not know it. */
export async function getInstance(scope: MachineScope, signal: AbortSignal): Promise<Instance | undefined> {
  try {
    return await scope.clients.compute.getInstance(scope.project, scope.spec.zone, scope.instanceName, { signal });
  } catch (err) {
    const located = locationError(scope, err) ?? err;
    if (isInvalidMachineConfiguration(located)) throw located;
    if (classifyGceError(err) === 'notFound') return undefined;
    throw err;
  }
}
