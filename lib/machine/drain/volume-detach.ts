// After the drain and before the instance is terminated, wait until no storage.k8s.io/v1 VolumeAttachment names
// the Node: terminating an instance whose volumes are still attached can corrupt them. Bounded by the Machine's
// machine.openshift.io/volume-detach-timeout (default 10m; 0 skips the wait), counted from the end of the drain
// (the Drained condition's lastTransitionTime, so a restart neither resets nor extends it). While waiting the
// Machine shows VolumesDetached=False/WaitingForVolumeDetach naming the volumes; the machine controller terminates
// once that is over (VolumesDetached=True, or False/VolumeDetachTimeout with a Warning event).
// Not waited for, as Cluster API does not: a Node that is gone or unreachable (nothing will detach from it), and
// volumes still in use by pods left on the Node (skipped by the drain, or outliving its timeout), which cannot
// detach while those pods run.
import {
  DrainedCondition,
  VolumeDetachTimeoutAnnotation,
  VolumeDetachTimeoutReason,
  VolumesDetachedCondition,
  WaitingForVolumeDetachReason,
} from '../../apis/constants.js';
import { falseCondition, setCondition, trueConditionWithReason } from '../../apis/conditions.js';
import type { Node, Pod, VolumeAttachment } from '../../apis/core.js';
import { formatGoDuration } from '../../apis/duration.js';
import type { Machine } from '../../apis/machine-types.js';
import type { Clock } from '../../base/clock.js';
import { isNotFound } from '../../client/errors.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KubeClient } from '../../client/kube-client.js';
import { Nodes, PersistentVolumeClaims, Pods, VolumeAttachments } from '../../client/resources.js';
import type { ReconcileContext } from '../../runtime/types.js';
import { messageOf } from '../../apis/errors.js';
import { deletionSettings } from './drain-settings.js';

/** How often a waiting Machine looks at the VolumeAttachments again. */
export const VolumeDetachPollMs = 5_000;
const MaxVolumesNamed = 10;

export interface VolumeDetachWaitDeps {
  client: KubeClient;
  clock: Clock;
  events: EventRecorder;
}

/** The persistent volumes still attached to `nodeName` that the wait is for (pure). */
export function volumesToWaitFor(
  attachments: readonly VolumeAttachment[],
  nodeName: string,
  inUseByPodsLeft: ReadonlySet<string>,
): string[] {
  return attachments
    .filter((va) => va.spec?.nodeName === nodeName)
    .map((va) => va.spec?.source?.persistentVolumeName ?? `(inline volume of ${va.metadata.name ?? ''})`)
    .filter((pv) => !inUseByPodsLeft.has(pv))
    .sort();
}

export class VolumeDetachWait {
  constructor(private readonly d: VolumeDetachWaitDeps) {}

  /**
   * Records on `machine` (a draft the caller persists) where the wait stands; returns when to look again while
   * it goes on, undefined once it is over (or not needed).
   */
  async step(machine: Machine, ctx: ReconcileContext): Promise<number | undefined> {
    const nodeName = machine.status?.nodeRef?.name;
    const { volumeDetachTimeoutMs } = deletionSettings(machine.metadata.annotations);
    if (!nodeName || volumeDetachTimeoutMs === 0) return undefined;
    let waiting: string[];
    try {
      waiting = await this.attached(nodeName, ctx.signal);
    } catch (err) {
      // A read that fails is no reason to terminate early: look again soon.
      ctx.log.error('could not read the volumes attached to the node', { node: nodeName, error: messageOf(err) });
      return VolumeDetachPollMs;
    }
    const now = this.d.clock.now();
    const status = (machine.status ??= {});
    const current = status.conditions?.find((c) => c.type === VolumesDetachedCondition);
    if (waiting.length === 0) {
      // Only a Machine that had to wait says so; without attached volumes nothing changes from the reference.
      if (current)
        status.conditions = setCondition(
          status.conditions,
          trueConditionWithReason(VolumesDetachedCondition, '', `Volumes detached from node "${nodeName}"`),
          now,
        );
      return undefined;
    }
    const drained = status.conditions?.find((c) => c.type === DrainedCondition);
    const since = Date.parse(drained?.lastTransitionTime ?? '');
    const start = Number.isNaN(since) ? now : Math.min(since, now);
    const named = waiting.slice(0, MaxVolumesNamed).join(', ') + (waiting.length > MaxVolumesNamed ? ', ...' : '');
    const limit = `${formatGoDuration(volumeDetachTimeoutMs)} (${VolumeDetachTimeoutAnnotation})`;
    if (now >= start + volumeDetachTimeoutMs) {
      const note = `${waiting.length} volume${waiting.length === 1 ? '' : 's'} still attached to node "${nodeName}" after ${limit}; terminating anyway: ${named}`;
      status.conditions = setCondition(
        status.conditions,
        falseCondition(VolumesDetachedCondition, VolumeDetachTimeoutReason, 'Warning', note),
        now,
      );
      this.d.events.event(machine, 'Warning', VolumeDetachTimeoutReason, 'Drain', note);
      return undefined;
    }
    const message = `Waiting for ${waiting.length} volume${waiting.length === 1 ? '' : 's'} to detach from node "${nodeName}" (at most ${limit}): ${named}`;
    if (current?.reason !== WaitingForVolumeDetachReason)
      this.d.events.event(machine, 'Normal', WaitingForVolumeDetachReason, 'Drain', message);
    status.conditions = setCondition(
      status.conditions,
      falseCondition(VolumesDetachedCondition, WaitingForVolumeDetachReason, 'Info', message),
      now,
    );
    return Math.max(1, Math.min(VolumeDetachPollMs, start + volumeDetachTimeoutMs - now));
  }

  /** The volumes the wait is for; none when the Node is gone or unreachable. */
  private async attached(nodeName: string, signal: AbortSignal): Promise<string[]> {
    let node: Node;
    try {
      node = await this.d.client.get(Nodes, { name: nodeName }, { signal });
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    if (node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown') return [];
    const attachments = (await this.d.client.list(VolumeAttachments, { signal })).items;
    if (!attachments.some((va) => va.spec?.nodeName === nodeName)) return [];
    const pods = (await this.d.client.list(Pods, { fieldSelector: `spec.nodeName=${nodeName}`, signal })).items;
    return volumesToWaitFor(attachments, nodeName, await this.volumesOf(pods, signal));
  }

  /** The persistent volumes the claims of these pods are bound to. */
  private async volumesOf(pods: readonly Pod[], signal: AbortSignal): Promise<Set<string>> {
    const out = new Set<string>();
    for (const pod of pods) {
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      for (const v of pod.spec?.volumes ?? []) {
        const claim = v.persistentVolumeClaim?.claimName;
        if (!claim) continue;
        try {
          const pvc = await this.d.client.get(
            PersistentVolumeClaims,
            { namespace: pod.metadata.namespace ?? '', name: claim },
            { signal },
          );
          if (pvc.spec?.volumeName) out.add(pvc.spec.volumeName);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    }
    return out;
  }
}
