// How the GCP actuator reads one Machine's instance: the batched listing (a miss confirmed with instances.get),
// instances.get with "not found" as undefined, and the reference's project/zone classification, which makes a
// Machine Failed rather than retried forever when its project or zone does not exist.
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
    return new InvalidMachineConfigurationError(`${scope.project}: Project does not exist`, {
      field: `${PROVIDER_SPEC_PATH}.projectID`,
      cause: err,
    });
  }
  if (cls === 'invalid' && text.includes("'zone'")) {
    return new InvalidMachineConfigurationError(`${scope.spec.zone}: Zone does not exist`, {
      field: `${PROVIDER_SPEC_PATH}.zone`,
      cause: err,
    });
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

/** The Machine's instance as exists() counts it: see CloudActuator.lookUp. */
export async function lookUpInstance(
  scope: MachineScope,
  signal: AbortSignal,
): Promise<Instance | 'ended' | undefined> {
  try {
    const listed = await scope.clients.findInstance(scope.project, scope.spec.zone, scope.instanceName, signal);
    // A list may lag behind a fresh insert: only instances.get may call an instance gone.
    return listed ?? (await getInstance(scope, signal));
  } catch (err) {
    const located = locationError(scope, err) ?? err;
    // A project or zone that does not exist holds nothing, unless an instance is on record.
    if (isInvalidMachineConfiguration(located) && !scope.status.instanceId && !scope.machine.spec?.providerID)
      return 'ended';
    throw located;
  }
}

/** For delete: instances.get, where 'nowhere' says the spec's project or zone does not exist and none was ever recorded. */
export async function getForDelete(
  scope: MachineScope,
  signal: AbortSignal,
): Promise<Instance | 'nowhere' | undefined> {
  try {
    return await getInstance(scope, signal);
  } catch (err) {
    // An invalid project or zone never held an instance unless one is on record.
    if (isInvalidMachineConfiguration(err) && !scope.machine.spec?.providerID) return 'nowhere';
    throw err;
  }
}
