// The MachineSet controller's side of a rollout: which template each Machine was made from, what the planner
// decides from that, and what the MachineSet says about it (the UpToDate condition, events, metrics).
//
// A Machine made before this controller knew about templates carries no template-hash label. It is stamped with
// the hash of the template the controller sees when it first meets it (and the current restart value), so an
// upgrade never starts a rollout by itself: only a template change made afterwards does.
import type { Node } from '../apis/core.js';
import {
  MachineTemplateHashLabel,
  RolloutRestartAnnotation,
  RolloutStalledReason,
  UpToDateCondition,
} from '../apis/constants.js';
import { getCondition, setCondition } from '../apis/conditions.js';
import type { Condition, Machine, MachineSet } from '../apis/machine-types.js';
import { getControllerOf } from '../apis/objects.js';
import type { EventRecorder } from '../client/event-recorder.js';
import { isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import type { Informer, ReconcileContext } from '../runtime/types.js';
import { DeletePriority, deletePriority, deletionOrder, hasFailed, resolveDeletePolicy } from './delete-policy.js';
import type { RandomSource } from './random.js';
import { upToDateCondition } from './rollout-condition.js';
import type { RolloutMetrics } from './rollout-metrics.js';
import { planRollout, type RolloutPlan } from './rollout-planner.js';
import { resolveRolloutBounds, type RolloutSettings, type RolloutStrategy } from './rollout-settings.js';
import { machineAvailable, nextAvailableInMs } from './status.js';
import { templateHash } from './template-hash.js';

/** What a new Machine is stamped with: the current template's hash and restart value. */
export interface TemplateStamp {
  hash: string;
  restart?: string;
}

export interface RolloutPass {
  stamp: TemplateStamp;
  plan: RolloutPlan;
  /** Whether the planner decides this pass's creates and deletes (RollingUpdate with outdated Machines). */
  rolling: boolean;
  strategy: RolloutStrategy;
  /** The Machines the plan deletes, in order. */
  victims: Machine[];
  /** The up-to-date Machine that failed, when the rollout is stalled. */
  failed?: Machine;
  /** When a Ready Machine becomes available and the rollout can take its next step. */
  requeueAfterMs?: number;
}

export function stampOf(ms: MachineSet, settings: RolloutSettings): TemplateStamp {
  const stamp: TemplateStamp = { hash: templateHash(ms) };
  if (settings.restart !== undefined) stamp.restart = settings.restart;
  return stamp;
}

export function isUpToDate(m: Machine, stamp: TemplateStamp): boolean {
  if (m.metadata.labels?.[MachineTemplateHashLabel] !== stamp.hash) return false;
  return stamp.restart === undefined || m.metadata.annotations?.[RolloutRestartAnnotation] === stamp.restart;
}

/** The labels and annotations a new Machine gets on top of its template's. */
export function applyStamp(metadata: Machine['metadata'], stamp: TemplateStamp): void {
  metadata.labels = { ...metadata.labels, [MachineTemplateHashLabel]: stamp.hash };
  const annotations = { ...metadata.annotations };
  delete annotations[RolloutRestartAnnotation];
  if (stamp.restart !== undefined) annotations[RolloutRestartAnnotation] = stamp.restart;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
}

/** How many unlabelled Machines are stamped at once. */
const STAMP_CONCURRENCY = 20;

export class MachineSetRollout {
  /** When each MachineSet was first seen with outdated Machines, for the duration metric. */
  private readonly startedAt = new Map<string, number>();

  constructor(
    private readonly client: KubeClient,
    private readonly machines: Informer<Machine>,
    private readonly nodes: Informer<Node>,
    private readonly events: EventRecorder,
    private readonly metrics: RolloutMetrics,
    private readonly now: () => number,
    private readonly random: RandomSource,
  ) {}

  /**
   * `owned` with every Machine that had no template-hash label stamped as made from the current template. All of
   * them are stamped before anything is planned (a few at a time, as an upgrade meets a whole fleet at once): an
   * unstamped Machine would read as outdated. A failed stamp fails the pass, which then plans nothing.
   */
  async adoptUnlabelled(owned: Machine[], stamp: TemplateStamp, ctx: ReconcileContext): Promise<Machine[]> {
    const out = [...owned];
    const pending = owned.flatMap((m, i) => (m.metadata.labels?.[MachineTemplateHashLabel] === undefined ? [i] : []));
    const gone = new Set<number>();
    for (let at = 0; at < pending.length; at += STAMP_CONCURRENCY) {
      await Promise.all(
        pending.slice(at, at + STAMP_CONCURRENCY).map(async (i) => {
          const stamped = await this.stampOne(owned[i]!, stamp, ctx);
          if (stamped) out[i] = stamped;
          else gone.add(i);
        }),
      );
    }
    if (pending.length > 0)
      ctx.log.info('stamped machines as made from the current template', {
        machines: pending.length - gone.size,
        templateHash: stamp.hash,
      });
    return out.filter((_, i) => !gone.has(i));
  }

  /** The Machine with the stamp; undefined when it is gone. */
  private async stampOne(m: Machine, stamp: TemplateStamp, ctx: ReconcileContext): Promise<Machine | undefined> {
    const annotations = stamp.restart !== undefined ? { [RolloutRestartAnnotation]: stamp.restart } : undefined;
    try {
      return await this.client.patch(
        Machines,
        { namespace: m.metadata.namespace, name: m.metadata.name ?? '' },
        { type: 'merge', body: { metadata: { labels: { [MachineTemplateHashLabel]: stamp.hash }, annotations } } },
        { signal: ctx.signal },
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  plan(ms: MachineSet, settings: RolloutSettings, stamp: TemplateStamp, owned: Machine[]): RolloutPass {
    const replicas = ms.spec?.replicas ?? 0;
    const minReadySeconds = ms.spec?.minReadySeconds ?? 0;
    const now = this.now();
    const nodeOf = (name: string) => this.nodes.get({ name });
    const uid = ms.metadata.uid;
    const deleting = this.machines
      .list({ namespace: ms.metadata.namespace })
      .filter((m) => m.metadata.deletionTimestamp && uid && getControllerOf(m)?.uid === uid);
    const rolling = settings.strategy === 'RollingUpdate' && [...owned, ...deleting].some((m) => !isUpToDate(m, stamp));
    // The full delete-policy order costs a shuffle under Random; only a rollout needs it.
    const ordered = rolling ? deletionOrder(owned, resolveDeletePolicy(ms.spec?.deletePolicy), this.random) : owned;
    const describe = (m: Machine, isDeleting: boolean) => ({
      name: m.metadata.name ?? '',
      upToDate: isUpToDate(m, stamp),
      available: !isDeleting && machineAvailable(m, nodeOf, minReadySeconds, now),
      failed: hasFailed(m),
      deleting: isDeleting,
      deleteFirst: deletePriority(m) >= DeletePriority.betterDelete,
    });
    const plan = planRollout({
      replicas,
      strategy: settings.strategy,
      paused: settings.paused,
      bounds: resolveRolloutBounds(settings, replicas),
      machines: [...ordered.map((m) => describe(m, false)), ...deleting.map((m) => describe(m, true))],
    });
    const byName = new Map(owned.map((m) => [m.metadata.name ?? '', m]));
    const pass: RolloutPass = {
      stamp,
      plan,
      rolling,
      strategy: settings.strategy,
      victims: plan.delete.map((n) => byName.get(n)!),
    };
    if (plan.state === 'RolloutStalled') pass.failed = owned.find((m) => isUpToDate(m, stamp) && hasFailed(m));
    if (rolling) pass.requeueAfterMs = nextAvailableInMs(owned, nodeOf, minReadySeconds, now);
    return pass;
  }

  /** Events for the replacements this pass is about to make; called only when it makes them. */
  announce(ms: MachineSet, pass: RolloutPass, burst: number): void {
    if (!pass.rolling) return;
    const { plan, stamp } = pass;
    const deleting = new Set(pass.victims.slice(0, burst).map((m) => m.metadata.name));
    for (const name of plan.replace) {
      if (!deleting.has(name)) continue;
      this.events.event(
        ms,
        'Normal',
        'RollingUpdate',
        'Replace',
        `Replacing outdated machine ${name}: ${plan.counts.available} available, at least ${plan.minAvailable ?? 0} required`,
      );
    }
    const create = Math.min(plan.create, burst);
    if (create > 0) {
      this.events.event(
        ms,
        'Normal',
        'RollingUpdate',
        'Create',
        `Creating ${create} machine${create === 1 ? '' : 's'} from the current template (hash ${stamp.hash}): ${plan.counts.upToDate} of ${ms.spec?.replicas ?? 0} up to date`,
      );
    }
  }

  /** The conditions with UpToDate set; records the state change in events and metrics. */
  record(ms: MachineSet, key: string, pass: RolloutPass, conditions: Condition[] | undefined): Condition[] {
    const replicas = ms.spec?.replicas ?? 0;
    const failed = pass.failed
      ? {
          name: pass.failed.metadata.name ?? '',
          reason: pass.failed.status?.errorMessage ?? pass.failed.status?.errorReason ?? '',
        }
      : undefined;
    const next = upToDateCondition(pass.plan, replicas, failed);
    const previous = getCondition(conditions, UpToDateCondition);
    if (next.reason === RolloutStalledReason && previous?.reason !== RolloutStalledReason) {
      this.events.event(ms, 'Warning', RolloutStalledReason, 'Rollout', next.message ?? '');
    }
    const labels = { name: ms.metadata.name ?? '', namespace: ms.metadata.namespace ?? '' };
    this.metrics.outdated.set(labels, pass.plan.counts.outdated);
    const started = this.startedAt.get(key);
    if (pass.plan.counts.outdated > 0) {
      if (started === undefined) this.startedAt.set(key, this.now());
    } else if (started !== undefined) {
      this.startedAt.delete(key);
      const seconds = (this.now() - started) / 1000;
      this.metrics.duration.observe({ namespace: labels.namespace, strategy: pass.strategy }, seconds);
      this.events.event(
        ms,
        'Normal',
        'RolloutComplete',
        'Rollout',
        `All ${plural(pass.plan.counts.upToDate)} match the template (hash ${pass.stamp.hash}) after ${Math.round(seconds)}s`,
      );
    }
    return setCondition(conditions, next, this.now());
  }

  forget(ms: MachineSet, key: string): void {
    this.startedAt.delete(key);
    this.metrics.outdated.remove({ name: ms.metadata.name ?? '', namespace: ms.metadata.namespace ?? '' });
  }
}

const plural = (n: number) => `${n} machine${n === 1 ? '' : 's'}`;
