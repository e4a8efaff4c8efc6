// Shared fixtures for the GCP provider tests: Machines, the credentials and user-data Secrets (values matching
// the GCE emulator's default world), and a KubeClient that serves only Secrets.
import {
  type ActuatorContext,
  type EventRecorder,
  type KubeClient,
  type Machine,
  type MachineSet,
  type Secret,
} from '../../../lib/index.js';
import { machineSetFor, secretsOnlyClient, silentLogger } from '../../../sim/kit/index.js';
import { EMULATOR_SERVICE_ACCOUNT_KEY } from '../../../sim/gcp/index.js';

export const NAMESPACE = 'openshift-machine-api';
export const CLUSTER_ID = 'test-cluster';
export const PROJECT = 'test-project';
export const REGION = 'us-central1';
export const ZONE = 'us-central1-a';
export const IMAGE = 'projects/rhcos-cloud/global/images/rhcos-9-6-20251023-0-gcp-x86-64';

export { silentLogger };

export function gcpSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'GCPMachineProviderSpec',
    machineType: 'n2-standard-4',
    region: REGION,
    zone: ZONE,
    canIPForward: false,
    deletionProtection: false,
    credentialsSecret: { name: 'gcp-cloud-credentials' },
    userDataSecret: { name: 'worker-user-data' },
    disks: [{ autoDelete: true, boot: true, sizeGb: 128, type: 'pd-ssd', image: IMAGE, labels: {} }],
    networkInterfaces: [{ network: `${CLUSTER_ID}-network`, subnetwork: `${CLUSTER_ID}-worker-subnet` }],
    serviceAccounts: [
      {
        email: `${CLUSTER_ID}-w@${PROJECT}.iam.gserviceaccount.com`,
        scopes: ['https://www.googleapis.com/auth/cloud-platform'],
      },
    ],
    tags: [`${CLUSTER_ID}-worker`],
    labels: { team: 'machines' },
    ...extra,
  };
}

let uidCounter = 0;

/** A fresh UUID-shaped uid, as the API server would assign. */
export const newUid = (): string => `00000000-0000-4000-8000-${String(++uidCounter).padStart(12, '0')}`;

export function machine(name: string, spec: Record<string, unknown> = gcpSpec(), uid = newUid()): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid,
      labels: { 'machine.openshift.io/cluster-api-cluster': CLUSTER_ID },
      generation: 1,
    },
    spec: { providerSpec: { value: spec } },
    status: {},
  };
}

export function machineSet(name: string, replicas: number, spec: Record<string, unknown> = gcpSpec()): MachineSet {
  return machineSetFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, replicas, spec });
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/**
 * The service-account key the GCE emulator knows by default (the sample Secret's): the provider signs its calls
 * to a loopback emulator with it.
 */
export const FAKE_SERVICE_ACCOUNT = { ...EMULATOR_SERVICE_ACCOUNT_KEY, project_id: PROJECT };

export function defaultSecrets(): Secret[] {
  return [
    {
      metadata: { namespace: NAMESPACE, name: 'gcp-cloud-credentials' },
      data: { 'service_account.json': b64(JSON.stringify(FAKE_SERVICE_ACCOUNT)) },
    },
    {
      metadata: { namespace: NAMESPACE, name: 'worker-user-data' },
      data: { userData: b64('{"ignition":{"version":"3.2.0"}}') },
    },
  ];
}

/** A KubeClient that serves Secrets from memory; anything else is a test bug. */
export function secretsClient(secrets: Secret[] = defaultSecrets()): KubeClient {
  return secretsOnlyClient(secrets);
}

export interface RecordedEvent {
  type: string;
  reason: string;
  message: string;
}

export function recordingContext(): ActuatorContext & { recorded: RecordedEvent[] } {
  const recorded: RecordedEvent[] = [];
  const events: EventRecorder = {
    event: (_object, type, reason, _action, message) => recorded.push({ type, reason, message }),
  };
  return { signal: new AbortController().signal, log: silentLogger, events, recorded };
}
