// Writes Terminating=True onto a Node's status, once. The write carries the resourceVersion it was computed
// from, so a concurrent status write (the kubelet's heartbeat) is never overwritten: a conflict re-reads and
// recomputes. A Node that already says Terminating=True is left alone.
import type { Node } from '../apis/core.js';
import { isConflict } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Nodes } from '../client/resources.js';
import type { Clock } from '../base/clock.js';
import { retryCall } from '../runtime/retry-call.js';
import { withTerminatingCondition } from './terminating-condition.js';

/** How many conflicts in a row are re-read before the caller's retry takes over. */
const CONFLICT_RETRIES = 5;

/** Resolves true when this call wrote the condition, false when the Node already had it. */
export function markNodeTerminating(
  client: KubeClient,
  nodeName: string,
  clock: Clock,
  signal: AbortSignal,
): Promise<boolean> {
  // A conflict means the Node changed since it was read: read it again at once and recompute.
  return retryCall(
    async () => {
      const node: Node = await client.get(Nodes, { name: nodeName }, { signal });
      const conditions = withTerminatingCondition(node.status?.conditions, isoSeconds(clock.now()));
      if (!conditions) return false;
      await client.patch(
        Nodes,
        { name: nodeName },
        { type: 'merge', body: { status: { conditions } } },
        { subresource: 'status', resourceVersion: node.metadata.resourceVersion, signal },
      );
      return true;
    },
    { signal, retryable: isConflict, retries: CONFLICT_RETRIES, minTimeoutMs: 0, clock },
  );
}

/** Kubernetes' metav1.Time: RFC 3339 with whole seconds. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
