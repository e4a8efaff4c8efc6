// The MachineSet controller: keeps spec.replicas machines matching the selector, adopts matching orphans,
// releases machines whose labels stop matching, scales down by the delete policy and reports status
// (including labelSelector for the /scale subresource).
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/machineset/controller.go
//
// Where it differs from the reference, on purpose:
//  - expectations instead of polling the cache inside the reconcile: a MachineSet does not count machines
//    again until its informer has observed the creates and deletes it made (see expectations.ts);
//  - creates and deletes are bounded per pass (`burst`, default 50, the OpenShift scaling advice), and
//    creates go in slow-start batches (1, 2, 4, …) that stop at the first failing batch, so a rejected
//    template costs one failed call rather than fifty;
//  - a machine we control whose labels stop matching is released (our ownerReference removed);
//  - an invalid MachineSet gets status.errorReason InvalidConfiguration and errorMessage, and is not
//    retried until it changes;
//  - node readiness comes from the informer cache and a Node watch, not one GET per machine per pass;
//  - opt-in (annotations), it replaces Machines made from an older template itself, within max surge and max
//    unavailable, and says how far it is in an UpToDate condition (see rollout.ts and rollout-planner.ts).
import type { Registry } from 'prom-client';
import type { Node } from '../apis/core.js';
import { selectorFromLabelSelector } from '../apis/label-selector.js';
import {
  MACHINE_API_GROUP_VERSION,
  type Machine,
  type MachineSet,
  type MachineSetStatus,
} from '../apis/machine-types.js';
import type { KubeObject } from '../apis/meta.js';
import { getControllerOf } from '../apis/objects.js';
import type { EventRecorder } from '../client/event-recorder.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines, MachineSets, Nodes } from '../client/resources.js';
import { MachineAPIMigrationGate } from '../machine/controller.js';
import type { ControllerManager, Informer, ReconcileContext, Reconciler, Request, Result } from '../runtime/types.js';
import { MachineClaims } from './machine-claims.js';
import { MachineSetExpectations } from './expectations.js';
import { requestFromKey, requestKey } from '../runtime/request-key.js';
import { migrationDecision } from './migration-gate.js';
import type { RandomSource } from './random.js';
import { ReplicaSync } from './replica-sync.js';
import { MachineSetRollout, stampOf } from './rollout.js';
import { rolloutMetricsFor } from './rollout-metrics.js';
import { readRolloutSettings } from './rollout-settings.js';
import { calculateStatus, minReadyRequeueMs, statusNeedsUpdate, statusPatch } from './status.js';
import { MachineSetValidationError, validateMachineSet } from './validation.js';

export const MACHINESET_CONTROLLER_NAME = 'machineset_controller';
export const DEFAULT_MACHINESET_BURST = 50;
const NODE_NAME_INDEX = 'machineset-controller:nodeRef.name';

export interface MachineSetControllerOptions {
  /** Workers; the manager's default when unset. */
  maxConcurrentReconciles?: number;
  /** Most machines created or deleted by one MachineSet in one pass. Default 50. */
  burst?: number;
  /** Picks among equally deletable machines under the Random policy. Default Math.random. */
  random?: RandomSource;
  /** How long an unobserved create/delete blocks the next one. Default 5 minutes. */
  expectationsTtlMs?: number;
  /** Feature gates by name; `MachineAPIMigration` makes the controller honour status.authoritativeAPI. */
  featureGates?: Record<string, boolean>;
  /**
   * Machine and Node changes reach their MachineSet this long after they happen, so that a scale-up of
   * hundreds of Machines moving through their phases costs a reconcile (and a status write) per delay
   * instead of one per change. Changes to the MachineSet itself are reconciled at once. Default 1 s.
   */
  coalesceMs?: number;
}

export const DEFAULT_MACHINESET_COALESCE_MS = 1_000;

export interface MachineSetControllerHandle {
  /** What each MachineSet still waits to observe; for tests and debugging. */
  readonly expectations: MachineSetExpectations;
}

function ownerKeyOf(m: KubeObject): string | undefined {
  const ref = getControllerOf(m);
  if (!ref || ref.kind !== 'MachineSet' || !ref.apiVersion.startsWith('machine.openshift.io/')) return undefined;
  return requestKey({ namespace: m.metadata.namespace, name: ref.name });
}

class MachineSetReconciler implements Reconciler {
  private readonly claims: MachineClaims;
  private readonly replicas: ReplicaSync;
  private readonly rollout: MachineSetRollout;

  constructor(
    private readonly client: KubeClient,
    private readonly machineSets: Informer<MachineSet>,
    machines: Informer<Machine>,
    private readonly nodes: Informer<Node>,
    private readonly events: EventRecorder,
    private readonly expectations: MachineSetExpectations,
    private readonly now: () => number,
    private readonly burst: number,
    random: RandomSource,
    private readonly migrationEnabled: boolean,
    metrics: Registry,
  ) {
    this.claims = new MachineClaims(client, machines);
    this.replicas = new ReplicaSync(client, machines, events, expectations, burst, random);
    this.rollout = new MachineSetRollout(client, machines, nodes, events, rolloutMetricsFor(metrics), now, random);
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const key = requestKey(req);
    const ms = this.machineSets.get(req);
    if (!ms) {
      this.expectations.delete(key);
      this.rollout.forget({ metadata: { namespace: req.namespace, name: req.name } }, key);
      return;
    }
    // Foreground deletion: the garbage collector removes the machines.
    if (ms.metadata.deletionTimestamp) return;

    let conditions = ms.status?.conditions;
    if (this.migrationEnabled) {
      const gate = migrationDecision(ms, this.now());
      switch (gate.kind) {
        case 'sync-authority':
          await this.patchStatus(ms, { authoritativeAPI: gate.authoritativeAPI }, ctx.signal);
          return;
        case 'paused':
          if (gate.conditions) await this.writeStatus(ms, { ...ms.status, conditions: gate.conditions }, ctx, false);
          ctx.log.debug(
            'another API is authoritative; not reconciling',
            { authoritativeAPI: ms.status?.authoritativeAPI },
            3,
          );
          return;
        case 'unknown':
          ctx.log.error('unknown status.authoritativeAPI; not reconciling', {
            authoritativeAPI: gate.authoritativeAPI,
          });
          return;
        case 'active':
          conditions = gate.conditions;
      }
    }

    const errors = validateMachineSet(ms);
    if (errors.length > 0) {
      const err = new MachineSetValidationError(ms.metadata.name ?? '', errors);
      ctx.log.info('invalid MachineSet', { error: err.message });
      this.events.event(ms, 'Warning', 'ReconcileError', 'Reconcile', err.message);
      // Retrying cannot fix the spec; the update that fixes it triggers the next pass.
      await this.writeStatus(
        ms,
        { ...ms.status, conditions, errorReason: 'InvalidConfiguration', errorMessage: err.message },
        ctx,
        true,
      );
      return;
    }
    const selector = selectorFromLabelSelector(ms.spec!.selector);

    const settings = readRolloutSettings(ms).settings!;
    const stamp = stampOf(ms, settings);
    const owned = await this.rollout.adoptUnlabelled(await this.claims.claim(ms, selector, ctx), stamp, ctx);
    const pass = this.rollout.plan(ms, settings, stamp, owned);

    let syncErr: Error | undefined;
    let requeueAfterMs: number | undefined;
    if (this.expectations.satisfied(key)) {
      try {
        if (pass.rolling) {
          this.rollout.announce(ms, pass, this.burst);
          requeueAfterMs = await this.replicas.apply(ms, key, pass.plan.create, pass.victims, stamp, ctx);
        } else {
          requeueAfterMs = await this.replicas.sync(ms, key, owned, stamp, ctx);
        }
      } catch (err) {
        syncErr = err as Error;
      }
    } else {
      ctx.log.debug('waiting for the cache to observe earlier writes', { pending: this.expectations.pending(key) }, 4);
      requeueAfterMs = this.expectations.expiresInMs(key);
    }

    const status = calculateStatus(ms, owned, (name) => this.nodes.get({ name }), this.now());
    status.conditions = this.rollout.record(ms, key, pass, conditions);
    delete status.errorReason;
    delete status.errorMessage;
    try {
      await this.writeStatus(ms, status, ctx, false);
    } catch (err) {
      const msg = syncErr
        ? `failed to sync machines: ${syncErr.message}. failed to update machine set status: ${(err as Error).message}`
        : `failed to update machine set status: ${(err as Error).message}`;
      throw this.reconcileError(ms, new Error(msg, { cause: err }));
    }
    if (syncErr)
      throw this.reconcileError(ms, new Error(`failed to sync machines: ${syncErr.message}`, { cause: syncErr }));

    const minReady = minReadyRequeueMs(ms, status);
    const waits = [requeueAfterMs, minReady, pass.requeueAfterMs].filter((v): v is number => v !== undefined);
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : {};
  }

  private reconcileError(ms: MachineSet, err: Error): Error {
    this.events.event(ms, 'Warning', 'ReconcileError', 'Reconcile', err.message);
    return err;
  }

  private async writeStatus(
    ms: MachineSet,
    next: MachineSetStatus,
    ctx: ReconcileContext,
    swallow: boolean,
  ): Promise<void> {
    if (!statusNeedsUpdate(ms, next)) return;
    try {
      await this.patchStatus(ms, statusPatch(ms, next).status as Record<string, unknown>, ctx.signal);
    } catch (err) {
      if (!swallow) throw err;
      ctx.log.warn('failed to record the invalid configuration on status', { error: (err as Error).message });
    }
  }

  private async patchStatus(ms: MachineSet, status: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    try {
      await this.client.patch(
        MachineSets,
        { namespace: ms.metadata.namespace, name: ms.metadata.name ?? '' },
        { type: 'merge', body: { status } },
        { subresource: 'status', signal },
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * Registers the MachineSet controller (`machineset_controller`) on the manager. Watches MachineSets, the
 * Machines they control (and orphans that match them), and Nodes (readiness feeds readyReplicas).
 */
export function addMachineSetController(
  mgr: ControllerManager,
  opts: MachineSetControllerOptions = {},
): MachineSetControllerHandle {
  const burst = opts.burst ?? DEFAULT_MACHINESET_BURST;
  if (!Number.isInteger(burst) || burst < 1)
    throw new RangeError(`MachineSet controller burst must be an integer >= 1, got ${burst}`);
  const delayMs = opts.coalesceMs ?? DEFAULT_MACHINESET_COALESCE_MS;
  const machineSets = mgr.informer(MachineSets);
  const machines = mgr.informer(Machines);
  const nodes = mgr.informer(Nodes);
  const expectations = new MachineSetExpectations(mgr.clock, opts.expectationsTtlMs);

  machines.addIndex(NODE_NAME_INDEX, (m) => (m.status?.nodeRef?.name ? [m.status.nodeRef.name] : []));

  machines.on('add', (m) => {
    const owner = ownerKeyOf(m);
    if (owner) expectations.creationObserved(owner);
  });
  machines.on('update', (m, old) => {
    if (m.metadata.deletionTimestamp && !old?.metadata.deletionTimestamp) observeDeletion(m);
  });
  machines.on('delete', (m) => observeDeletion(m));
  machineSets.on('delete', (ms) =>
    expectations.delete(requestKey({ namespace: ms.metadata.namespace, name: ms.metadata.name ?? '' })),
  );
  function observeDeletion(m: Machine): void {
    const owner = ownerKeyOf(m);
    if (owner) expectations.deletionObserved(owner, m.metadata.uid ?? '');
  }

  const reconciler = new MachineSetReconciler(
    mgr.client,
    machineSets,
    machines,
    nodes,
    mgr.eventRecorder(MACHINESET_CONTROLLER_NAME),
    expectations,
    () => mgr.clock.now(),
    burst,
    opts.random ?? Math.random,
    opts.featureGates?.[MachineAPIMigrationGate] === true,
    mgr.metrics,
  );

  /** An orphan's matching MachineSets (the reference's MachineToMachineSets). */
  const orphanToMachineSets = (obj: KubeObject): Request[] => {
    if (getControllerOf(obj)) return [];
    const labels = obj.metadata.labels;
    if (!labels || Object.keys(labels).length === 0) return [];
    return machineSets
      .list({ namespace: obj.metadata.namespace })
      .filter((ms) => {
        try {
          const sel = selectorFromLabelSelector(ms.spec?.selector);
          return !sel.empty && sel.matches(labels);
        } catch {
          return false;
        }
      })
      .map((ms) => ({ namespace: ms.metadata.namespace, name: ms.metadata.name ?? '' }));
  };

  const nodeToMachineSets = (obj: KubeObject): Request[] => {
    const out = new Map<string, Request>();
    for (const m of machines.byIndex(NODE_NAME_INDEX, obj.metadata.name ?? '')) {
      const ref = getControllerOf(m);
      if (ref?.kind === 'MachineSet')
        out.set(requestKey({ namespace: m.metadata.namespace, name: ref.name }), {
          namespace: m.metadata.namespace,
          name: ref.name,
        });
    }
    return [...out.values()];
  };

  const controller = mgr.addController({
    name: MACHINESET_CONTROLLER_NAME,
    reconciler,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    watches: [
      { informer: machineSets as unknown as Informer<KubeObject>, enqueue: 'self' },
      {
        informer: machines as unknown as Informer<KubeObject>,
        enqueue: 'owner',
        ownerKind: 'MachineSet',
        ownerApiVersion: MACHINE_API_GROUP_VERSION,
        delayMs,
      },
      { informer: machines as unknown as Informer<KubeObject>, enqueue: 'map', map: orphanToMachineSets, delayMs },
      { informer: nodes as unknown as Informer<KubeObject>, enqueue: 'map', map: nodeToMachineSets, delayMs },
    ],
  });
  // A re-list (after a 410 or a broken watch) settles what the watch may have missed.
  machines.onRelist?.((sentAt) => {
    for (const key of expectations.relisted(sentAt)) controller.enqueue(requestFromKey(key));
  });
  return { expectations };
}
