// The machine-drain-controller: once the machine controller has set phase Deleting, drain the machine's node
// and record Drained=True so that the machine controller may terminate the instance.
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/machine/drain_controller.go
// A failed drain is persisted as Drained=False/DrainError, visible to users (the reference set it in memory and
// returned before writing it, so only the DrainRequeued event showed the failure).
import {
  DrainErrorReason,
  DrainedCondition,
  ExcludeNodeDrainingAnnotation,
  PhaseDeleting,
} from '../../apis/constants.js';
import type { Node } from '../../apis/core.js';
import type { Machine } from '../../apis/machine-types.js';
import { isNodeOfAnotherInstance } from '../../apis/node-identity.js';
import { isNotFound } from '../../client/errors.js';
import { Nodes } from '../../client/resources.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KubeClient } from '../../client/kube-client.js';
import type { Clock } from '../../base/clock.js';
import { requestKey } from '../../runtime/request-key.js';
import type { Informer, ReconcileContext, Reconciler, Request, Result } from '../../runtime/types.js';
import { falseCondition, isConditionTrue, setCondition, trueConditionWithReason } from '../../apis/conditions.js';
import { messageOf, requeueAfterOf } from '../../apis/errors.js';
import { hasPreDrainHooks } from '../lifecycle-hooks.js';
import { fingerprintOf } from '../reconcile-pacing.js';
import { MachineDraft } from '../machine-writer.js';
import { clone } from '../merge-patch.js';
import { RetryGate } from '../retry-gate.js';
import type { NodeDrainer } from './node-drainer.js';

export interface DrainReconcilerDeps {
  client: KubeClient;
  machines: Informer<Machine>;
  drainer: NodeDrainer;
  clock: Clock;
  events: EventRecorder;
  retryBaseMs: number;
  retryMaxMs: number;
}

export class DrainReconciler implements Reconciler {
  private readonly gate: RetryGate;

  constructor(private readonly d: DrainReconcilerDeps) {
    this.gate = new RetryGate(d.clock, d.retryBaseMs, d.retryMaxMs);
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const cached = this.d.machines.get(req);
    if (!cached) {
      // Gone: its backoff entry would otherwise stay for the life of the process.
      this.gate.succeeded(requestKey(req));
      return;
    }
    if (!cached.metadata.deletionTimestamp || cached.status?.phase !== PhaseDeleting) return;
    if (isConditionTrue(cached.status?.conditions, DrainedCondition)) return;

    const key = requestKey(req);
    const fp = fingerprintOf(cached);
    // Our own DrainError status write comes straight back through the watch; hold it to the backoff.
    const wait = this.gate.remaining(key, fp);
    if (wait !== undefined) return { requeueAfterMs: wait };
    const started = this.d.clock.now();

    const draft = new MachineDraft(clone(cached), this.d.client);
    const machine = draft.machine;
    const { events } = this.d;
    const nodeName = machine.status?.nodeRef?.name;
    let message: string;
    if (machine.metadata.annotations?.[ExcludeNodeDrainingAnnotation] === undefined && nodeName) {
      if (hasPreDrainHooks(machine)) {
        events.event(machine, 'Normal', 'DrainBlocked', 'Drain', 'Drain blocked by pre-drain hook');
        return;
      }
      let stranger: string | undefined;
      try {
        stranger = await this.nodeOfAnotherInstance(nodeName, machine, ctx.signal);
      } catch (err) {
        return this.drainFailed(draft, err, key, fp, started, ctx);
      }
      if (stranger) {
        // The instance is gone and its private IP, hence the Node name in nodeRef, went to a new instance:
        // cordoning and evicting that Node would hurt a healthy Machine, and nothing of ours is left to drain.
        events.event(
          machine,
          'Normal',
          'DrainSkipped',
          'Drain',
          `Node drain skipped: node "${nodeName}" belongs to instance ${stranger}`,
        );
        message = 'Node drain skipped';
      } else {
        events.event(machine, 'Normal', 'DrainProceeds', 'Drain', 'Node drain proceeds');
        try {
          const outcome = await this.d.drainer.drain(nodeName, ctx.signal);
          if (outcome === 'drained') events.event(machine, 'Normal', 'Deleted', 'Drain', `Node "${nodeName}" drained`);
        } catch (err) {
          return this.drainFailed(draft, err, key, fp, started, ctx);
        }
        events.event(machine, 'Normal', 'DrainSucceeded', 'Drain', 'Node drain succeeded');
        message = 'Drain finished successfully';
      }
    } else {
      events.event(machine, 'Normal', 'DrainSkipped', 'Drain', 'Node drain skipped');
      message = 'Node drain skipped';
    }

    const status = (machine.status ??= {});
    status.conditions = setCondition(
      status.conditions,
      trueConditionWithReason(DrainedCondition, '', message),
      this.d.clock.now(),
    );
    try {
      await draft.persist(ctx.signal);
    } catch (err) {
      if (isNotFound(err)) return this.gone(key, ctx);
      this.gate.failed(key, fp, started);
      throw new Error(`could not patch machine status: ${messageOf(err)}`, { cause: err });
    }
    this.gate.succeeded(key);
  }

  /**
   * The Machine went while it was drained (a pass that started from a cache behind the finalizer's removal):
   * nothing is left to drain or record, which is how a deletion ends, not an error.
   */
  private gone(key: string, ctx: ReconcileContext): Result {
    this.gate.succeeded(key);
    ctx.log.debug('machine gone meanwhile; nothing to record', {}, 2);
    return {};
  }

  /** The providerID of the Node named `name` when it provably belongs to another instance; else undefined. */
  private async nodeOfAnotherInstance(
    name: string,
    machine: Machine,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    let node: Node;
    try {
      node = await this.d.client.get(Nodes, { name }, { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    return isNodeOfAnotherInstance(node, machine) ? node.spec?.providerID : undefined;
  }

  private async drainFailed(
    draft: MachineDraft,
    err: unknown,
    key: string,
    fp: string,
    started: number,
    ctx: ReconcileContext,
  ): Promise<Result> {
    const status = (draft.machine.status ??= {});
    status.conditions = setCondition(
      status.conditions,
      falseCondition(DrainedCondition, DrainErrorReason, 'Warning', `could not drain machine: ${messageOf(err)}`),
      this.d.clock.now(),
    );
    this.d.events.event(draft.machine, 'Normal', 'DrainRequeued', 'Drain', `Node drain requeued: ${messageOf(err)}`);
    try {
      await draft.persist(ctx.signal);
    } catch (patchErr) {
      if (isNotFound(patchErr)) return this.gone(key, ctx);
      ctx.log.error('could not record the drain error on the machine', { error: messageOf(patchErr) });
    }
    const after = requeueAfterOf(err);
    if (after !== undefined) {
      this.gate.hold(key, fp, after, started);
      return { requeueAfterMs: after };
    }
    this.gate.failed(key, fp, started);
    throw err;
  }
}
