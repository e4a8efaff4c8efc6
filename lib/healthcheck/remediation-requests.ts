// The external half of remediation: when an MHC names a remediation template, an unhealthy machine gets a
// request object cloned from it (one per machine, named after it), and a machine that is healthy again loses
// its request. The External* conditions say how the last attempt went; the caller persists them with the
// rest of the MHC's status.
import {
  ExternalRemediationRequestAvailableCondition,
  ExternalRemediationRequestCreationFailedReason,
  ExternalRemediationTemplateAvailableCondition,
  ExternalRemediationTemplateNotFoundReason,
} from '../apis/constants.js';
import { falseCondition, setCondition, trueCondition } from '../apis/conditions.js';
import type { Condition, MachineHealthCheck } from '../apis/machine-types.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import type { Clock } from '../base/clock.js';
import type { ReconcileContext } from '../runtime/types.js';
import {
  buildRemediationRequest,
  requestKindFor,
  type ResourceResolver,
  type UnstructuredObject,
} from './external-remediation.js';
import { targetString, type HealthCheckTarget } from './health.js';

export class RemediationRequests {
  constructor(
    private readonly client: KubeClient,
    private readonly clock: Clock,
    private readonly resolveResource: ResourceResolver,
  ) {}

  /** Whether the remediation request for `t` exists. */
  async exists(mhc: MachineHealthCheck, t: HealthCheckTarget, signal: AbortSignal): Promise<boolean> {
    const ref = mhc.spec!.remediationTemplate!;
    const resource = this.resolveResource(ref.apiVersion ?? '', requestKindFor(ref.kind ?? ''));
    try {
      await this.client.get(
        resource,
        { namespace: mhc.metadata.namespace, name: t.machine.metadata.name ?? '' },
        { signal },
      );
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Creates the remediation request for `t` unless it exists. Returns the conditions with the External*
   * conditions updated (persisted with the rest of the status) and the error, if any.
   */
  async ensure(
    mhc: MachineHealthCheck,
    t: HealthCheckTarget,
    conditions: Condition[] | undefined,
    ctx: ReconcileContext,
  ): Promise<{ conditions: Condition[]; error?: Error }> {
    const ref = mhc.spec!.remediationTemplate!;
    const now = this.clock.now();
    const m = t.machine;
    const requestKind = requestKindFor(ref.kind ?? '');
    const requestResource = this.resolveResource(ref.apiVersion ?? '', requestKind);
    try {
      await this.client.get(
        requestResource,
        { namespace: mhc.metadata.namespace, name: m.metadata.name ?? '' },
        { signal: ctx.signal },
      );
      return { conditions: conditions ?? [] };
    } catch (err) {
      if (!isNotFound(err)) return { conditions: conditions ?? [], error: err as Error };
    }

    let template: UnstructuredObject;
    try {
      template = await this.client.get(
        this.resolveResource(ref.apiVersion ?? '', ref.kind ?? ''),
        { namespace: m.metadata.namespace, name: ref.name ?? '' },
        { signal: ctx.signal },
      );
    } catch (err) {
      const message = `error retrieving remediation template ${ref.kind ?? ''} ${m.metadata.namespace ?? ''}/${ref.name ?? ''}: ${(err as Error).message}`;
      return {
        conditions: setCondition(
          conditions,
          falseCondition(
            ExternalRemediationTemplateAvailableCondition,
            ExternalRemediationTemplateNotFoundReason,
            'Error',
            message,
          ),
          now,
        ),
        error: new Error(message, { cause: err }),
      };
    }
    const next = setCondition(conditions, trueCondition(ExternalRemediationTemplateAvailableCondition), now);

    try {
      await this.client.create(requestResource, buildRemediationRequest(template, ref, m), { signal: ctx.signal });
    } catch (err) {
      const message = `error creating remediation request for machine ${m.metadata.name ?? ''}: ${(err as Error).message}`;
      return {
        conditions: setCondition(
          next,
          falseCondition(
            ExternalRemediationRequestAvailableCondition,
            ExternalRemediationRequestCreationFailedReason,
            'Error',
            message,
          ),
          now,
        ),
        error: new Error(message, { cause: err }),
      };
    }
    ctx.log.info('created external remediation request', { target: targetString(mhc, t), kind: requestKind });
    return { conditions: setCondition(next, trueCondition(ExternalRemediationRequestAvailableCondition), now) };
  }

  /** Deletes the remediation requests of machines that are healthy again. Errors are only logged. */
  async cleanUp(mhc: MachineHealthCheck, healthy: HealthCheckTarget[], ctx: ReconcileContext): Promise<void> {
    const ref = mhc.spec!.remediationTemplate!;
    const resource = this.resolveResource(ref.apiVersion ?? '', requestKindFor(ref.kind ?? ''));
    for (const t of healthy) {
      const key = { namespace: mhc.metadata.namespace, name: t.machine.metadata.name ?? '' };
      try {
        const req = await this.client.get(resource, key, { signal: ctx.signal });
        if (req.metadata.deletionTimestamp) continue;
        await this.client.delete(resource, key, { signal: ctx.signal });
        ctx.log.info('deleted the remediation request of a healthy machine', { target: targetString(mhc, t) });
      } catch (err) {
        if (!isNotFound(err))
          ctx.log.warn('failed to clean up remediation request', {
            target: targetString(mhc, t),
            error: (err as Error).message,
          });
      }
    }
  }
}
