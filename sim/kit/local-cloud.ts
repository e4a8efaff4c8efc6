// A cloud as `machine-api-local` (npm start) runs it: how to start its emulator persisting into a directory, what
// the started emulator offers the environment, and how its provider binary and Infrastructure point at it. Each
// sim/<cloud>/local.ts implements LocalSimulation; cmd/local pairs it with the cloud's provider binary. Not
// exported by the kit's index: these shapes are npm start's, not part of the published kit.
import type { Logger } from '../../lib/index.js';
import type { AdminRoute } from './cloud-emulator/index.js';
import type { InstanceView } from './instance-view.js';

export interface EmulatorSettings {
  /** The emulator keeps its instances here across restarts. */
  dataDir: string;
  /** pending → running. */
  bootDelayMs: number;
  /** shutting-down → terminated (and stopping → stopped). */
  terminateDelayMs: number;
  /** Added to every cloud call. */
  latencyMs: number;
  /** Port on 127.0.0.1; 0 = any free port. */
  port: number;
  logger?: Logger;
}

export interface LocalCloud {
  /** Base URL the provider's SDK is pointed at. */
  endpoint: string;
  region: string;
  /** More values published beside `endpoint` in endpoints.json, e.g. IBM Cloud's iamEndpoint or the GCP project. */
  extraEndpoints?: Record<string, string>;
  /** What the kubelet simulator follows. */
  instanceView(): InstanceView;
  /** Calls per cloud action so far (the CredentialsRequest check reads it). */
  actionCounts(): Record<string, number>;
  /**
   * The metadata endpoint variable (AWS_EC2_METADATA_SERVICE_ENDPOINT, GCE_METADATA_HOST) of the instance
   * behind a Node's providerID, for its termination handler; undefined on a cloud without reclaim notices or
   * for an instance the emulator does not hold.
   */
  metadataEnv?(providerID: string): Promise<NodeJS.ProcessEnv | undefined>;
  /** What the admin endpoint (endpoints.json cloud.<provider>.admin) lets a user change while it runs: its
   * credentials (GET, POST and DELETE /credentials), its capacity and its spot interruptions. */
  adminRoutes: readonly AdminRoute[];
  /** Has the cloud announce the reclaim of the spot/preemptible instance behind a providerID (notice first). */
  reclaim?(providerID: string): void;
  stop(): Promise<void>;
}

/** The simulation half of a local provider; the provider binary half stays with the binaries in cmd/. */
export interface LocalSimulation {
  /** manifests/samples/<dir>/ */
  samplesDir: string;
  startEmulator(settings: EmulatorSettings): Promise<LocalCloud>;
  /** Flags that point the provider binary at the emulator. */
  cloudArgs(cloud: LocalCloud): string[];
  /** What the installer would record in the Infrastructure "cluster": the cluster name the samples carry, and the platform. */
  infrastructure(cloud: LocalCloud): {
    clusterName: string;
    platformStatus: { type: string } & Record<string, unknown>;
  };
}

/** Calls per action from an emulator's knobs, as LocalCloud.actionCounts reports them. */
export function totalActionCounts(counts: Record<string, { total: number }>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([action, c]) => [action, c.total]));
}
