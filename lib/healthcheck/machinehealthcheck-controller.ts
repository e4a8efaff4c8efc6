// The MachineHealthCheck controller: finds the machines an MHC covers, judges their health from their nodes,
// and — while no more than maxUnhealthy are unhealthy — remediates: deletes machines that have a controller
// owner, annotates them for external bare-metal remediation, or creates external remediation requests from a
// template.
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/machinehealthcheck/machinehealthcheck_controller.go
//
// Where it differs from the reference, on purpose:
//  - short-circuited, it looks again after as long as the episode has lasted (30 s, growing to 5 min; watch
//    events still wake it) instead of requeueing every 1 ms, and it reports RemediationRestricted once per
//    episode, not every pass;
//  - a machine inside its node startup window is starting, not unhealthy (health.ts): no DetectedUnhealthy,
//    and it does not count against maxUnhealthy;
//  - DetectedUnhealthy and SkippedNoController are likewise reported once per episode per machine;
//  - ExternalRemediationTemplateAvailable / ExternalRemediationRequestAvailable are persisted on status;
//  - a deleted MHC's metric series are removed (the reference left short_circuit at 0);
//  - Machine events only wake the MHCs of the machine's own namespace (the reference listed all);
//  - an MHC annotated machine.openshift.io/max-in-flight remediates at most that many Machines at a time, counted
//    from the cluster until each replacement has a Ready Node (in-flight.ts); the rest wait, and say so.
// Kept as in the reference: the node startup clock is machine.status.lastUpdated (health.ts), and
// control-plane machines are not exempt — a master with a controller owner is remediated like any other.
import {
  MHCPausedAnnotation,
  RemediationAllowedCondition,
  RemediationInFlightAllowedCondition,
  TooManyUnhealthyReason,
} from '../apis/constants.js';
import { falseCondition, setCondition, trueCondition } from '../apis/conditions.js';
import type { Node } from '../apis/core.js';
import { selectorFromLabelSelector } from '../apis/label-selector.js';
import type { Machine, MachineHealthCheck, MachineHealthCheckStatus, MachineSet } from '../apis/machine-types.js';
import type { KubeObject } from '../apis/meta.js';
import type { EventRecorder } from '../client/event-recorder.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { MachineHealthChecks, Machines, MachineSets, Nodes } from '../client/resources.js';
import type { Clock } from '../base/clock.js';
import { requestKey } from '../runtime/request-key.js';
import {
  TerminalError,
  type ControllerManager,
  type Informer,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '../runtime/types.js';
import { EventOnce } from './event-once.js';
import { guessResource, type ResourceResolver } from './external-remediation.js';
import {
  classifyTargets,
  detectedUnhealthyNote,
  healthCheckSettings,
  InvalidHealthCheckError,
  targetString,
  unhealthyCount,
  type HealthCheckTarget,
} from './health.js';
import { InvalidMaxInFlightError } from './in-flight.js';
import { MachineRemediation, wouldRemediate } from './machine-remediation.js';
import { MaxInFlightGate } from './max-in-flight.js';
import { remediationBudget } from './max-unhealthy.js';
import { RemediationRequests } from './remediation-requests.js';
import { lookupTargetNode } from './target-node.js';
import { healthCheckMetrics, type HealthCheckMetrics } from './metrics.js';
import { ShortCircuitEpisodes } from './short-circuit-backoff.js';

export const MHC_CONTROLLER_NAME = 'machinehealthcheck-controller';
export const DEFAULT_SHORT_CIRCUIT_BACKOFF = { baseMs: 30_000, maxMs: 5 * 60_000 } as const;
const NODE_NAME_INDEX = 'machinehealthcheck-controller:nodeRef.name';

export interface MachineHealthCheckControllerOptions {
  /** Workers; the manager's default when unset. */
  maxConcurrentReconciles?: number;
  /** Maps a remediation template's apiVersion+kind to its REST resource; default guesses the plural. */
  resolveResource?: ResourceResolver;
  /** Requeue delays while short-circuited: the time short-circuited so far, at least base, at most max. */
  shortCircuitBackoff?: { baseMs?: number; maxMs?: number };
}

function aggregate(errors: Error[]): Error {
  if (errors.length === 1) return errors[0]!;
  return new Error(`[${errors.map((e) => e.message).join(', ')}]`, { cause: errors[0] });
}

class MachineHealthCheckReconciler implements Reconciler {
  private readonly once = new EventOnce();
  private readonly shortCircuits: ShortCircuitEpisodes;
  private readonly requests: RemediationRequests;
  private readonly remediation: MachineRemediation;
  private readonly inFlight: MaxInFlightGate;
  private readonly cachedNode = (name: string): Node | undefined => this.nodes.get({ name });

  constructor(
    private readonly client: KubeClient,
    private readonly clock: Clock,
    private readonly mhcs: Informer<MachineHealthCheck>,
    private readonly machines: Informer<Machine>,
    private readonly nodes: Informer<Node>,
    machineSets: Informer<MachineSet>,
    private readonly events: EventRecorder,
    private readonly metrics: HealthCheckMetrics,
    resolveResource: ResourceResolver,
    backoff: MachineHealthCheckControllerOptions['shortCircuitBackoff'],
  ) {
    this.requests = new RemediationRequests(client, clock, resolveResource);
    this.remediation = new MachineRemediation(client, events, metrics, this.once);
    this.inFlight = new MaxInFlightGate(machines, machineSets, events, metrics, this.once);
    this.shortCircuits = new ShortCircuitEpisodes({
      baseMs: backoff?.baseMs ?? DEFAULT_SHORT_CIRCUIT_BACKOFF.baseMs,
      maxMs: backoff?.maxMs ?? DEFAULT_SHORT_CIRCUIT_BACKOFF.maxMs,
    });
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const key = requestKey(req);
    const labels = { name: req.name, namespace: req.namespace ?? '' };
    const mhc = this.mhcs.get(req);
    if (!mhc) {
      this.metrics.nodesCovered.remove(labels);
      this.metrics.shortCircuit.remove(labels);
      this.shortCircuits.end(key);
      this.once.retain(`${key}|`, new Set());
      this.inFlight.forget(key);
      return;
    }
    if (mhc.metadata.annotations && MHCPausedAnnotation in mhc.metadata.annotations) {
      ctx.log.debug('paused; skipping', {}, 3);
      return;
    }

    let settings;
    let selector;
    try {
      settings = healthCheckSettings(mhc);
      selector = selectorFromLabelSelector(mhc.spec?.selector);
    } catch (err) {
      const msg =
        err instanceof InvalidHealthCheckError ? err.message : `failed to build selector: ${(err as Error).message}`;
      this.events.event(mhc, 'Warning', 'ReconcileError', 'Reconcile', msg);
      throw new TerminalError(msg, { cause: err });
    }

    const targets: HealthCheckTarget[] = [];
    for (const machine of this.machines.list({ namespace: mhc.metadata.namespace })) {
      if (!selector.matches(machine.metadata.labels)) continue;
      const nodeName = machine.status?.nodeRef?.name;
      // A node with only a name stands for a node that does not exist.
      targets.push(
        nodeName
          ? { machine, node: await lookupTargetNode(nodeName, this.cachedNode, this.client, ctx.signal) }
          : { machine },
      );
    }
    this.metrics.nodesCovered.set(labels, targets.length);

    const now = this.clock.now();
    const c = classifyTargets(targets, settings, now);
    const live = new Set<string>();
    for (const { target } of c.pending) {
      const onceKey = `${key}|${target.machine.metadata.uid ?? ''}|DetectedUnhealthy`;
      live.add(onceKey);
      const note = detectedUnhealthyNote(mhc, target);
      this.once.emit(onceKey, note, () =>
        this.events.event(target.machine, 'Normal', 'DetectedUnhealthy', 'HealthCheck', note),
      );
    }

    const expected = targets.length;
    const currentHealthy = c.healthy.length;
    const unhealthy = unhealthyCount(c);
    const budget = remediationBudget(mhc.spec?.maxUnhealthy, expected, unhealthy);
    const status: MachineHealthCheckStatus = {
      ...mhc.status,
      expectedMachines: expected,
      currentHealthy,
      remediationsAllowed: budget.remediationsAllowed,
    };

    if (!budget.allowed) {
      if (budget.error)
        ctx.log.error('cannot read maxUnhealthy; remediation is not allowed', { error: budget.error.message });
      const counts = `total: ${expected}, unhealthy: ${unhealthy}, maxUnhealthy: ${String(mhc.spec?.maxUnhealthy)}`;
      status.conditions = setCondition(
        status.conditions,
        falseCondition(
          RemediationAllowedCondition,
          TooManyUnhealthyReason,
          'Warning',
          `Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (${counts})`,
        ),
        now,
      );
      await this.writeStatus(mhc, status, ctx.signal);
      const note = `Remediation restricted due to exceeded number of unhealthy machines (${counts})`;
      const onceKey = `${key}|RemediationRestricted`;
      live.add(onceKey);
      this.once.emit(onceKey, note, () =>
        this.events.event(mhc, 'Warning', 'RemediationRestricted', 'Remediate', note),
      );
      this.once.retain(`${key}|`, live);
      this.metrics.shortCircuit.set(labels, 1);
      const backoff = this.shortCircuits.delayMs(key, now);
      ctx.log.warn('short-circuiting remediation', {
        total: expected,
        unhealthy,
        maxUnhealthy: mhc.spec?.maxUnhealthy,
        requeueAfterMs: backoff,
      });
      return { requeueAfterMs: backoff };
    }

    this.shortCircuits.end(key);
    this.metrics.shortCircuit.set(labels, 0);
    status.conditions = setCondition(status.conditions, trueCondition(RemediationAllowedCondition), now);

    const errors: Error[] = [];
    const template = mhc.spec?.remediationTemplate;
    let due = c.remediate;
    let recheckMs: number | undefined;
    const limited = MaxInFlightGate.applies(mhc);
    if (limited) {
      const withRequest = new Set<HealthCheckTarget>();
      if (template) {
        for (const t of c.remediate)
          if (await this.requests.exists(mhc, t, ctx.signal).catch(() => false)) withRequest.add(t);
      }
      let gate;
      try {
        gate = this.inFlight.admit({
          mhc,
          key,
          targets,
          due: c.remediate,
          hasRequest: (t) => withRequest.has(t),
          remediable: (t) => template !== undefined || wouldRemediate(mhc, t.machine),
          nodeStartupTimeoutMs: settings.nodeStartupTimeoutMs,
          nowMs: now,
          conditions: status.conditions,
          live,
        });
      } catch (err) {
        if (!(err instanceof InvalidMaxInFlightError)) throw err;
        this.events.event(mhc, 'Warning', 'ReconcileError', 'Reconcile', err.message);
        throw new TerminalError(err.message, { cause: err });
      }
      due = gate.now;
      status.conditions = gate.conditions;
      recheckMs = gate.recheckMs;
      if (gate.held.length > 0)
        ctx.log.info('remediation held back by max-in-flight', {
          held: gate.held.map((t) => t.machine.metadata.name),
          inFlightByOwner: gate.inFlight?.byOwner,
        });
    } else if (status.conditions?.some((x) => x.type === RemediationInFlightAllowedCondition)) {
      status.conditions = status.conditions.filter((x) => x.type !== RemediationInFlightAllowedCondition);
    }
    for (const t of due) {
      try {
        if (template) {
          const outcome = await this.requests.ensure(mhc, t, status.conditions, ctx);
          status.conditions = outcome.conditions;
          if (outcome.error) throw outcome.error;
        } else if (await this.remediation.remediate(mhc, t, key, live, ctx, limited)) {
          if (limited) this.inFlight.started(key, t.machine, this.clock.now());
        }
      } catch (err) {
        ctx.log.error('remediation failed', { target: targetString(mhc, t), error: (err as Error).message });
        errors.push(err as Error);
      }
    }
    if (template) await this.requests.cleanUp(mhc, c.healthy, ctx);
    this.once.retain(`${key}|`, live);

    try {
      await this.writeStatus(mhc, status, ctx.signal);
    } catch (err) {
      errors.push(err as Error);
    }

    if (errors.length > 0) throw aggregate(errors);
    const nextChecks = [...c.pending, ...c.starting].map((p) => p.nextCheckMs).filter((ms) => ms > 0);
    if (recheckMs !== undefined) nextChecks.push(recheckMs);
    if (nextChecks.length > 0) return { requeueAfterMs: Math.min(...nextChecks) };
    return {};
  }

  private async writeStatus(
    mhc: MachineHealthCheck,
    next: MachineHealthCheckStatus,
    signal: AbortSignal,
  ): Promise<void> {
    const cur = mhc.status ?? {};
    const same =
      cur.expectedMachines === next.expectedMachines &&
      cur.currentHealthy === next.currentHealthy &&
      cur.remediationsAllowed === next.remediationsAllowed &&
      JSON.stringify(cur.conditions ?? []) === JSON.stringify(next.conditions ?? []);
    if (same) return;
    try {
      await this.client.patch(
        MachineHealthChecks,
        { namespace: mhc.metadata.namespace, name: mhc.metadata.name ?? '' },
        {
          type: 'merge',
          body: {
            status: {
              expectedMachines: next.expectedMachines,
              currentHealthy: next.currentHealthy,
              remediationsAllowed: next.remediationsAllowed,
              conditions: next.conditions ?? [],
            },
          },
        },
        { subresource: 'status', signal },
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * Registers the MachineHealthCheck controller (`machinehealthcheck-controller`) and its metrics on the
 * manager. Watches MHCs, Machines (→ the MHCs of their namespace that select them) and Nodes (→ their
 * machine's MHCs).
 */
export function addMachineHealthCheckController(
  mgr: ControllerManager,
  opts: MachineHealthCheckControllerOptions = {},
): void {
  const mhcs = mgr.informer(MachineHealthChecks);
  const machines = mgr.informer(Machines);
  const nodes = mgr.informer(Nodes);
  const machineSets = mgr.informer(MachineSets);
  machines.addIndex(NODE_NAME_INDEX, (m) => (m.status?.nodeRef?.name ? [m.status.nodeRef.name] : []));

  const reconciler = new MachineHealthCheckReconciler(
    mgr.client,
    mgr.clock,
    mhcs,
    machines,
    nodes,
    machineSets,
    mgr.eventRecorder(MHC_CONTROLLER_NAME),
    healthCheckMetrics(mgr.metrics),
    opts.resolveResource ?? guessResource,
    opts.shortCircuitBackoff,
  );

  const mhcsFor = (m: KubeObject): Request[] =>
    mhcs
      .list({ namespace: m.metadata.namespace })
      .filter((mhc) => {
        try {
          return selectorFromLabelSelector(mhc.spec?.selector).matches(m.metadata.labels);
        } catch {
          return false;
        }
      })
      .map((mhc) => ({ namespace: mhc.metadata.namespace, name: mhc.metadata.name ?? '' }));

  const nodeToMHCs = (node: KubeObject): Request[] => {
    const owners = machines.byIndex(NODE_NAME_INDEX, node.metadata.name ?? '');
    // Exactly one machine per node, as the reference requires; anything else is ambiguous.
    return owners.length === 1 ? mhcsFor(owners[0]!) : [];
  };

  mgr.addController({
    name: MHC_CONTROLLER_NAME,
    reconciler,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    watches: [
      { informer: mhcs as unknown as Informer<KubeObject>, enqueue: 'self' },
      { informer: machines as unknown as Informer<KubeObject>, enqueue: 'map', map: mhcsFor },
      { informer: nodes as unknown as Informer<KubeObject>, enqueue: 'map', map: nodeToMHCs },
    ],
  });
}
