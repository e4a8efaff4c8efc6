// The generic scale-from-zero controller: asks a provider's InstanceTypeCatalog what the MachineSet's
// template would run on and writes the capacity annotations (scale-from-zero.ts) with a merge patch of
// annotations only, and only when something changed. Behaviour on failure follows the provider
// controllers of the reference (MAPA/MAPG pkg/actuators/machineset/controller.go):
//  - unknown instance type → Warning FailedUpdate event, no annotations, no retry;
//  - invalid providerSpec → Warning ReconcileError event, no retry;
//  - anything else (cloud unreachable, throttled) → Warning ReconcileError event and a retry with backoff.
// A MachineSet whose outcome was terminal is not looked up again until its spec changes (generation), so
// status updates from the MachineSet controller do not repeat the same event over and over.
import {
  CapacityCPUAnnotation,
  CapacityMemoryAnnotation,
  GPUAnnotation,
  MemoryMbAnnotation,
  VCPUAnnotation,
} from '../apis/constants.js';
import type { MachineSet } from '../apis/machine-types.js';
import type { KubeObject } from '../apis/meta.js';
import { isNotFound } from '../client/errors.js';
import { MachineSets } from '../client/resources.js';
import { isInvalidMachineConfiguration } from '../apis/errors.js';
import type { ControllerManager, Informer, ReconcileContext, Reconciler, Request, Result } from '../runtime/types.js';
import { anyCause, credentialsSecretIn, refusedCredentialsNote } from '../machine/refused-credentials.js';
import type { InstanceTypeCatalog } from './instance-type-catalog.js';
import { changedAnnotations, scaleFromZeroAnnotations } from './scale-from-zero.js';

export const SCALE_FROM_ZERO_CONTROLLER_NAME = 'machineset-scale-from-zero-controller';
/** The event source name the provider MachineSet controllers use. */
export const SCALE_FROM_ZERO_EVENT_SOURCE = 'machineset-controller';
export const UNKNOWN_INSTANCE_TYPE_MESSAGE = 'Failed to set autoscaling from zero annotations, instance type unknown';

export interface ScaleFromZeroControllerOptions {
  /** Workers; the manager's default when unset. */
  maxConcurrentReconciles?: number;
}

export function addScaleFromZeroController(
  mgr: ControllerManager,
  catalog: InstanceTypeCatalog,
  opts: ScaleFromZeroControllerOptions = {},
): void {
  const machineSets = mgr.informer(MachineSets);
  const events = mgr.eventRecorder(SCALE_FROM_ZERO_EVENT_SOURCE);
  // key → "<uid>/<generation>" of a MachineSet whose last outcome retrying cannot change.
  const settled = new Map<string, string>();
  const fingerprint = (ms: MachineSet): string => `${ms.metadata.uid ?? ''}/${ms.metadata.generation ?? ''}`;

  const reconciler: Reconciler = {
    async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
      const key = `${req.namespace ?? ''}/${req.name}`;
      const ms = machineSets.get(req);
      if (!ms) {
        settled.delete(key);
        return;
      }
      if (ms.metadata.deletionTimestamp) return;
      if (settled.get(key) === fingerprint(ms)) return;

      let desired: Record<string, string>;
      try {
        const info = await catalog.lookup(ms, { signal: ctx.signal, log: ctx.log });
        if (!info) {
          ctx.log.error('unable to set scale from zero annotations: unknown instance type');
          ctx.log.error(
            'autoscaling from zero will not work; to fix this, set these annotations on the MachineSet by hand',
            {
              annotations: [
                VCPUAnnotation,
                MemoryMbAnnotation,
                GPUAnnotation,
                CapacityCPUAnnotation,
                CapacityMemoryAnnotation,
              ],
            },
          );
          events.event(ms, 'Warning', 'FailedUpdate', 'Update', UNKNOWN_INSTANCE_TYPE_MESSAGE);
          settled.set(key, fingerprint(ms));
          return;
        }
        desired = scaleFromZeroAnnotations(info, ms.metadata.annotations);
      } catch (err) {
        const message = (err as Error).message;
        const secret = credentialsSecretIn(ms.metadata.namespace ?? '', ms.spec?.template?.spec?.providerSpec?.value);
        const refuses = catalog.refusesCredentials?.bind(catalog);
        const refused = secret && refuses && anyCause(err, refuses) ? `; ${refusedCredentialsNote(secret)}` : '';
        events.event(ms, 'Warning', 'ReconcileError', 'Reconcile', `${message}${refused}`);
        if (isInvalidMachineConfiguration(err)) {
          ctx.log.error('invalid providerSpec; not retrying until the MachineSet changes', { error: message });
          settled.set(key, fingerprint(ms));
          return;
        }
        throw err;
      }
      settled.delete(key);

      const changes = changedAnnotations(ms.metadata.annotations, desired);
      if (!changes) return;
      try {
        await mgr.client.patch(
          MachineSets,
          { namespace: ms.metadata.namespace, name: ms.metadata.name ?? '' },
          { type: 'merge', body: { metadata: { annotations: changes } } },
          // The labels annotation was merged from what we read: do not overwrite a newer one.
          { resourceVersion: ms.metadata.resourceVersion, signal: ctx.signal },
        );
        ctx.log.info('set scale from zero annotations', { annotations: changes });
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
    },
  };

  mgr.addController({
    name: SCALE_FROM_ZERO_CONTROLLER_NAME,
    reconciler,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    watches: [{ informer: machineSets as unknown as Informer<KubeObject>, enqueue: 'self' }],
  });
}
