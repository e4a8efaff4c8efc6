// A cloud as the benchmark and the chaos runs drive it, beside its emulator (sim/<cloud>/bench.ts implements
// BenchSimulation): how to start the emulator, the Secrets and worker providerSpec the MachineSets use, which
// emulator actions count as "create" and "describe", the throttled scenario's request buckets, and the faults the
// chaos run injects. hack/bench pairs each with the provider binary its registry descriptor names. Not exported
// by the kit's index: these shapes are the benchmark's, not part of the published kit.
import type { CloudRateLimits, Machine, NodeAddress, Secret } from '../../lib/index.js';
import type { EmulatorKnobs } from './cloud-emulator/index.js';
import type { InstanceView } from './instance-view.js';

/** One target group (AWS) or target pool (GCE) and what is registered in it. */
export interface LoadBalancerMembership {
  group: string;
  /** Each registration as the id of the live instance behind it, or as the bare target when no live instance is. */
  members: string[];
}

export interface BenchLoadBalancer {
  /** Merged into the providerSpec of the MachineSet whose Machines register with it. */
  providerSpecFields: Record<string, unknown>;
  memberships(): LoadBalancerMembership[];
}

export const CHAOS_LB_NAME = 'chaos-nlb';

export interface Bucket {
  /** An action name or class ("describe", "mutate", "read"), as the emulator kit matches them. */
  match: string;
  burst: number;
  ratePerSecond: number;
  perAction: boolean;
}

/** An instance the cloud still runs (not deleted or being deleted), in the shape the invariants read. */
export interface LiveInstance {
  instanceId: string;
  state: string;
  tags: Array<{ key: string; value: string }>;
  /** The instance name where the cloud names instances after their Machine (GCE, IBM VPC). */
  machineName?: string;
}

/**
 * A running instance made for a Machine as if an earlier run of the provider had launched it (the steady-adopted
 * scenario), and what that provider wrote onto the Machine from it.
 */
export interface AdoptedInstance {
  /** The Machine's name. */
  machine: string;
  providerID: string;
  /** Merged into the Machine's labels (region, zone, instance type) and annotations (instance state). */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  addresses: NodeAddress[];
  providerStatus: Record<string, unknown>;
}

export interface BenchCloud {
  readonly endpoint: string;
  /** More endpoints the provider binary is pointed at (IBM Cloud's IAM, Resource Manager, Global Tagging). */
  readonly extraEndpoints?: Readonly<Record<string, string>>;
  readonly knobs: EmulatorKnobs;
  instanceView(): InstanceView;
  liveInstances(): LiveInstance[];
  /** Deletes the instance as someone at the console would (no API call counted). */
  terminateOutOfBand(instanceId: string): void;
  /**
   * While set, every launch is refused with the cloud's own capacity or quota answer (EC2
   * InsufficientInstanceCapacity, GCE ZONE_RESOURCE_POOL_EXHAUSTED in the insert operation, VPC over_quota).
   * setTypeCapacity turns one instance type's capacity off or on in every zone and market (the stock-out scenario).
   */
  refuseLaunches(refused: boolean): void;
  /** While set, the cloud does not know the Secret's key (AuthFailure, 401, BXNIM0415E), as after a revocation. */
  revokeKey(revoked: boolean): void;
  setTypeCapacity(instanceType: string, available: boolean): void;
  /**
   * Launches one running instance per Machine (created already, with its uid), tagged and named as the
   * provider's launch would, in bulk and without the provider's client-side limits; resolves once all run.
   */
  launchAdopted(machines: Machine[], providerSpec: Record<string, unknown>): Promise<AdoptedInstance[]>;
  /** Creates the chaos load balancer in the world; undefined when the cloud's provider registers with none. */
  addLoadBalancer(): BenchLoadBalancer | undefined;
  stop(): Promise<void>;
}

export interface BenchCloudOptions {
  clusterId: string;
  seed: number;
  bootDelayMs: number;
  latencyMs: number;
}

export interface BenchSimulation {
  /** Goes in the MachineSets' cluster label and names the emulator's seeded network. */
  clusterId: string;
  /** Prefix of the cloud-call metric keys ("ec2CallsPerMachine") and the label in target names. */
  metricPrefix: string;
  cloudLabel: string;
  /**
   * Instances per page of the provider's listing of a cluster's instances (EC2 1,000, GCE 500, VPC 100): a resync
   * costs at least one listing, ⌈N / page⌉ calls, which bounds what steady-N can reach.
   */
  listingPageSize?: number;
  /** Actions that create / read an instance, for the per-machine create and describe metrics. */
  createActions: string[];
  describeActions: string[];
  /** The delete action (chaos: lost replies). */
  deleteAction: string;
  /** Chaos fault name of refuseLaunches, in the cloud's words. */
  capacityFault: string;
  /** Whether scenarios report the create/describe metrics (AWS keeps its established output). */
  reportActionClasses: boolean;
  /** Throttled scenario buckets (full size; --quick uses a tenth of each burst). */
  buckets: Bucket[];
  /** The controller's own client-side request limits (its defaults): how long it needs to rest before a scenario. */
  clientLimits: CloudRateLimits;
  /** The stock-out scenario's fallback: the providerSpec field naming the instance type, and a type with capacity. */
  stockOutFallback: { typeField: string; fallback: string };
  startEmulator(o: BenchCloudOptions): Promise<BenchCloud>;
  cloudArgs(cloud: BenchCloud): string[];
  secrets(namespace: string): Secret[];
  providerSpec(): Record<string, unknown>;
  /**
   * The worker providerSpec of each zone the installer makes a MachineSet for, when a cluster of thousands needs
   * more than one zone's subnet (steady-adopted); unset: providerSpec() alone.
   */
  zonalProviderSpecs?(): Array<Record<string, unknown>>;
}

const gone = new Set(['terminated', 'terminating']);

/** Instances from the emulator's instance view, named by the last segment of their providerID. */
export function viewInstances(view: InstanceView): LiveInstance[] {
  return view
    .listInstances()
    .filter((i) => !gone.has(i.state))
    .map((i) => {
      const name = i.providerID.split('/').pop() ?? i.providerID;
      return { instanceId: name, state: i.state, tags: [], machineName: name };
    });
}

/** How long a cloud's bench part waits for the adopted instances it launched to run. */
export const ADOPTED_BOOT_TIMEOUT_MS = 300_000;

/** `fn` over every item, at most `concurrency` at once; the results in the items' order (bulk seeding). */
export async function mapConcurrently<T, R>(
  items: T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}
