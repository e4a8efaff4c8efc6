// Wiring: registers the machine controller and the machine drain controller on a manager.
import type { Machine } from '../apis/machine-types.js';
import { Machines, Nodes, Secrets } from '../client/resources.js';
import type { ControllerManager, Informer } from '../runtime/types.js';
import type { KubeObject } from '../apis/meta.js';
import type { Actuator } from './actuator.js';
import { DrainReconciler } from './drain/drain-reconciler.js';
import { drainWatchPredicate } from './drain/drain-watch.js';
import { NodeDrainer, type DrainOptions } from './drain/node-drainer.js';
import { MachineReconciler } from './machine-reconciler.js';
import type { TerminationFollowPolicy } from '../cloud/termination-follower.js';
import { machineMetricsFor, MachineMetrics } from './metrics.js';
import { watchReferencedSecrets } from './secret-watch.js';

export const MachineControllerName = 'machine-controller';
export const MachineDrainControllerName = 'machine-drain-controller';
export const MachineAPIMigrationGate = 'MachineAPIMigration';

export interface MachineControllerOptions {
  /**
   * Workers for the machine controller and for the drain controller, each; default the runtime's. Drains run
   * side by side (improvement: the reference drains one Machine at a time, which made a scale-down of 2,000
   * wait minutes for its drains): the eviction API holds every drain to the PodDisruptionBudgets, and
   * control-plane cordons still go one at a time (NodeDrainer).
   */
  maxConcurrentReconciles?: number;
  /** Feature gates by name; `MachineAPIMigration` makes the controller honour status.authoritativeAPI. */
  featureGates?: Readonly<Record<string, boolean>>;
  /** Requeue while an instance is still changing; default 30 s. */
  requeueAfterMs?: number;
  /** Per-reconcile deadline passed to the runtime. */
  reconcileTimeoutMs?: number;
  /** Machine controller backoff after an error; default 5 ms → 1000 s. */
  rateLimiter?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Drain controller backoff after a drain error; default 5 s → 1000 s (plus 10 qps, burst 100). */
  drainRateLimiter?: { baseDelayMs?: number; maxDelayMs?: number };
  drain?: DrainOptions;
  /**
   * Bounds of the wait of a Machine whose providerSpec names a missing Secret; default 1 s → 120 s. The
   * Secret watch ends the wait at once when the Secret appears.
   */
  secretWait?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Where phase-transition and instance-failure metrics go; default the manager's registry. */
  metrics?: MachineMetrics;
  /** How often a deleted Machine's terminating instance is looked at; default 1 s, growing to 10 s. */
  terminationFollow?: Partial<TerminationFollowPolicy>;
  /**
   * How long a create the cloud refuses for want of capacity or quota is retried, from the first refusal,
   * before the Machine goes Failed with InsufficientResources; 0 fails it at once. Default 2 min.
   */
  capacityRetryWindowMs?: number;
  /** Backoff between those retries; default 5 s → 30 s, never past the window's end. */
  capacityRetry?: { baseDelayMs?: number; maxDelayMs?: number };
}

/** Machines by the name of the Node their status.nodeRef names. */
export const MachineNodeRefIndex = 'machine-controller:nodeRef.name';

export function addMachineController(
  mgr: ControllerManager,
  actuator: Actuator,
  opts: MachineControllerOptions = {},
): void {
  const machines = mgr.informer(Machines);
  const nodes = mgr.informer(Nodes);
  const metrics = opts.metrics ?? machineMetricsFor(mgr.metrics);
  const base = opts.rateLimiter?.baseDelayMs ?? 5;
  const max = opts.rateLimiter?.maxDelayMs ?? 1_000_000;
  const drainBase = opts.drainRateLimiter?.baseDelayMs ?? 5_000;
  const drainMax = opts.drainRateLimiter?.maxDelayMs ?? 1_000_000;
  const asSource = (i: Informer<Machine>) => i as unknown as Informer<KubeObject>;

  const reconciler = new MachineReconciler({
    client: mgr.client,
    machines,
    actuator,
    clock: mgr.clock,
    events: mgr.eventRecorder(MachineControllerName),
    metrics,
    migrationEnabled: opts.featureGates?.[MachineAPIMigrationGate] === true,
    requeueAfterMs: opts.requeueAfterMs ?? 30_000,
    nodeExists: (name) => nodes.get({ name }) !== undefined,
    retryBaseMs: base,
    retryMaxMs: max,
    secretWaitBaseMs: opts.secretWait?.baseDelayMs,
    secretWaitMaxMs: opts.secretWait?.maxDelayMs,
    terminationFollow: opts.terminationFollow,
    capacityRetryWindowMs: opts.capacityRetryWindowMs,
    capacityRetryBaseMs: opts.capacityRetry?.baseDelayMs,
    capacityRetryMaxMs: opts.capacityRetry?.maxDelayMs,
  });
  const machineController = mgr.addController({
    name: MachineControllerName,
    reconciler,
    watches: [
      {
        informer: asSource(machines),
        enqueue: 'self',
        // The echoes of its own writes, and NodeLink's lastUpdated alone, cost no reconcile.
        predicate: (event, obj, old) => event !== 'update' || old === undefined || !reconciler.isEcho(obj, old),
        // A new Machine whose launch must wait for the cloud's rate (a scale-up past the cloud's burst) is first
        // reconciled at its launch's turn: a pass sooner would only learn that it must come again.
        delayOf: (_event, obj) => reconciler.launchTurnInMs(obj),
      },
    ],
    // The latest pass decides when the next is due: a Machine that went Running on its Node's event is not
    // looked at again by the requeue its Provisioned pass had asked for; nor by a resync just after a pass.
    latestResultReplacesRequeue: true,
    skipResyncWithinMs: mgr.syncPeriodMs !== undefined ? mgr.syncPeriodMs / 2 : undefined,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    reconcileTimeoutMs: opts.reconcileTimeoutMs,
    rateLimiter: { baseDelayMs: base, maxDelayMs: max },
  });

  // A Node that goes away usually means its instance did (the cloud node controller deletes it): look at
  // the Machine now instead of at the next resync, which may be minutes away. Only deletions: enqueueing on
  // every Node update would turn kubelet heartbeats into cloud calls.
  machines.addIndex(MachineNodeRefIndex, (m) => (m.status?.nodeRef?.name ? [m.status.nodeRef.name] : []));
  nodes.on('delete', (node) => {
    for (const m of machines.byIndex(MachineNodeRefIndex, node.metadata.name ?? '')) {
      if (m.metadata.name) machineController.enqueue({ namespace: m.metadata.namespace, name: m.metadata.name });
    }
  });

  // A Machine waiting for its credentials or user-data Secret goes on the moment that Secret is created or
  // changed, whatever backoff it had earned meanwhile.
  if (actuator.referencedSecrets) {
    const referencedSecrets = actuator.referencedSecrets.bind(actuator);
    watchReferencedSecrets({
      machines,
      secrets: mgr.informer(Secrets),
      referencedSecrets,
      onSecretChanged: (req) => {
        reconciler.retryNow(req);
        machineController.enqueue(req);
      },
    });
  }

  const drainer = new NodeDrainer(
    {
      client: mgr.client,
      clock: mgr.clock,
      log: mgr.logger.child({ controller: MachineDrainControllerName }),
    },
    opts.drain,
  );
  mgr.addController({
    name: MachineDrainControllerName,
    reconciler: new DrainReconciler({
      client: mgr.client,
      machines,
      drainer,
      clock: mgr.clock,
      events: mgr.eventRecorder(MachineDrainControllerName),
      retryBaseMs: drainBase,
      retryMaxMs: drainMax,
      metrics,
    }),
    watches: [{ informer: asSource(machines), enqueue: 'self', predicate: drainWatchPredicate }],
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    reconcileTimeoutMs: opts.reconcileTimeoutMs,
    rateLimiter: { baseDelayMs: drainBase, maxDelayMs: drainMax, qps: 10, burst: 100 },
  });
}
