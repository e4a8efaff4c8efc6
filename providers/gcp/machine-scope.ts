// Per-call state of one actuator operation: the decoded spec and status, the cluster id, the project and
// the clients for the Machine's credentials. Building it is cheap: clients are cached by the factory.
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
import { credentialsFromSecret, type GcpCredentials } from './credentials.js';
import type { GcpClientFactory, GcpClients } from './gcp-clients.js';
import { clusterIdOf, providerIdOf } from './instances.js';
import { isControlPlaneMachine } from './load-balancers.js';
import {
  PROVIDER_SPEC_PATH,
  decodeProviderSpec,
  decodeProviderStatus,
  encodeProviderStatus,
  readProviderSpec,
  type DecodeOptions,
  type GCPMachineProviderSpec,
  type GCPMachineProviderStatus,
} from './provider-spec.js';

export interface ScopeDeps {
  client: KubeClient;
  clients: GcpClientFactory;
  /** The project for specs that name none when the credentials do not say either. */
  defaultProject?: string;
  /** The installer's RHCOS image, for specs without disks. */
  defaultImage?: string;
}

export interface MachineScope extends CloudMachineScope {
  readonly spec: GCPMachineProviderSpec;
  readonly status: GCPMachineProviderStatus;
  readonly clusterId: string;
  /** spec.projectID, else the credentials' project_id. */
  readonly project: string;
  /** The Secret's service-account key, if the spec names one. */
  readonly credentials?: GcpCredentials;
  readonly clients: GcpClients;
  readonly warnings: string[];
  readonly unknownFields: string[];
  /** The instance name: the Machine's name. */
  readonly instanceName: string;
  readonly providerID: string;
  /** The spec's fallback entries, each merged over the primary; empty without fallbacks. */
  readonly fallbacks: readonly GCPMachineProviderSpec[];
}

/** The scope of one capacity entry: its merged spec, and the providerID of its zone. */
export const scopeForSpec = (scope: MachineScope, spec: GCPMachineProviderSpec): MachineScope => ({
  ...scope,
  spec,
  providerID: providerIdOf(scope.project, spec.zone, scope.instanceName),
});

/**
 * The project whose GCE write rate the Machine's launch waits for (the limiter's scope), when the spec names it
 * (otherwise it comes from the credentials, which only the reconcile reads) and the insert is the only GCE write
 * the Machine makes before it runs: not with target pools or the control plane's instance group to join, whose
 * writes would take tokens from under the turns promised to launches.
 */
export function launchProjectOf(machine: Machine): string | undefined {
  const { spec } = readProviderSpec(machine.spec?.providerSpec?.value);
  if ((spec.targetPools?.length ?? 0) > 0 || isControlPlaneMachine(machine)) return undefined;
  return spec.projectID || undefined;
}

/** The Secrets this Machine's providerSpec names (credentials, user data), with the defaults applied. */
export function secretsReferencedBy(machine: Machine): string[] {
  return secretNamesOf(readProviderSpec(machine.spec?.providerSpec?.value).spec);
}

/** The credentials named by the spec, read from `namespace`; `source` identifies the Secret for client caching. */
export async function credentialsFor(
  namespace: string,
  spec: GCPMachineProviderSpec,
  client: KubeClient,
  signal: AbortSignal,
): Promise<{ credentials?: GcpCredentials; source: string }> {
  const name = spec.credentialsSecret?.name;
  if (!name) return { source: 'default' };
  const secret = await readReferencedSecret(client, { namespace, name }, 'gcp credentials', signal);
  return { credentials: credentialsFromSecret(secret), source: `${namespace}/${name}` };
}

/** The user data for the instance metadata; "" when the spec names no Secret. */
export async function userDataFor(
  machine: Machine,
  spec: GCPMachineProviderSpec,
  client: KubeClient,
  signal: AbortSignal,
): Promise<string> {
  const bytes = await readUserData(client, machine, spec.userDataSecret?.name, signal, {
    invalidSpecField: `${PROVIDER_SPEC_PATH}.userDataSecret`,
  });
  return bytes?.toString('utf8') ?? '';
}

/** The project a spec's instances live in. */
export function projectOf(
  spec: GCPMachineProviderSpec,
  credentials: GcpCredentials | undefined,
  defaultProject: string | undefined,
  path = PROVIDER_SPEC_PATH,
): string {
  const project = spec.projectID || credentials?.projectId || defaultProject;
  if (!project) {
    throw new InvalidMachineConfigurationError(
      `${path}.projectID: Required value: no projectID in the spec and none in the credentials`,
      { field: `${path}.projectID` },
    );
  }
  return project;
}

export function decodeMachineSpec(
  machine: Machine,
  deps: Pick<ScopeDeps, 'defaultImage'>,
): ReturnType<typeof decodeProviderSpec> {
  const opts: DecodeOptions = {
    clusterId: machine.metadata.labels?.['machine.openshift.io/cluster-api-cluster'],
    defaultImage: deps.defaultImage,
  };
  return decodeProviderSpec(machineProviderSpecValue(machine), opts);
}

export async function newMachineScope(machine: Machine, deps: ScopeDeps, signal: AbortSignal): Promise<MachineScope> {
  const clusterId = clusterIdOf(machine);
  const { spec, warnings, unknownFields, fallbacks } = decodeMachineSpec(machine, deps);
  const status = decodeProviderStatus(machine.status?.providerStatus);
  const creds = await credentialsFor(machine.metadata.namespace ?? '', spec, deps.client, signal);
  const project = projectOf(spec, creds.credentials, deps.defaultProject);
  const clients = deps.clients.get(creds.credentials, creds.source);
  const instanceName = machine.metadata.name ?? '';
  return {
    machine,
    spec,
    status,
    clusterId,
    project,
    credentials: creds.credentials,
    clients,
    warnings,
    unknownFields,
    fallbacks,
    instanceName,
    providerID: providerIdOf(project, spec.zone, instanceName),
    saveStatus: providerStatusSaver(machine, () => encodeProviderStatus(status)),
  };
}
