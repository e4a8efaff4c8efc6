// Drains one node: cordon, then, group by group in drain order (drain-plan.ts), evict the pods the plan lets go
// (honouring PodDisruptionBudgets via the policy/v1 Eviction API) and wait for them to disappear, all within one
// per-attempt deadline. An attempt that does not finish throws DrainIncompleteError, naming each pod left and why.
// Drains run side by side (the budgets are the eviction API's to enforce), except the step that decides
// whether a control-plane node may be cordoned: see cordonControlPlane.
// An unreachable node (Ready=Unknown) changes only the grace period and the wait, never the budgets: pods
// are still evicted, with a 1 s grace period, and a pod already deleting for over 1 s is not waited for
// (its kubelet cannot confirm it). A budget that refuses keeps the drain, and so the deletion, waiting.
import type { Node, Pod } from '../../apis/core.js';
import { objectKey } from '../../apis/objects.js';
import { isNotFound, isTooManyRequests } from '../../client/errors.js';
import type { KubeClient } from '../../client/kube-client.js';
import { DaemonSets, Nodes, Pods } from '../../client/resources.js';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../base/logger.js';
import { SerialLock } from '../../base/serial-lock.js';
import { formatDuration, messageOf, RequeueAfterError } from '../../apis/errors.js';
import { ControlPlaneNodeRoleLabels, PodDrainAnnotation } from '../../apis/constants.js';
import { drainPermission, isControlPlaneNode } from './drain-guard.js';
import { isComplete, planDrain, type DrainPlan, type PlannedPod } from './drain-plan.js';
import { decidePods } from './pod-filter.js';

export interface DrainOptions {
  /** Per-attempt deadline for evicting and waiting (kubectl drain Timeout); default 20 s. */
  timeoutMs?: number;
  /**
   * First wait after a 429 (PodDisruptionBudget); doubles up to evictionRetryMaxMs. Default 500 ms, never 0:
   * a refused eviction retried at once is a hot loop.
   */
  evictionRetryBaseMs?: number;
  evictionRetryMaxMs?: number;
  /** How often to look whether evicted pods are gone; default 1 s. */
  podPollIntervalMs?: number;
  /** Requeue delay when cordoning fails or the control-plane guard says no; default 20 s. */
  retryAfterMs?: number;
}

export const defaultDrainOptions: Required<DrainOptions> = {
  timeoutMs: 20_000,
  evictionRetryBaseMs: 500,
  evictionRetryMaxMs: 5_000,
  podPollIntervalMs: 1_000,
  retryAfterMs: 20_000,
};

export interface NodeDrainerDeps {
  client: KubeClient;
  clock: Clock;
  log: Logger;
}

export type DrainOutcome = 'drained' | 'node-not-found';

export interface DrainReport {
  outcome: DrainOutcome;
  /** Pods whose own drain annotations applied (or could not be read), for the events that say so. */
  applied: PlannedPod[];
}

export interface DrainAttemptOptions {
  /** Epoch ms at which the whole drain must stop (its drain-timeout); the attempt ends then at the latest. */
  deadlineMs?: number;
}

/** A pod still on the Node when an attempt ended, and why. */
export interface RemainingPod {
  /** namespace/name */
  pod: string;
  why: string;
  /** The attempt's error text for this pod (the reference's wording where it has one). */
  error: string;
}

/** An attempt that ended with pods left on the Node. */
export class DrainIncompleteError extends Error {
  override readonly name = 'DrainIncompleteError';
  constructor(
    readonly remaining: RemainingPod[],
    attemptMs: number,
    readonly applied: PlannedPod[] = [],
  ) {
    const timeout = `global timeout reached: ${formatDuration(attemptMs)}`;
    super(`[${remaining.map((r) => `${r.error}: ${timeout}`).join(', ')}]`);
  }
}

interface Refusal {
  delay: number;
  notBefore: number;
  /** A PodDisruptionBudget refused (429). */
  budget: boolean;
  message: string;
}

const podKey = (p: Pod): string => objectKey(p);

/** Each pod the plan still waits for, with why it is there. */
function remainingPods(plan: DrainPlan, refusals: ReadonlyMap<string, Refusal>, nowMs: number): RemainingPod[] {
  const out: RemainingPod[] = [];
  const what = (p: Pod) => `pods/"${p.metadata.name ?? ''}" -n "${p.metadata.namespace ?? ''}"`;
  for (const { pod } of plan.evictNow) {
    const key = podKey(pod);
    const refused = refusals.get(key);
    if (refused) {
      out.push({
        pod: key,
        why: refused.budget
          ? `eviction refused by a PodDisruptionBudget (${refused.message})`
          : `eviction failed: ${refused.message}`,
        error: `error when evicting ${what(pod)}: ${refused.message}`,
      });
    } else out.push({ pod: key, why: 'evicted but not deleted', error: `pod ${key} was not deleted` });
  }
  for (const { pod } of plan.terminating) {
    const key = podKey(pod);
    const since = Date.parse(pod.metadata.deletionTimestamp ?? '');
    const age = Number.isNaN(since)
      ? ''
      : ` for ${formatDuration(Math.max(0, Math.round((nowMs - since) / 1000) * 1000))}`;
    out.push({ pod: key, why: `stuck terminating${age}`, error: `pod ${key} was not deleted` });
  }
  for (const { pod, order } of plan.waitCompleted) {
    const key = podKey(pod);
    out.push({
      pod: key,
      why: `not completed (${PodDrainAnnotation}=wait-completed)`,
      error: `pod ${key} has not completed (drain order ${order})`,
    });
  }
  for (const { pod, order } of plan.later) {
    const key = podKey(pod);
    out.push({
      pod: key,
      why: `waiting for drain order ${plan.order ?? 0} to finish before its order ${order}`,
      error: `pod ${key} waits for drain order ${plan.order ?? 0}`,
    });
  }
  return out;
}

/** Seconds the unreachable-node case uses for grace period and for skipping pods already deleting. */
const unreachableGraceSeconds = 1;

export class NodeDrainer {
  private readonly opts: Required<DrainOptions>;
  /** Control-plane cordons, one at a time (see cordonControlPlane). */
  private readonly controlPlaneCordons = new SerialLock();

  constructor(
    private readonly d: NodeDrainerDeps,
    opts: DrainOptions = {},
  ) {
    this.opts = { ...defaultDrainOptions, ...definedOnly(opts) };
  }

  async drain(nodeName: string, signal: AbortSignal, opts: DrainAttemptOptions = {}): Promise<DrainReport> {
    const { client, clock } = this.d;
    let node: Node;
    try {
      // Read fresh from the API, not the cache: cordon state decides the guard.
      node = await client.get(Nodes, { name: nodeName }, { signal });
    } catch (err) {
      if (isNotFound(err)) return { outcome: 'node-not-found', applied: [] };
      throw err;
    }

    if (!node.spec?.unschedulable) {
      if (isControlPlaneNode(node)) await this.controlPlaneCordons.run(() => this.cordonControlPlane(node, signal));
      else await this.cordon(nodeName, signal);
    }

    const unreachable = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown';
    const graceSeconds = unreachable ? unreachableGraceSeconds : undefined;
    // The attempt ends at its own deadline, or earlier at the drain's (the drain-timeout annotation); it always
    // makes one pass of evictions, so a drain past its deadline still learns why each pod is left.
    const deadline = Math.min(clock.now() + this.opts.timeoutMs, opts.deadlineMs ?? Number.POSITIVE_INFINITY);
    const attemptMs = Math.max(0, deadline - clock.now());
    const refusals = new Map<string, Refusal>();
    const seen = new Map<string, PlannedPod>();
    const report: DrainReport = { outcome: 'drained', applied: [] };
    let lookAgainAtOnce = false;
    // Whether a DaemonSet exists is asked once per attempt, not on every look at the Node.
    const daemonSets = new Map<string, Promise<boolean>>();
    for (;;) {
      const plan = await this.plan(nodeName, unreachable, daemonSets, signal);
      for (const p of [
        ...plan.skipped,
        ...plan.finished,
        ...plan.evictNow,
        ...plan.terminating,
        ...plan.waitCompleted,
        ...plan.later,
      ]) {
        const key = podKey(p.pod);
        if (!seen.has(key)) {
          seen.set(key, p);
          if (p.byAnnotation || p.problem) report.applied.push(p);
          if (p.behavior === 'skip' && !p.byAnnotation)
            this.d.log.debug('drain leaves pod', { pod: key, reason: p.reason }, 4);
        }
      }
      if (isComplete(plan)) return report;
      const now = clock.now();
      const due = plan.evictNow.filter((p) => (refusals.get(podKey(p.pod))?.notBefore ?? 0) <= now);
      const accepted = await Promise.all(due.map((p) => this.evictOnce(p.pod, graceSeconds, refusals, signal)));
      const after = clock.now();
      if (after >= deadline) {
        throw new DrainIncompleteError(
          remainingPods(await this.plan(nodeName, unreachable, daemonSets, signal), refusals, after),
          attemptMs,
          report.applied,
        );
      }
      const nextRetry = Math.min(
        ...plan.evictNow.map((p) => refusals.get(podKey(p.pod))?.notBefore ?? Number.POSITIVE_INFINITY),
      );
      // Evicted pods without a grace period are often gone at once: look again straight away, once, so that a
      // drain is not a poll interval longer than it needs to be (and the next group starts at once).
      if (!lookAgainAtOnce && accepted.some(Boolean)) {
        lookAgainAtOnce = true;
        continue;
      }
      lookAgainAtOnce = false;
      const wait = Math.max(1, Math.min(this.opts.podPollIntervalMs, nextRetry - after, deadline - after));
      await clock.sleep(wait, signal);
    }
  }

  /** The drain plan for the pods now on the Node. */
  private async plan(
    nodeName: string,
    unreachable: boolean,
    daemonSets: Map<string, Promise<boolean>>,
    signal: AbortSignal,
  ): Promise<DrainPlan> {
    const { client, clock } = this.d;
    const listed = await client.list(Pods, { fieldSelector: `spec.nodeName=${nodeName}`, signal });
    const pods = listed.items.filter((p) => p.spec?.nodeName === nodeName);
    const decisions = await decidePods(pods, {
      nowMs: clock.now(),
      skipWaitForDeleteTimeoutMs: unreachable ? unreachableGraceSeconds * 1000 : 0,
      daemonSetExists: (namespace, name) => {
        const key = `${namespace}/${name}`;
        let known = daemonSets.get(key);
        if (!known) {
          known = client.get(DaemonSets, { namespace, name }, { signal }).then(
            () => true,
            (err: unknown) => {
              if (isNotFound(err)) return false;
              daemonSets.delete(key);
              throw err;
            },
          );
          daemonSets.set(key, known);
        }
        return known;
      },
    });
    return planDrain(decisions);
  }

  /**
   * One eviction request for `pod`; true when it was accepted (or the pod is gone). A refusal (a PodDisruptionBudget's 429, or any other error) is kept in
   * `refusals` with when to ask again: 500 ms doubling to 5 s (the reference retried at once, a hot loop).
   */
  private async evictOnce(
    pod: Pod,
    graceSeconds: number | undefined,
    refusals: Map<string, Refusal>,
    signal: AbortSignal,
  ): Promise<boolean> {
    const key = podKey(pod);
    try {
      await this.d.client.evict(
        podRef(pod),
        graceSeconds === undefined ? {} : { deleteOptions: { gracePeriodSeconds: graceSeconds } },
        { signal },
      );
      refusals.delete(key);
      return true;
    } catch (err) {
      if (isNotFound(err)) return true;
      if (signal.aborted) throw err;
      const prev = refusals.get(key);
      const delay = prev ? Math.min(prev.delay * 2, this.opts.evictionRetryMaxMs) : this.opts.evictionRetryBaseMs;
      refusals.set(key, {
        delay,
        notBefore: this.d.clock.now() + delay,
        budget: isTooManyRequests(err),
        message: messageOf(err),
      });
      return false;
    }
  }

  /**
   * Cordons a control-plane node unless another one is cordoned already, so that replacing control-plane
   * Machines cannot take etcd quorum down. Concurrent drains would each pass the check before either cordon
   * shows, so the check and the cordon run under one lock, and the check reads the Nodes from the API: a cache
   * may not have the cordon made a moment ago.
   */
  private async cordonControlPlane(node: Node, signal: AbortSignal): Promise<void> {
    const name = node.metadata.name ?? '';
    const listed = await Promise.all(
      ControlPlaneNodeRoleLabels.map((label) => this.d.client.list(Nodes, { labelSelector: label, signal })),
    );
    // A node with both role labels comes back from both lists.
    const byName = new Map(listed.flatMap((l) => l.items).map((n) => [n.metadata.name, n]));
    const permission = drainPermission(node, [...byName.values()]);
    if (!permission.allowed) {
      const requeue = new RequeueAfterError(this.opts.retryAfterMs);
      throw new Error(`drain not permitted: ${permission.reason}: ${requeue.message}`, { cause: requeue });
    }
    await this.cordon(name, signal);
  }

  private async cordon(nodeName: string, signal: AbortSignal): Promise<void> {
    try {
      await this.d.client.patch(
        Nodes,
        { name: nodeName },
        { type: 'merge', body: { spec: { unschedulable: true } } },
        { signal },
      );
    } catch (err) {
      // The cause chain carries the RequeueAfterError (wait 20 s), which itself keeps the API error.
      const requeue = new RequeueAfterError(this.opts.retryAfterMs, { cause: err });
      // eslint-disable-next-line preserve-caught-error
      throw new Error(`cordon of node "${nodeName}" failed: ${messageOf(err)}`, { cause: requeue });
    }
  }
}

const podRef = (p: Pod) => ({ namespace: p.metadata.namespace ?? '', name: p.metadata.name ?? '' });

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
