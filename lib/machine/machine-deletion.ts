// The deletion half of the machine controller's reconcile: a Machine with a deletionTimestamp goes to phase
// Deleting, waits for the drain controller (the Drained and VolumesDetached conditions) and for pre-terminate
// hooks, has its instance deleted by the actuator and followed until it is gone, then loses its own Node and,
// last, the machine finalizer.
import { MachineFinalizer, PhaseDeleting } from '../apis/constants.js';
import type { Clock } from '../base/clock.js';
import { isNotFound } from '../client/errors.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import { TerminationFollower, type TerminationFollowPolicy } from '../cloud/termination-follower.js';
import { requestKey } from '../runtime/request-key.js';
import type { Result } from '../runtime/types.js';
import type { Actuator, ActuatorContext } from './actuator.js';
import { isInvalidMachineConfiguration, messageOf, requeueAfterOf } from '../apis/errors.js';
import { isDrainFinished, isWaitingForVolumes } from './drain/drain-finished.js';
import { hasPreTerminateHooks } from './lifecycle-hooks.js';
import type { MachineDraft } from './machine-writer.js';
import { clone } from './merge-patch.js';
import { deleteOwnNode } from './own-node.js';
import { markSecretsAvailable, reportMissingSecret } from './secrets-available.js';
import type { StatusWriter } from './status-writer.js';

export interface MachineDeletionDeps {
  client: KubeClient;
  actuator: Actuator;
  clock: Clock;
  events: EventRecorder;
  /** How often a deleted Machine's terminating instance is looked at (default: TerminationFollower's). */
  terminationFollow?: Partial<TerminationFollowPolicy>;
}

export class MachineDeletion {
  /** Deleted Machines whose instance is terminating, keyed like the queue. */
  private readonly terminations: TerminationFollower;

  constructor(
    private readonly d: MachineDeletionDeps,
    private readonly status: StatusWriter,
  ) {
    this.terminations = new TerminationFollower(d.clock, d.terminationFollow);
  }

  /** Forgets a Machine that is gone. */
  forget(key: string): void {
    this.terminations.done(key);
  }

  async reconcile(draft: MachineDraft, actx: ActuatorContext): Promise<Result | void> {
    const { d } = this;
    const { log, signal } = actx;
    if (!(await writtenUnlessGone(() => this.status.updateStatus(draft, PhaseDeleting, undefined, signal)))) return;
    if (!(draft.machine.metadata.finalizers ?? []).includes(MachineFinalizer)) return;
    // The drain controller's status patch re-triggers us once the node is drained (or its drain timed out) and
    // its volumes have detached (or that wait timed out).
    if (!isDrainFinished(draft.machine) || isWaitingForVolumes(draft.machine)) return;
    if (hasPreTerminateHooks(draft.machine)) return;

    try {
      await d.actuator.delete(draft.machine, actx);
      markSecretsAvailable(draft.machine, d.clock.now());
    } catch (err) {
      // A missing Secret is never a reason to let go: the instance may exist, and only its credentials can
      // terminate it. The finalizer stays and the condition says what the deletion waits for.
      reportMissingSecret(draft.machine, err, 'Delete', d.events, d.clock.now());
      await this.status.persistLogged(draft, log, signal);
      // Only an invalid spec on a machine that never got addresses lets deletion go on.
      if ((draft.machine.status?.addresses?.length ?? 0) > 0 || !isInvalidMachineConfiguration(err))
        return waitOrFail(err);
      log.info('actuator delete rejected an invalid configuration for a machine without addresses; proceeding', {
        error: messageOf(err),
      });
    }
    let exists: boolean;
    try {
      exists = await d.actuator.exists(draft.machine, actx);
    } catch (err) {
      return waitOrFail(err);
    }
    if (!(await writtenUnlessGone(() => draft.persist(signal)))) return;
    // Terminations take seconds: look again soon, then less often (not a fixed requeueAfterMs, which would
    // make every delete last at least that long).
    const key = requestKey(draft.key);
    if (exists) return { requeueAfterMs: this.terminations.next(key) };
    this.terminations.done(key);

    const nodeName = draft.machine.status?.nodeRef?.name;
    if (nodeName) await deleteOwnNode(d.client, draft.machine, nodeName, log, signal);
    const m = clone(draft.machine);
    m.metadata.finalizers = (m.metadata.finalizers ?? []).filter((f) => f !== MachineFinalizer);
    await writtenUnlessGone(() => d.client.update(Machines, m, { signal }));
  }
}

/** A wait the actuator asked for (RequeueAfter) becomes a requeue; any other error fails the pass. */
function waitOrFail(err: unknown): Result {
  const after = requeueAfterOf(err);
  if (after !== undefined) return { requeueAfterMs: after };
  throw err instanceof Error ? err : new Error(String(err));
}

/**
 * Runs a write to a Machine being deleted; false when the Machine is gone. A pass that started from a cache
 * that has not caught up with the finalizer's removal finds nothing left to do: that is the end of a normal
 * deletion, not an error.
 */
async function writtenUnlessGone(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
