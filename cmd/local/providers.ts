// The clouds `machine-api-local` can emulate. Adding one is one entry in `localProviders`: how to start its
// emulator (persisting into a directory), which provider binary runs against it and with which extra flags.
// The secrets to create come from the Secret documents in manifests/samples/<name>/.
import type { Logger } from '../../lib/index.js';
import type { AdminRoute, InstanceView } from '../../sim/kit/index.js';
import { awsLocalProvider } from './aws.js';
import { gcpLocalProvider } from './gcp.js';
import { ibmCloudLocalProvider } from './ibmcloud.js';
import type { LocalBinary } from './local-binary.js';

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

export interface LocalProvider {
  name: string;
  /** manifests/samples/<dir>/ */
  samplesDir: string;
  startEmulator(settings: EmulatorSettings): Promise<LocalCloud>;
  /** The provider binary (machine controller, NodeLink, scale-from-zero) for this cloud. */
  binary: LocalBinary;
  /** Flags that point the provider binary at the emulator. */
  cloudArgs(cloud: LocalCloud): string[];
  /** What the installer would record in the Infrastructure "cluster": the cluster name the samples carry, and the platform. */
  infrastructure(cloud: LocalCloud): {
    clusterName: string;
    platformStatus: { type: string } & Record<string, unknown>;
  };
}

export const localProviders: Record<string, LocalProvider> = {
  aws: awsLocalProvider,
  gcp: gcpLocalProvider,
  ibmcloud: ibmCloudLocalProvider,
};

export class UnknownProviderError extends Error {
  override readonly name = 'UnknownProviderError';
}

export function localProvider(name: string): LocalProvider {
  const p = Object.hasOwn(localProviders, name) ? localProviders[name] : undefined;
  if (!p)
    throw new UnknownProviderError(
      `--provider must be one of ${Object.keys(localProviders).join(', ')}, got ${JSON.stringify(name)}`,
    );
  return p;
}
