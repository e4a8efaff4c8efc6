// How the IBM actuator finds a Machine's instance: by the id on record (GET, or a resync's list of the VPC),
// else by the Machine's identity, its name within the VPC. Deleting reads afresh, and a
// create refused because the name is taken reads which instance holds it.
import { RequeueAfterError, failureStep, viewCanBeCurrent, type ActuatorContext } from '../../lib/index.js';
import { classifyVpcError } from './errors.js';
import { isBooting } from './instances.js';
import type { MachineScope } from './machine-scope.js';
import type { VpcInstance } from './vpc-types.js';

/** GET /instances/{id}, with 404 as undefined. */
export async function getInstanceById(
  scope: MachineScope,
  id: string,
  signal: AbortSignal,
): Promise<VpcInstance | undefined> {
  try {
    return await scope.clients.vpc.getInstance(id, { signal });
  } catch (err) {
    if (classifyVpcError(err) === 'notFound') return undefined;
    throw err;
  }
}

/** The Machine's instance as exists() counts it; `id` is the one on record, if any. */
export async function lookUpInstance(
  scope: MachineScope,
  id: string | undefined,
  signal: AbortSignal,
): Promise<VpcInstance | undefined> {
  const current = viewCanBeCurrent(scope.machine, isBooting);
  // A miss by id was a GET's 404 (a listing never says "not found"), so it needs no second read.
  const found = await scope.clients.findInstance(
    scope.spec.vpc,
    id ? { id } : { name: scope.instanceName },
    signal,
    current,
  );
  // Found by name only while being deleted: a predecessor's of the same name, not this Machine's.
  return found && !(found.status === 'deleting' && !scope.status.instanceId) ? found : undefined;
}

/** The first instance of the Machine's name in its VPC, read afresh. */
const byName = async (scope: MachineScope, signal: AbortSignal): Promise<VpcInstance | undefined> =>
  (await scope.clients.vpc.listInstances({ name: scope.instanceName, vpcName: scope.spec.vpc }, { signal }))[0];

/**
 * For delete, with fresh reads, not the batch: deciding to delete deserves the current state. By id when one is
 * known; by the Machine's name otherwise, and when the id misses an instance that was never seen terminating
 * (the id's read may lag, or the instance was made again under the same name).
 */
export async function findForDelete(
  scope: MachineScope,
  id: string | undefined,
  terminationSeen: boolean,
  signal: AbortSignal,
): Promise<VpcInstance | undefined> {
  const instance = id
    ? await failureStep('failed to get instance', () => getInstanceById(scope, id, signal))
    : undefined;
  if (instance || (id && terminationSeen)) return instance;
  const named = await failureStep('failed to get instance', () => byName(scope, signal));
  // Another instance of the name already going away is a predecessor's, not the one on record.
  return named && id && named.id !== id && named.status === 'deleting' ? undefined : named;
}

/**
 * The instance that holds the Machine's name after a create answered 409: an earlier or racing create of this
 * Machine made it (adopt it), or a predecessor of the same name is still going away, or the list does not show
 * it yet (wait for either).
 */
export async function holderOfName(
  scope: MachineScope,
  requeueAfterMs: number,
  ctx: ActuatorContext,
): Promise<VpcInstance> {
  const taken = await byName(scope, ctx.signal);
  if (!taken || taken.status === 'deleting') {
    ctx.log.info('instance name taken by an instance not listed yet, or still being deleted; requeueing', {
      instance: scope.instanceName,
    });
    throw new RequeueAfterError(requeueAfterMs);
  }
  ctx.log.info('instance name already taken in the VPC; adopting the instance', {
    instanceId: taken.id,
    state: taken.status,
  });
  return taken;
}
