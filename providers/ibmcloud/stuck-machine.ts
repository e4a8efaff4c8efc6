// The reference's stuck-machine replacement (https://issues.redhat.com/browse/OCPBUGS-1327, done in its
// reconcileMachineWithCloudState): on IBM Cloud VPC a worker
// whose Ignition merges its config from the machine config server sometimes never fetches it, so its instance
// runs but no Node ever appears. After a while the instance is deleted and recreated under the same name,
// once per Machine. Pure decisions here; the actuator does the calls.
import { MachineRoleLabel, PhaseProvisioned, type Machine } from '../../lib/index.js';
import type { IBMCloudMachineProviderStatus } from './provider-spec.js';
import type { VpcInstance } from './vpc-types.js';

export const MachineReplacementConditionType = 'MachineReplacement';
export const ReplacementRequestedReason = 'MachineReplacementRequested';
export const ReplacementCompletedReason = 'MachineReplacementCompleted';
export const STUCK_MACHINE_TIMEOUT_MS = 15 * 60_000;

/**
 * Whether user data is an Ignition v3 config that merges exactly one https:// source (an MCS-served config):
 * the case the replacement exists for. Anything else (other formats, unparsable data) is never replaced.
 */
export function mergesMachineConfigServer(userData: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(userData);
  } catch {
    return false;
  }
  const ignition = (parsed as { ignition?: { version?: unknown; config?: { merge?: unknown } } } | null)?.ignition;
  if (typeof ignition?.version !== 'string' || !ignition.version.startsWith('3.')) return false;
  const merge = ignition.config?.merge;
  return Array.isArray(merge) && merge.length === 1 && typeof (merge[0] as { source?: unknown })?.source === 'string' && (merge[0] as { source: string }).source.startsWith('https://');
}

/**
 * Whether a Machine looks stuck: its instance has been running for longer than `timeoutMs` since it was
 * created, the Machine is Provisioned without a Node, it is not a control-plane Machine, and it was never
 * replaced before. User data is checked separately (it needs a Secret read).
 */
export function looksStuck(machine: Machine, status: IBMCloudMachineProviderStatus, instance: VpcInstance, nowMs: number, timeoutMs: number): boolean {
  if (instance.status !== 'running') return false;
  if (machine.status?.phase !== PhaseProvisioned || machine.status.nodeRef) return false;
  if (machine.metadata.labels?.[MachineRoleLabel] === 'master') return false;
  if (status.conditions?.some((c) => c.type === MachineReplacementConditionType)) return false;
  const created = Date.parse(instance.created_at);
  return !Number.isNaN(created) && nowMs - created > timeoutMs;
}
