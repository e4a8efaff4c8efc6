// Watches the rolling MachineSet's Machines during a chaos run and checks the rollout's two bounds at the
// moments the controller acts, rather than only once things settle:
//  - when a Machine of the set appears while an outdated one exists: the set holds at most replicas + maxSurge
//    Machines, those being deleted included;
//  - when a Running outdated Machine gets its deletionTimestamp: the other Running Machines are at least
//    replicas - maxUnavailable.
// Machines arrive in one watch stream, so their order is the API server's; the MachineSet comes in its own,
// so replicas are taken over a short window (the largest for the ceiling, the smallest for the floor). What a
// user or a fault does to the set (a scale-down, a Machine deleted by hand, an instance terminated out of band,
// a control plane restart that blinds the watch) suspends the checks for a few seconds, as the invariant holds
// "outside injected faults".
import {
  Machines,
  MachineSets,
  type KubeObject,
  type Machine,
  type MachineSet,
  type Resource,
} from '../../lib/index.js';
import { MachineTemplateHashLabel } from '../../lib/apis/constants.js';
import { readRolloutSettings, resolveRolloutBounds } from '../../lib/machineset/rollout-settings.js';
import { templateHash } from '../../lib/machineset/template-hash.js';
import { BENCH_NAMESPACE, type BenchEnvironment } from '../bench/environment.js';
import { MACHINESET_LABEL } from '../bench/workload.js';
import type { Violation } from './invariants.js';

/** How long replicas seen stay in the window, and how long a disturbance suspends the checks. */
export const ROLLOUT_MONITOR_GRACE_MS = 2_000;

export class RolloutMonitor {
  private readonly machines = new Map<string, Machine>();
  private readonly replicasSeen: Array<{ at: number; replicas: number }> = [];
  private set: MachineSet | undefined;
  private quietFrom = 0;
  private readonly userDeleted = new Set<string>();
  private readonly ac = new AbortController();
  readonly violations: Violation[] = [];
  /** How many times each bound was checked, so a run can show the checks ran. */
  readonly checks = { surge: 0, availability: 0 };

  constructor(
    private readonly env: BenchEnvironment,
    private readonly setName: string,
    private readonly seed: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A Machine deleted by the workload, not by the controller: its deletion is not a rollout step. */
  deletedByUser(name: string): void {
    this.userDeleted.add(name);
  }

  /** Something outside the controller changed the set: no check until the grace has passed. */
  disturbed(): void {
    this.quietFrom = this.now() + ROLLOUT_MONITOR_GRACE_MS;
  }

  start(): void {
    void this.follow(MachineSets, (type, ms: MachineSet) => {
      if (ms.metadata.name !== this.setName || type === 'DELETED') return;
      this.set = ms;
      this.replicasSeen.push({ at: this.now(), replicas: ms.spec?.replicas ?? 0 });
    });
    void this.follow(Machines, (type, m) => this.onMachine(type, m));
  }

  stop(): void {
    this.ac.abort();
  }

  private replicasWindow(): number[] {
    const since = this.now() - ROLLOUT_MONITOR_GRACE_MS;
    while (this.replicasSeen.length > 1 && this.replicasSeen[1]!.at < since) this.replicasSeen.shift();
    return this.replicasSeen.map((r) => r.replicas);
  }

  private onMachine(type: string, m: Machine): void {
    if (m.metadata.labels?.[MACHINESET_LABEL] !== this.setName) return;
    const name = m.metadata.name ?? '';
    const before = this.machines.get(name);
    if (type === 'DELETED') this.machines.delete(name);
    else this.machines.set(name, m);
    const ms = this.set;
    if (!ms || this.now() < this.quietFrom) return;
    const settings = readRolloutSettings(ms).settings;
    if (settings?.strategy !== 'RollingUpdate' || settings.paused) return;
    const hash = templateHash(ms);
    const outdated = (x: Machine) => x.metadata.labels?.[MachineTemplateHashLabel] !== hash;
    const window = this.replicasWindow();
    if (type === 'ADDED' && !before && [...this.machines.values()].some(outdated)) {
      this.checks.surge++;
      const ceiling = Math.max(...window) + resolveRolloutBounds(settings, Math.max(...window)).maxSurge;
      if (this.machines.size > ceiling)
        this.violation(
          'a rolling MachineSet never holds more than replicas + maxSurge Machines',
          `${this.setName}: ${this.machines.size} Machines when ${name} appeared, at most ${ceiling}`,
        );
    }
    if (
      type === 'MODIFIED' &&
      before &&
      !before.metadata.deletionTimestamp &&
      m.metadata.deletionTimestamp &&
      before.status?.phase === 'Running' &&
      outdated(m) &&
      !this.userDeleted.has(name)
    ) {
      this.checks.availability++;
      const low = Math.min(...window);
      const floor = low - resolveRolloutBounds(settings, low).maxUnavailable;
      const others = [...this.machines.values()].filter(
        (x) => x.metadata.name !== name && !x.metadata.deletionTimestamp && x.status?.phase === 'Running',
      ).length;
      if (others < floor)
        this.violation(
          'a rolling MachineSet never has fewer available Machines than replicas - maxUnavailable',
          `${this.setName}: deleting ${name} left ${others} Running, at least ${floor}`,
        );
    }
  }

  private violation(invariant: string, detail: string): void {
    this.violations.push({ seed: this.seed, invariant, detail });
  }

  /**
   * List, then watch from there, again from the last version seen when a watch ends; a watch that fails (410
   * Gone, a control plane down) lists again, unchecked, and suspends the checks, for events may have been missed.
   */
  private async follow<T extends KubeObject>(
    resource: Resource<T>,
    onEvent: (type: string, obj: T) => void,
  ): Promise<void> {
    let resourceVersion: string | undefined;
    while (!this.ac.signal.aborted) {
      try {
        if (resourceVersion === undefined) {
          const list = await this.env.client.list(resource, { namespace: BENCH_NAMESPACE });
          this.disturbed();
          if (resource.plural === 'machines') this.machines.clear();
          for (const o of list.items) onEvent('RELISTED', o);
          resourceVersion = list.metadata?.resourceVersion;
        }
        const one = new AbortController();
        const stopOne = () => one.abort();
        this.ac.signal.addEventListener('abort', stopOne);
        let failed = false;
        try {
          await this.env.client.watch(
            resource,
            { namespace: BENCH_NAMESPACE, resourceVersion, allowWatchBookmarks: true },
            (e) => {
              if (failed) return;
              if (e.type === 'ERROR') {
                failed = true;
                one.abort();
                return;
              }
              resourceVersion = e.object.metadata.resourceVersion ?? resourceVersion;
              if (e.type !== 'BOOKMARK') onEvent(e.type, e.object as T);
            },
            one.signal,
          );
        } finally {
          this.ac.signal.removeEventListener('abort', stopOne);
        }
        if (failed) resourceVersion = undefined;
      } catch {
        resourceVersion = undefined;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}
