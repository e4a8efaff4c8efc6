// Which pods a drain evicts, deletes or leaves (kubectl drain semantics with Force, IgnoreAllDaemonSets
// and DeleteEmptyDirData): mirror pods stay, live DaemonSet pods stay, everything else goes.
import { MirrorPodAnnotation } from '../../apis/constants.js';
import type { Pod } from '../../apis/core.js';

export interface PodFilterOptions {
  nowMs: number;
  /** Pods already deleting for longer than this are skipped (unreachable node); 0 = never skip. */
  skipWaitForDeleteTimeoutMs: number;
  daemonSetExists(namespace: string, name: string): Promise<boolean>;
}

export interface PodDecision {
  pod: Pod;
  action: 'evict' | 'skip';
  reason: string;
}

export async function decidePods(pods: Pod[], opts: PodFilterOptions): Promise<PodDecision[]> {
  const out: PodDecision[] = [];
  for (const pod of pods) out.push(await decide(pod, opts));
  return out;
}

async function decide(pod: Pod, opts: PodFilterOptions): Promise<PodDecision> {
  const deletedAt = pod.metadata.deletionTimestamp ? Date.parse(pod.metadata.deletionTimestamp) : undefined;
  if (
    opts.skipWaitForDeleteTimeoutMs > 0 &&
    deletedAt !== undefined &&
    opts.nowMs - deletedAt > opts.skipWaitForDeleteTimeoutMs
  ) {
    return { pod, action: 'skip', reason: 'already deleting on an unreachable node' };
  }
  if (pod.metadata.annotations?.[MirrorPodAnnotation] !== undefined) {
    return { pod, action: 'skip', reason: 'mirror pod' };
  }
  const controller = pod.metadata.ownerReferences?.find((o) => o.controller);
  if (controller?.kind === 'DaemonSet') {
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return { pod, action: 'evict', reason: 'finished DaemonSet pod' };
    if (await opts.daemonSetExists(pod.metadata.namespace ?? '', controller.name)) {
      return { pod, action: 'skip', reason: 'DaemonSet-managed' };
    }
    return { pod, action: 'evict', reason: 'orphaned DaemonSet pod' };
  }
  if (!controller) return { pod, action: 'evict', reason: 'unmanaged pod (forced)' };
  if (pod.spec?.volumes?.some((v) => v.emptyDir !== undefined))
    return { pod, action: 'evict', reason: 'emptyDir data deleted' };
  return { pod, action: 'evict', reason: 'managed pod' };
}
