// Per-call state of one actuator operation: the decoded spec and status, the cluster id, the instance name
// and the clients for the Machine's API key. Building it is cheap: clients are cached by the factory, so
// there is no IAM token request or region look-up per reconcile.
import {
  InvalidMachineConfigurationError,
  machineProviderSpecValue,
  providerStatusSaver,
  readReferencedSecret,
  readUserData,
  secretNamesOf,
  type CloudMachineScope,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import { apiKeyFromSecret, CredentialsSecretError } from './credentials.js';
import type { IbmClientFactory, IbmClients } from './ibm-clients.js';
import { clusterIdOf, instanceNameOf, tagNamesOf, VPC_USER_DATA_LIMIT } from './instances.js';
import {
  PROVIDER_SPEC_PATH,
  decodeProviderSpec,
  decodeProviderStatus,
  encodeProviderStatus,
  readProviderSpec,
  type DecodeOptions,
  type DecodedProviderSpec,
  type IBMCloudMachineProviderSpec,
  type IBMCloudMachineProviderStatus,
} from './provider-spec.js';

export interface ScopeDeps {
  client: KubeClient;
  clients: IbmClientFactory;
}

export interface MachineScope extends CloudMachineScope {
  readonly spec: IBMCloudMachineProviderSpec;
  readonly status: IBMCloudMachineProviderStatus;
  readonly clusterId: string;
  /** The Machine's name: the instance name and the idempotency key of creation. */
  readonly instanceName: string;
  readonly clients: IbmClients;
  readonly warnings: string[];
  readonly unknownFields: string[];
  /** The spec's fallback entries, each merged over the primary; empty without fallbacks. */
  readonly fallbacks: readonly IBMCloudMachineProviderSpec[];
}

/**
 * The region whose VPC write rate the Machine's launch waits for (the limiter's scope), read from the spec, when
 * the create is the only write the Machine makes there before it runs: not with tags to attach, whose writes
 * would take tokens from under the turns promised to launches (npm start's 60 tagged Machines cost 4.7
 * reconciles each that way, 3.5 without promised turns).
 */
export function launchRegionOf(machine: Machine): string | undefined {
  const { spec } = readProviderSpec(machine.spec?.providerSpec?.value);
  if (tagNamesOf(spec).length > 0) return undefined;
  return spec.region || undefined;
}

/** The Secrets this Machine's providerSpec names (credentials, user data), with the defaults applied. */
export function secretsReferencedBy(machine: Machine): string[] {
  return secretNamesOf(readProviderSpec(machine.spec?.providerSpec?.value).spec);
}

/** The API key named by the spec; `source` identifies the Secret for client caching. */
export async function apiKeyFor(
  namespace: string,
  spec: IBMCloudMachineProviderSpec,
  client: KubeClient,
  signal: AbortSignal,
  path = PROVIDER_SPEC_PATH,
): Promise<{ apiKey: string; source: string }> {
  const name = spec.credentialsSecret?.name ?? '';
  const secret = await readReferencedSecret(client, { namespace, name }, 'ibmcloud credentials', signal);
  try {
    return { apiKey: apiKeyFromSecret(secret), source: `${namespace}/${name}` };
  } catch (err) {
    if (err instanceof CredentialsSecretError) {
      throw new InvalidMachineConfigurationError(`${path}.credentialsSecret: ${err.message}`, {
        field: `${path}.credentialsSecret`,
        cause: err,
      });
    }
    throw err;
  }
}

/** The user data for the instance; "" when the spec names no Secret. More than the VPC takes fails the Machine. */
export async function userDataFor(
  machine: Machine,
  spec: IBMCloudMachineProviderSpec,
  client: KubeClient,
  signal: AbortSignal,
): Promise<string> {
  const bytes = await readUserData(client, machine, spec.userDataSecret?.name, signal, {
    invalidSpecField: `${PROVIDER_SPEC_PATH}.userDataSecret`,
    limit: VPC_USER_DATA_LIMIT,
  });
  return bytes?.toString('utf8') ?? '';
}

export function decodeMachineSpec(machine: Machine, opts: DecodeOptions = {}): DecodedProviderSpec {
  return decodeProviderSpec(machineProviderSpecValue(machine), opts);
}

export async function newMachineScope(machine: Machine, deps: ScopeDeps, signal: AbortSignal): Promise<MachineScope> {
  const clusterId = clusterIdOf(machine);
  const instanceName = instanceNameOf(machine);
  const { spec, warnings, unknownFields, fallbacks } = decodeMachineSpec(machine);
  const status = decodeProviderStatus(machine.status?.providerStatus);
  const { apiKey, source } = await apiKeyFor(machine.metadata.namespace ?? '', spec, deps.client, signal);
  const clients = await deps.clients.get(apiKey, spec.region, source, signal);
  return {
    machine,
    spec,
    status,
    clusterId,
    instanceName,
    clients,
    warnings,
    unknownFields,
    fallbacks,
    saveStatus: providerStatusSaver(machine, () => encodeProviderStatus(status)),
  };
}
