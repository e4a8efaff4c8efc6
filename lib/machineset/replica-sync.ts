// How a MachineSet reaches spec.replicas: the machines it lacks are created from its template and the ones
// too many are deleted by its delete policy, at most `burst` per pass. Creates go in slow-start batches
// (1, 2, 4, …) that stop at the first failing batch, so a rejected template costs one failed call rather than
// fifty. Every write is announced to the expectations first, so the next pass waits until the informer has
// seen them all; a write that failed will never be seen and is marked observed at once.
import { MACHINE_API_GROUP_VERSION, type Machine, type MachineSet } from '../apis/machine-types.js';
import type { EventRecorder } from '../client/event-recorder.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import type { Informer, ReconcileContext } from '../runtime/types.js';
import { machineSetControllerRef } from './controller-ref.js';
import { machinesToDelete, resolveDeletePolicy } from './delete-policy.js';
import type { MachineSetExpectations } from './expectations.js';
import type { RandomSource } from './random.js';
import { applyStamp, type TemplateStamp } from './rollout.js';

/**
 * A new Machine from the MachineSet's template, controlled by the MachineSet and stamped with the template it was
 * made from; the server names it.
 */
function newMachineFor(ms: MachineSet, stamp: TemplateStamp): Machine {
  const template = ms.spec?.template ?? {};
  const metadata: Machine['metadata'] = {
    generateName: `${ms.metadata.name ?? ''}-`,
    namespace: ms.metadata.namespace,
    ownerReferences: [machineSetControllerRef(ms)],
  };
  if (template.metadata?.labels) metadata.labels = { ...template.metadata.labels };
  if (template.metadata?.annotations) metadata.annotations = { ...template.metadata.annotations };
  applyStamp(metadata, stamp);
  return {
    apiVersion: MACHINE_API_GROUP_VERSION,
    kind: 'Machine',
    metadata,
    spec: structuredClone(template.spec ?? {}),
  };
}

export class ReplicaSync {
  constructor(
    private readonly client: KubeClient,
    private readonly machines: Informer<Machine>,
    private readonly events: EventRecorder,
    private readonly expectations: MachineSetExpectations,
    private readonly burst: number,
    private readonly random: RandomSource,
  ) {}

  /**
   * Creates or deletes up to `burst` machines. The informer events of those writes bring the MachineSet back
   * (and satisfy its expectations); the returned delay is only the fallback should they never arrive.
   * Undefined when the count is already right.
   */
  async sync(
    ms: MachineSet,
    key: string,
    owned: Machine[],
    stamp: TemplateStamp,
    ctx: ReconcileContext,
  ): Promise<number | undefined> {
    const replicas = ms.spec!.replicas!;
    const diff = owned.length - replicas;
    if (diff < 0) {
      const n = Math.min(-diff, this.burst);
      ctx.log.info('too few replicas, creating machines', { replicas, current: owned.length, creating: n });
      try {
        await this.createMachines(ms, key, n, stamp, ctx);
      } finally {
        this.expectations.writesDone(key);
      }
      return this.expectations.expiresInMs(key);
    }
    if (diff > 0) {
      const policy = resolveDeletePolicy(ms.spec!.deletePolicy);
      const victims = machinesToDelete(owned, Math.min(diff, this.burst), policy, this.random);
      ctx.log.info('too many replicas, deleting machines', {
        replicas,
        current: owned.length,
        deleting: victims.length,
        policy,
      });
      try {
        await this.deleteMachines(ms, key, victims, ctx);
      } finally {
        this.expectations.writesDone(key);
      }
      return this.expectations.expiresInMs(key);
    }
    return undefined;
  }

  /**
   * A rollout's step: deletes `victims` and creates `create` Machines from the current template, each bounded by
   * `burst`. The deletions go first, so a failing create cannot hold back the Machines the plan let go.
   */
  async apply(
    ms: MachineSet,
    key: string,
    create: number,
    victims: Machine[],
    stamp: TemplateStamp,
    ctx: ReconcileContext,
  ): Promise<number | undefined> {
    const deleting = victims.slice(0, this.burst);
    const creating = Math.min(create, this.burst);
    if (deleting.length === 0 && creating === 0) return undefined;
    ctx.log.info('rolling update', {
      replicas: ms.spec!.replicas,
      deleting: deleting.map((m) => m.metadata.name),
      creating,
      templateHash: stamp.hash,
    });
    let firstError: Error | undefined;
    try {
      if (deleting.length > 0)
        await this.deleteMachines(ms, key, deleting, ctx).catch((err: Error) => (firstError = err));
      if (creating > 0)
        await this.createMachines(ms, key, creating, stamp, ctx).catch((err: Error) => (firstError ??= err));
    } finally {
      this.expectations.writesDone(key);
    }
    if (firstError) throw firstError;
    return this.expectations.expiresInMs(key);
  }

  private async createMachines(
    ms: MachineSet,
    key: string,
    count: number,
    stamp: TemplateStamp,
    ctx: ReconcileContext,
  ): Promise<void> {
    this.expectations.expectCreations(key, count);
    const failures: string[] = [];
    let remaining = count;
    let batch = 1;
    while (remaining > 0) {
      const size = Math.min(batch, remaining);
      remaining -= size;
      const results = await Promise.allSettled(
        Array.from({ length: size }, () =>
          this.client.create(Machines, newMachineFor(ms, stamp), { signal: ctx.signal }),
        ),
      );
      for (const r of results) {
        if (r.status === 'fulfilled') {
          this.events.event(
            ms,
            'Normal',
            'SuccessfulCreate',
            'Create',
            `Created machine: ${r.value.metadata.name ?? ''}`,
          );
        } else {
          // The informer will never see this one.
          this.expectations.creationObserved(key);
          const msg = (r.reason as Error).message;
          failures.push(msg);
          this.events.event(ms, 'Warning', 'FailedCreate', 'Create', `Error creating: ${msg}`);
        }
      }
      if (failures.length > 0) {
        for (let i = 0; i < remaining; i++) this.expectations.creationObserved(key);
        break;
      }
      batch *= 2;
    }
    if (failures.length > 0) throw new Error(failures.join('; '));
  }

  private async deleteMachines(ms: MachineSet, key: string, victims: Machine[], ctx: ReconcileContext): Promise<void> {
    this.expectations.expectDeletions(
      key,
      victims.map((m) => m.metadata.uid ?? ''),
    );
    const results = await Promise.allSettled(
      victims.map((m) =>
        this.client.delete(
          Machines,
          { namespace: m.metadata.namespace, name: m.metadata.name ?? '' },
          { preconditions: { uid: m.metadata.uid }, signal: ctx.signal },
        ),
      ),
    );
    let firstError: Error | undefined;
    results.forEach((r, i) => {
      const m = victims[i]!;
      const uid = m.metadata.uid ?? '';
      if (r.status === 'fulfilled') {
        this.events.event(ms, 'Normal', 'SuccessfulDelete', 'Delete', `Deleted machine: ${m.metadata.name ?? ''}`);
        if (this.gone(m)) this.expectations.deletionObserved(key, uid);
        return;
      }
      if (isNotFound(r.reason)) {
        // Already gone: if the cache has caught up too, there is nothing left to observe.
        if (this.gone(m)) this.expectations.deletionObserved(key, uid);
        return;
      }
      this.expectations.deletionObserved(key, uid);
      const err = r.reason as Error;
      firstError ??= err;
      this.events.event(ms, 'Warning', 'FailedDelete', 'Delete', `Error deleting: ${err.message}`);
    });
    if (firstError) throw firstError;
  }

  /** The cache no longer shows this machine as active. */
  private gone(m: Machine): boolean {
    const cur = this.machines.get({ namespace: m.metadata.namespace, name: m.metadata.name ?? '' });
    return !cur || cur.metadata.uid !== m.metadata.uid || !!cur.metadata.deletionTimestamp;
  }
}
