// Shared fixtures for the AWS provider tests: Machines, Secrets, and a KubeClient that only serves Secrets.
import {
  type ActuatorContext,
  type CoreEvent,
  type EventRecorder,
  type KubeClient,
  type Machine,
  type Secret,
} from '../../../lib/index.js';
import { secretsOnlyClient, silentLogger } from '../../../sim/kit/index.js';
import { EC2Client, RunInstancesCommand, type Tag } from '@aws-sdk/client-ec2';
import { EMULATOR_ACCESS_KEY } from '../../../sim/aws/index.js';

// The SDK warns on every client about Node < 22; tests know.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export const NAMESPACE = 'openshift-machine-api';
export const CLUSTER_ID = 'test-cluster';

export { silentLogger };

export function awsSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'AWSMachineProviderConfig',
    ami: { id: 'ami-0a1b2c3d4e5f00001' },
    instanceType: 'm6i.xlarge',
    placement: { region: 'us-east-1', availabilityZone: 'us-east-1a' },
    credentialsSecret: { name: 'aws-cloud-credentials' },
    userDataSecret: { name: 'worker-user-data' },
    iamInstanceProfile: { id: 'test-cluster-worker-profile' },
    subnet: { filters: [{ name: 'tag:Name', values: [`${CLUSTER_ID}-subnet-private-us-east-1a`] }] },
    securityGroups: [{ filters: [{ name: 'tag:Name', values: [`${CLUSTER_ID}-node`] }] }],
    blockDevices: [{ ebs: { volumeSize: 120, volumeType: 'gp3', encrypted: true } }],
    ...extra,
  };
}

let uidCounter = 0;

export function machine(
  name: string,
  spec: Record<string, unknown> = awsSpec(),
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

export function defaultSecrets(): Secret[] {
  return [
    {
      metadata: { namespace: NAMESPACE, name: 'aws-cloud-credentials' },
      data: {
        aws_access_key_id: b64(EMULATOR_ACCESS_KEY.accessKeyId),
        aws_secret_access_key: b64(EMULATOR_ACCESS_KEY.secretAccessKey),
      },
    },
    {
      metadata: { namespace: NAMESPACE, name: 'worker-user-data' },
      data: { userData: b64('{"ignition":{"version":"3.2.0"}}') },
    },
  ];
}

/** A KubeClient that serves Secrets from memory; anything else is a test bug. */
export function secretsClient(secrets: Secret[] = defaultSecrets()): KubeClient & { secrets: Secret[] } {
  return secretsOnlyClient(secrets);
}

export interface RecordedEvent {
  type: string;
  reason: string;
  message: string;
  object: string;
}

export function recordingContext(): ActuatorContext & { recorded: RecordedEvent[] } {
  const recorded: RecordedEvent[] = [];
  const events: EventRecorder = {
    event: (object, type, reason, _action, message) =>
      recorded.push({ type, reason, message, object: object.metadata.name ?? '' }),
  };
  return { signal: new AbortController().signal, log: silentLogger, events, recorded };
}

export type { CoreEvent };

/**
 * Launches `count` m5.large instances straight into the emulator at `endpoint` (private subnet A), a hundred a
 * RunInstances call, each batch tagged with `tags(batch)`: a cluster's instances made as if by someone else.
 */
export async function launchTagged(endpoint: string, count: number, tags: (batch: number) => Tag[]): Promise<void> {
  const raw = new EC2Client({ region: 'us-east-1', endpoint, credentials: { ...EMULATOR_ACCESS_KEY } });
  try {
    for (let batch = 0; batch * 100 < count; batch++) {
      const n = Math.min(100, count - batch * 100);
      await raw.send(
        new RunInstancesCommand({
          ImageId: 'ami-0a1b2c3d4e5f00001',
          InstanceType: 'm5.large',
          MinCount: n,
          MaxCount: n,
          NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: 'subnet-0a1b2c3d4e5f0a001' }],
          TagSpecifications: [{ ResourceType: 'instance', Tags: tags(batch) }],
        }),
      );
    }
  } finally {
    raw.destroy();
  }
}

/** The ownership tag of a cluster's instances. */
export const ownedBy = (cluster: string): Tag => ({ Key: `kubernetes.io/cluster/${cluster}`, Value: 'owned' });
