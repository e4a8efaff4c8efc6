// Shared fixtures for the IBM Cloud provider tests: providerSpecs naming the emulator's default world,
// Machines, Secrets, and a KubeClient that only serves Secrets.
import type { KubeClient, Machine, Secret } from '../../../lib/index.js';
import type { VpcInstance } from '../../../providers/ibmcloud/vpc-types.js';
import { secretsOnlyClient } from '../../../sim/kit/index.js';
import { DEFAULT_API_KEY, DEFAULT_CLUSTER_ID } from '../../../sim/ibmcloud/index.js';

export const NAMESPACE = 'openshift-machine-api';
export const CLUSTER_ID = DEFAULT_CLUSTER_ID;
export const CREDENTIALS_SECRET = 'ibmcloud-credentials';
export const USER_DATA_SECRET = 'worker-user-data';

/** A worker spec in us-south-1 with the installer-style names the emulator seeds. */
export function ibmSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'ibmcloudproviderconfig.openshift.io/v1beta1',
    kind: 'IBMCloudMachineProviderSpec',
    vpc: `${CLUSTER_ID}-vpc`,
    image: `${CLUSTER_ID}-rhcos`,
    profile: 'bx2-4x16',
    region: 'us-south',
    zone: 'us-south-1',
    resourceGroup: CLUSTER_ID,
    primaryNetworkInterface: {
      subnet: `${CLUSTER_ID}-subnet-compute-us-south-1`,
      securityGroups: [`${CLUSTER_ID}-sg-cluster-wide`, `${CLUSTER_ID}-sg-openshift-net`],
    },
    bootVolume: { encryptionKey: '' },
    userDataSecret: { name: USER_DATA_SECRET },
    credentialsSecret: { name: CREDENTIALS_SECRET },
    ...extra,
  };
}

let uidCounter = 0;

export function machine(
  name: string,
  spec: Record<string, unknown> = ibmSpec(),
  uid = `uid-${name}-${++uidCounter}`,
): Machine {
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

const b64 = (s: string) => Buffer.from(s).toString('base64');

export function defaultSecrets(apiKey = DEFAULT_API_KEY): Secret[] {
  return [
    { metadata: { namespace: NAMESPACE, name: CREDENTIALS_SECRET }, data: { ibmcloud_api_key: b64(apiKey) } },
    {
      metadata: { namespace: NAMESPACE, name: USER_DATA_SECRET },
      data: { userData: b64('{"ignition":{"version":"3.2.0"}}') },
    },
  ];
}

/** A KubeClient that serves Secrets from memory; anything else is a test bug. */
export function secretsClient(secrets: Secret[] = defaultSecrets()): KubeClient & { secrets: Secret[] } {
  return secretsOnlyClient(secrets);
}

/** A running bx2-4x16 VPC instance in us-south-1, as the API describes it; `over` replaces what a test needs. */
export function vpcInstance(over: Partial<VpcInstance> = {}): VpcInstance {
  return {
    id: 'id-m',
    crn: 'crn:id-m',
    name: 'm',
    status: 'running',
    created_at: '2026-01-01T00:00:00Z',
    profile: { name: 'bx2-4x16' },
    zone: { name: 'us-south-1' },
    vpc: { id: 'vpc-1' },
    resource_group: { id: 'rg-1' },
    ...over,
  };
}
