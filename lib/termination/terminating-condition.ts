// The Node condition a termination handler sets when its cloud has announced the instance's end. The
// machine-api-termination-handler MachineHealthCheck remediates on exactly this type and status, so the names
// and text match the reference handlers.
import type { NodeCondition } from '../apis/core.js';

export const TerminatingConditionType = 'Terminating';
export const TerminationRequestedReason = 'TerminationRequested';
export const TerminationRequestedMessage = 'The cloud provider has marked this instance for termination';

/**
 * The Node's conditions with Terminating=True, or undefined when it already says so (nothing to write). A
 * Terminating condition with another status is replaced; every other condition is kept as it is.
 */
export function withTerminatingCondition(
  conditions: readonly NodeCondition[] | undefined,
  nowIso: string,
): NodeCondition[] | undefined {
  const list = conditions ?? [];
  const current = list.find((c) => c.type === TerminatingConditionType);
  if (current?.status === 'True') return undefined;
  const terminating: NodeCondition = {
    type: TerminatingConditionType,
    status: 'True',
    lastHeartbeatTime: nowIso,
    lastTransitionTime: nowIso,
    reason: TerminationRequestedReason,
    message: TerminationRequestedMessage,
  };
  if (!current) return [...list, terminating];
  return list.map((c) => (c.type === TerminatingConditionType ? terminating : c));
}
