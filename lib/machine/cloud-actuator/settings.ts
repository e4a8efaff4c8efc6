// What a cloud actuator tells the template about its cloud, and the shapes the template reads and writes: the
// provider status fields every cloud has, and the per-call scope.
import type { Machine } from '../../apis/machine-types.js';
import type { Clock } from '../../base/clock.js';
import type { CapacityMemory } from '../../cloud/capacity-memory.js';
import type { CapacityEntryRecord } from '../../cloud/provider-condition.js';
import type { KubeClient } from '../../client/kube-client.js';
import type { InstanceAction } from '../metrics.js';

/** The requeue delay while waiting on a cloud (an instance not running yet, a termination under way): the reference's 20 s. */
export const DEFAULT_CLOUD_REQUEUE_AFTER_MS = 20_000;

/** The provider status fields the template reads and writes; every provider's status has them. */
export interface CloudProviderStatus {
  instanceId?: string | null;
  instanceState?: string | null;
  conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }>;
  /** The capacity entry the Machine runs on, for specs with fallbacks (capacity-entries.ts). */
  capacityEntry?: CapacityEntryRecord;
}

/** What the template needs of a provider's per-call scope. */
export interface CloudMachineScope {
  readonly machine: Machine;
  readonly status: CloudProviderStatus;
  readonly unknownFields: readonly string[];
  /** Writes `status` back onto machine.status.providerStatus. */
  saveStatus(): void;
}

/** A scope's saveStatus(): writes the provider status, as `encode` renders it, back onto the Machine. */
export const providerStatusSaver =
  (machine: Machine, encode: () => Record<string, unknown>): (() => void) =>
  () => {
    machine.status = { ...machine.status, providerStatus: encode() };
  };

export interface CreationCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** The clock and timings every cloud actuator takes from its options (tests shorten them). */
export interface CloudActuatorTimings {
  clock: Clock;
  /** How long after a launch the cloud's reads may not show the instance (default DEFAULT_VISIBILITY_WINDOW_MS, as every cloud). */
  eventualConsistencyWindowMs?: number;
  /** Requeue delay while waiting on the cloud (default DEFAULT_CLOUD_REQUEUE_AFTER_MS). */
  requeueAfterMs?: number;
  /** The process's memory of capacity refusals (default: one per actuator, with the default cool-down). */
  capacityMemory?: CapacityMemory;
}

/** What every cloud actuator is built with, beside its cloud's own options. */
export interface CloudActuatorOptions extends CloudActuatorTimings {
  /** Reads the credentials and user-data Secrets. */
  client: KubeClient;
}

/** What the template needs to know about a cloud (its timings come from the provider's options). */
export interface CloudActuatorSettings {
  /** Whether a state on the instance-state annotation means the instance is terminating or terminated. */
  isTerminating(state: string): boolean;
  /** The cloud names the instance only in the launch's reply: a launch ledger guards the gap until it is on record. */
  idFromLaunchReply: boolean;
  /** The provider condition that records creation (MachineCreation, MachineCreated). */
  creationCondition: string;
  /** Upserts a condition into the provider status; providers whose conditions have their own shape pass theirs. */
  setCondition?: (status: CloudProviderStatus, cond: CreationCondition, nowIso: string) => void;
  /** The mapi_instance_*_failed reason of each operation when no step named one (the reference's words). */
  failureReasons: Record<InstanceAction, string>;
  /** A failure in the words the Machine's events show. */
  describeError(err: unknown): string;
  /**
   * Whether the cloud refused the credentials (an unknown or revoked key, a bad signature, an invalid token):
   * the template then names the credentials Secret in the Machine's Warning events.
   */
  refusesCredentials?(err: unknown): boolean;
  /**
   * The instance id in the provider status, read without decoding the spec (which may be invalid). Default: the
   * instanceId every provider status has, read leniently (readCommonProviderStatus).
   */
  recordedInstanceId?(machine: Machine): string | undefined;
}
