// The internal half of remediation, for an MHC without a remediation template: an unhealthy machine is
// deleted so that its MachineSet replaces it, or, under the external-baremetal strategy annotation, marked
// for the bare-metal operator to remediate in place. A machine without a controller owner is skipped: no one
// would create its replacement.
import {
  ExternalRemediationAnnotation,
  PhaseFailed,
  RemediatedByAnnotation,
  RemediationStrategyAnnotation,
  RemediationStrategyExternalBaremetal,
} from '../apis/constants.js';
import type { Machine, MachineHealthCheck } from '../apis/machine-types.js';
import { getControllerOf } from '../apis/objects.js';
import type { EventRecorder } from '../client/event-recorder.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import type { ReconcileContext } from '../runtime/types.js';
import type { EventOnce } from './event-once.js';
import { targetString, type HealthCheckTarget } from './health.js';
import type { HealthCheckMetrics } from './metrics.js';

/**
 * Whether internal remediation would act on `m`: mark it for external bare-metal remediation, or delete it (only
 * with a controller owner, which will replace it).
 */
export function wouldRemediate(mhc: MachineHealthCheck, m: Machine): boolean {
  return remediatedInPlace(mhc, m) || getControllerOf(m) !== undefined;
}

/** Under the external-baremetal strategy a Machine that has not failed is remediated in place, by annotation. */
const remediatedInPlace = (mhc: MachineHealthCheck, m: Machine): boolean =>
  m.status?.phase !== PhaseFailed &&
  mhc.metadata.annotations?.[RemediationStrategyAnnotation] === RemediationStrategyExternalBaremetal;

export class MachineRemediation {
  constructor(
    private readonly client: KubeClient,
    private readonly events: EventRecorder,
    private readonly metrics: HealthCheckMetrics,
    /** The reconciler's, so that its retain() also ends the SkippedNoController episodes reported here. */
    private readonly once: EventOnce,
  ) {}

  /**
   * Remediates `t`. `key` is the MHC's queue key; the once-keys of events still standing are added to
   * `live`, so the reconciler forgets the rest. With `markRemediated` (the MHC limits remediations in flight) a
   * Machine is marked remediated-by the MHC before it is deleted. True when this call started a remediation
   * (deleted the Machine, or marked it for external remediation).
   */
  async remediate(
    mhc: MachineHealthCheck,
    t: HealthCheckTarget,
    key: string,
    live: Set<string>,
    ctx: ReconcileContext,
    markRemediated = false,
  ): Promise<boolean> {
    const m = t.machine;
    const target = targetString(mhc, t);
    const mkey = { namespace: m.metadata.namespace, name: m.metadata.name ?? '' };

    if (remediatedInPlace(mhc, m)) {
      if (m.metadata.annotations && ExternalRemediationAnnotation in m.metadata.annotations) return false;
      const note = `Requesting external remediation of node associated with machine ${target}`;
      try {
        await this.client.patch(
          Machines,
          mkey,
          { type: 'merge', body: { metadata: { annotations: { [ExternalRemediationAnnotation]: '' } } } },
          { signal: ctx.signal },
        );
      } catch (err) {
        this.events.event(
          m,
          'Warning',
          'ExternalAnnotationFailed',
          'Remediate',
          `${note} failed: ${(err as Error).message}`,
        );
        throw err;
      }
      this.events.event(m, 'Normal', 'ExternalAnnotationAdded', 'Remediate', note);
      return true;
    }

    if (!getControllerOf(m)) {
      const note = `Machine ${target} has no controller owner, skipping remediation`;
      const onceKey = `${key}|${m.metadata.uid ?? ''}|SkippedNoController`;
      live.add(onceKey);
      this.once.emit(onceKey, note, () => this.events.event(m, 'Normal', 'SkippedNoController', 'Remediate', note));
      return false;
    }

    let fresh: Machine;
    try {
      fresh = await this.client.get(Machines, mkey, { signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    if (fresh.metadata.deletionTimestamp) return false;
    if (markRemediated) {
      // The mark lets every later pass (after a restart too) count this deletion as one of the MHC's
      // remediations in flight; written first, so a Machine is never deleted by us without it.
      await this.client.patch(
        Machines,
        mkey,
        {
          type: 'merge',
          body: {
            metadata: {
              resourceVersion: fresh.metadata.resourceVersion,
              annotations: { [RemediatedByAnnotation]: mhc.metadata.name ?? '' },
            },
          },
        },
        { signal: ctx.signal },
      );
    }

    try {
      await this.client.delete(Machines, mkey, { preconditions: { uid: fresh.metadata.uid }, signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return false;
      this.events.event(
        m,
        'Warning',
        'MachineDeletionFailed',
        'Remediate',
        `Machine ${target} remediation failed: unable to delete Machine object: ${(err as Error).message}`,
      );
      throw err;
    }
    this.events.event(
      m,
      'Normal',
      'MachineDeleted',
      'Remediate',
      `Machine ${target} has been remediated by requesting to delete Machine object`,
    );
    this.metrics.remediationSuccess.inc({ name: mhc.metadata.name ?? '', namespace: mhc.metadata.namespace ?? '' });
    ctx.log.info('remediated machine by deleting it', { target });
    return true;
  }
}
