// Per-call state of one actuator operation: the decoded spec and status, the cluster id, the region and
// the clients for the Machine's credentials. Building it is cheap: clients are cached by the factory.
import {
  machineProviderSpecValue,
  providerStatusSaver,
  readReferencedSecret,
  readUserData,
  secretNamesOf,
  type CloudMachineScope,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import type { AwsClientFactory, AwsClients } from './aws-clients.js';
import { credentialsFromSecret, type AwsCredentialSource } from './credentials.js';
import { clusterIdOf, EC2_USER_DATA_LIMIT } from './instances.js';
import {
  decodeMachineProviderConfig,
  decodeProviderStatus,
  encodeProviderStatus,
  readProviderConfig,
  type AWSMachineProviderConfig,
  type AWSMachineProviderStatus,
} from './provider-spec.js';

export interface ScopeDeps {
  client: KubeClient;
  clients: AwsClientFactory;
  /** Forces every client to this region (e.g. a single-region emulator); also the default for specs without one. */
  regionOverride?: string;
  /** The cluster's region, used when a spec names none (the reference webhook's default). */
  defaultRegion?: string;
}

export interface MachineScope extends CloudMachineScope {
  readonly spec: AWSMachineProviderConfig;
  readonly status: AWSMachineProviderStatus;
  readonly clusterId: string;
  /** placement.region: the region label's value. */
  readonly region: string;
  readonly clients: AwsClients;
  readonly warnings: string[];
  readonly unknownFields: string[];
  /** The spec's fallback entries, each merged over the primary; empty without fallbacks. */
  readonly fallbacks: readonly AWSMachineProviderConfig[];
}

/** The Secrets this Machine's providerSpec names (credentials, user data), with the defaults applied. */
export function secretsReferencedBy(machine: Machine): string[] {
  return secretNamesOf(readProviderConfig(machine.spec?.providerSpec?.value).config);
}

/**
 * The region whose EC2 write rate the Machine's launch waits for (the limiter's scope, as newMachineScope picks
 * the clients), read from the spec alone, when the launch is the only EC2 write the Machine makes before it runs;
 * undefined when it is not (load balancers to register with, a dedicated host to allocate: their writes would
 * take tokens from under the turns promised to launches), or when neither the spec nor the defaults name one.
 */
export function launchRegionOf(
  machine: Machine,
  deps: { regionOverride?: string; defaultRegion?: string },
): string | undefined {
  const { config } = readProviderConfig(machine.spec?.providerSpec?.value);
  const dynamicHost = config.placement?.host?.dedicatedHost?.allocationStrategy === 'Dynamic';
  if ((config.loadBalancers?.length ?? 0) > 0 || dynamicHost) return undefined;
  return clientRegionOf(deps, config.placement?.region) || undefined;
}

/** The region a Machine's clients are for, and so its calls metered in: the override, the spec's, the default. */
function clientRegionOf(
  deps: { regionOverride?: string; defaultRegion?: string },
  specRegion: string | undefined,
): string {
  return deps.regionOverride || specRegion || deps.defaultRegion || '';
}

/** The credentials named by the spec, read from `namespace`; `source` identifies the Secret for client caching. */
export async function credentialsFor(
  namespace: string,
  config: AWSMachineProviderConfig,
  client: KubeClient,
  signal: AbortSignal,
): Promise<{ credentials?: AwsCredentialSource; source: string }> {
  const name = config.credentialsSecret?.name;
  if (!name) return { source: 'default' };
  const secret = await readReferencedSecret(client, { namespace, name }, 'aws credentials', signal);
  return { credentials: credentialsFromSecret(secret), source: `${namespace}/${name}` };
}

/**
 * The user data bytes for RunInstances; undefined when the spec names no Secret. A Secret without the key is
 * retried, as the reference does; user data over EC2's cap fails the Machine before any EC2 call.
 */
export function userDataFor(
  machine: Machine,
  config: AWSMachineProviderConfig,
  client: KubeClient,
  signal: AbortSignal,
): Promise<Uint8Array | undefined> {
  return readUserData(client, machine, config.userDataSecret?.name, signal, { limit: EC2_USER_DATA_LIMIT });
}

export async function newMachineScope(machine: Machine, deps: ScopeDeps, signal: AbortSignal): Promise<MachineScope> {
  machineProviderSpecValue(machine);
  const { config, warnings, unknownFields, fallbacks } = decodeMachineProviderConfig(machine, {
    defaultRegion: deps.regionOverride ?? deps.defaultRegion,
  });
  const status = decodeProviderStatus(machine.status?.providerStatus);
  const clusterId = clusterIdOf(machine);
  const creds = await credentialsFor(machine.metadata.namespace ?? '', config, deps.client, signal);
  const region = config.placement.region ?? '';
  const clients = deps.clients.get(clientRegionOf(deps, region), creds.credentials, creds.source);
  return {
    machine,
    spec: config,
    status,
    clusterId,
    region,
    clients,
    warnings,
    unknownFields,
    fallbacks,
    saveStatus: providerStatusSaver(machine, () => encodeProviderStatus(status)),
  };
}
