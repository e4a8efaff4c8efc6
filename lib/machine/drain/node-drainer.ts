// Drains one node: cordon, then evict every pod the filter lets go (honouring PodDisruptionBudgets via
// the policy/v1 Eviction API), then wait for them to disappear, all within one per-attempt deadline.
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
import { ControlPlaneNodeRoleLabels } from '../../apis/constants.js';
import { drainPermission, isControlPlaneNode } from './drain-guard.js';
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

  async drain(nodeName: string, signal: AbortSignal): Promise<DrainOutcome> {
    const { client, clock } = this.d;
    let node: Node;
    try {
      // Read fresh from the API, not the cache: cordon state decides the guard.
      node = await client.get(Nodes, { name: nodeName }, { signal });
    } catch (err) {
      if (isNotFound(err)) return 'node-not-found';
      throw err;
    }

    if (!node.spec?.unschedulable) {
      if (isControlPlaneNode(node)) await this.controlPlaneCordons.run(() => this.cordonControlPlane(node, signal));
      else await this.cordon(nodeName, signal);
    }

    const unreachable = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown';

    const listed = await client.list(Pods, { fieldSelector: `spec.nodeName=${nodeName}`, signal });
    const pods = listed.items.filter((p) => p.spec?.nodeName === nodeName);
    const decisions = await decidePods(pods, {
      nowMs: clock.now(),
      skipWaitForDeleteTimeoutMs: unreachable ? unreachableGraceSeconds * 1000 : 0,
      daemonSetExists: async (namespace, name) => {
        try {
          await client.get(DaemonSets, { namespace, name }, { signal });
          return true;
        } catch (err) {
          if (isNotFound(err)) return false;
          throw err;
        }
      },
    });
    for (const dcs of decisions) {
      if (dcs.action === 'skip')
        this.d.log.debug('drain leaves pod', { pod: objectKey(dcs.pod), reason: dcs.reason }, 4);
    }
    const toRemove = decisions.filter((x) => x.action === 'evict').map((x) => x.pod);

    const deadline = clock.now() + this.opts.timeoutMs;
    const attempt = new AbortController();
    const onAbort = () => attempt.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const results = await Promise.allSettled(
        toRemove.map((pod) =>
          this.evictAndWait(pod, deadline, unreachable ? unreachableGraceSeconds : undefined, attempt.signal),
        ),
      );
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [messageOf(r.reason)] : []));
      if (failures.length > 0) throw new Error(`[${failures.join(', ')}]`);
    } finally {
      signal.removeEventListener('abort', onAbort);
      attempt.abort();
    }
    return 'drained';
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

  private async evictAndWait(
    pod: Pod,
    deadline: number,
    graceSeconds: number | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const { client, clock } = this.d;
    const what = `pods/"${pod.metadata.name}" -n "${pod.metadata.namespace}"`;
    let delay = this.opts.evictionRetryBaseMs;
    for (;;) {
      try {
        await client.evict(
          podRef(pod),
          graceSeconds === undefined ? {} : { deleteOptions: { gracePeriodSeconds: graceSeconds } },
          { signal },
        );
        break;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isTooManyRequests(err)) throw new Error(`error when evicting ${what}: ${messageOf(err)}`, { cause: err });
        // A PodDisruptionBudget says not now: back off (the reference retried with no delay, a hot loop).
        if (clock.now() + delay >= deadline) {
          throw new Error(
            `error when evicting ${what}: ${messageOf(err)}: global timeout reached: ${formatDuration(this.opts.timeoutMs)}`,
            { cause: err },
          );
        }
        await clock.sleep(delay, signal);
        delay = Math.min(delay * 2, this.opts.evictionRetryMaxMs);
      }
    }
    await this.waitForDelete(pod, deadline, graceSeconds !== undefined, signal);
  }

  private async waitForDelete(pod: Pod, deadline: number, unreachable: boolean, signal: AbortSignal): Promise<void> {
    const { client, clock } = this.d;
    for (;;) {
      let current: Pod;
      try {
        current = await client.get(Pods, podRef(pod), { signal });
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (current.metadata.uid !== pod.metadata.uid) return;
      const deletedAt = current.metadata.deletionTimestamp ? Date.parse(current.metadata.deletionTimestamp) : NaN;
      if (unreachable && !Number.isNaN(deletedAt) && clock.now() - deletedAt > unreachableGraceSeconds * 1000) return;
      const left = deadline - clock.now();
      if (left <= 0) {
        throw new Error(
          `pod ${objectKey(pod)} was not deleted: global timeout reached: ${formatDuration(this.opts.timeoutMs)}`,
        );
      }
      await clock.sleep(Math.min(this.opts.podPollIntervalMs, left), signal);
    }
  }
}

const podRef = (p: Pod) => ({ namespace: p.metadata.namespace ?? '', name: p.metadata.name ?? '' });

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
