// The reference's stuck-machine replacement (https://issues.redhat.com/browse/OCPBUGS-1327, done in its
// reconcileMachineWithCloudState): on IBM Cloud VPC a worker
// whose Ignition merges its config from the machine config server sometimes never fetches it, so its instance
// runs but no Node ever appears. After a while the instance is deleted and recreated under the same name,
// once per Machine. The decisions are pure functions; StuckMachines does the calls for the actuator.
import {
  MachineInstanceStateAnnotation,
  MachineRoleLabel,
  PhaseProvisioned,
  updateMachineError,
  type ActuatorContext,
  type Clock,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import { classifyVpcError, describeVpcError } from './errors.js';
import { userDataFor, type MachineScope } from './machine-scope.js';
import { setCondition, type IBMCloudMachineProviderStatus } from './provider-spec.js';
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
  return (
    Array.isArray(merge) &&
    merge.length === 1 &&
    typeof (merge[0] as { source?: unknown })?.source === 'string' &&
    (merge[0] as { source: string }).source.startsWith('https://')
  );
}

/**
 * Whether a Machine looks stuck: its instance has been running for longer than `timeoutMs` since it was
 * created, the Machine is Provisioned without a Node, it is not a control-plane Machine, and it was never
 * replaced before. User data is checked separately (it needs a Secret read).
 */
export function looksStuck(
  machine: Machine,
  status: IBMCloudMachineProviderStatus,
  instance: VpcInstance,
  nowMs: number,
  timeoutMs: number,
): boolean {
  if (instance.status !== 'running') return false;
  if (machine.status?.phase !== PhaseProvisioned || machine.status.nodeRef) return false;
  if (machine.metadata.labels?.[MachineRoleLabel] === 'master') return false;
  if (status.conditions?.some((c) => c.type === MachineReplacementConditionType)) return false;
  const created = Date.parse(instance.created_at);
  return !Number.isNaN(created) && nowMs - created > timeoutMs;
}

export interface StuckMachinesOptions {
  clock: Clock;
  /** Reads the user-data Secret. */
  client: KubeClient;
  /** 0 = never replace. */
  timeoutMs: number;
}

export class StuckMachines {
  constructor(private readonly o: StuckMachinesOptions) {}

  /** Whether the Machine's instance is stuck and its Ignition merges the machine config server's config. */
  async shouldReplace(scope: MachineScope, instance: VpcInstance, ctx: ActuatorContext): Promise<boolean> {
    if (
      this.o.timeoutMs <= 0 ||
      !looksStuck(scope.machine, scope.status, instance, this.o.clock.now(), this.o.timeoutMs)
    )
      return false;
    try {
      return mergesMachineConfigServer(await userDataFor(scope.machine, scope.spec, this.o.client, ctx.signal));
    } catch (err) {
      ctx.log.info('could not read the user data to check for a stuck machine; not replacing it', {
        error: describeVpcError(err),
      });
      return false;
    }
  }

  /** Replaces the Machine's instance when it is stuck (see replace()); returns whether it did. */
  async replaceIfStuck(
    scope: MachineScope,
    instance: VpcInstance,
    ctx: ActuatorContext,
    nowIso: string,
  ): Promise<boolean> {
    if (!(await this.shouldReplace(scope, instance, ctx))) return false;
    await this.replace(scope, instance, ctx, nowIso);
    return true;
  }

  /**
   * Deletes a stuck instance and takes it off the Machine, so that the machine controller creates it again
   * under the same name (create waits while the old one is still deleting). Done at most once per Machine.
   */
  async replace(scope: MachineScope, instance: VpcInstance, ctx: ActuatorContext, nowIso: string): Promise<void> {
    const m = scope.machine;
    ctx.log.info('instance has run without a node for too long; replacing it', {
      instanceId: instance.id,
      createdAt: instance.created_at,
    });
    try {
      await scope.clients.vpc.deleteInstance(instance.id, { signal: ctx.signal });
    } catch (err) {
      if (classifyVpcError(err) !== 'notFound')
        throw updateMachineError(`attempt to delete stuck machine failed: ${describeVpcError(err)}`, err);
    }
    setCondition(
      scope.status,
      {
        type: MachineReplacementConditionType,
        status: 'True',
        reason: ReplacementRequestedReason,
        message: 'Machine replacement requested',
      },
      nowIso,
    );
    scope.status.instanceId = undefined;
    scope.status.instanceState = undefined;
    scope.saveStatus();
    if (m.spec) delete m.spec.providerID;
    if (m.status) delete m.status.addresses;
    m.metadata.annotations = { ...m.metadata.annotations, [MachineInstanceStateAnnotation]: 'deleting' };
    ctx.events.event(
      m,
      'Warning',
      'MachineReplacement',
      'Update',
      `instance ${instance.id} ran for more than ${Math.round(this.o.timeoutMs / 60_000)}m without a node; deleted it to create it again`,
    );
  }

  /** A new instance was recorded: a replacement requested before is complete. */
  replaced(scope: MachineScope, nowIso: string): void {
    if (scope.status.conditions?.some((c) => c.type === MachineReplacementConditionType)) {
      setCondition(
        scope.status,
        {
          type: MachineReplacementConditionType,
          status: 'True',
          reason: ReplacementCompletedReason,
          message: 'Machine replacement completed successfully',
        },
        nowIso,
      );
    }
  }
}
