// The AWS provider binary's wiring, in-process, against the EC2 emulator: what a missing credentials
// Secret, or one whose key EC2 refuses, does to a new Machine and to a deleting one, and how fast they recover
// once it is fixed.
import type { Machine, Secret } from '../../../lib/index.js';
import {
  WAIT_FOR_SECRET_EVENTS,
  describeMissingCredentialsSecret,
  describeRefusedCredentialsSecret,
  machineFor,
  startProviderTestBed,
} from '../../../lib/testing/index.js';
import { wireAwsProvider } from '../../../cmd/machine-api-provider-aws.js';
import { startEc2Emulator } from '../../../providers/aws/emulator/index.js';
import { MACHINE_UID_TAG } from '../../../providers/aws/instances.js';
import { CLUSTER_ID, NAMESPACE, awsSpec, defaultSecrets } from './fixtures.js';

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);
  const credentials = defaultSecrets().find((s) => s.metadata.name === 'aws-cloud-credentials')!;

  const setup = async () => {
    const emu = await startEc2Emulator({ clusterId: CLUSTER_ID, timings: { bootMs: 50, terminateMs: 50, stopMs: 50 } });
    const bed = await startProviderTestBed({
      namespace: NAMESPACE,
      secrets: defaultSecrets(),
      instanceView: emu.instanceView(),
      wire: (mgr, c) =>
        wireAwsProvider(mgr, c, {
          nodeLink: true,
          endpoint: emu.endpoint,
          retryDelayMs: () => 5,
          batchWindowMs: 2,
          maxConcurrentReconciles: 5,
          machineController: WAIT_FOR_SECRET_EVENTS,
          actuator: { requeueAfterMs: 200 },
        }),
    });
    return {
      bed,
      namespace: NAMESPACE,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: awsSpec({ credentialsSecret: { name: secret } }),
        }),
      credentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        data: { ...credentials.data },
      }),
      liveInstances: (m: Machine) =>
        emu
          .instances()
          .filter(
            (i) =>
              i.tags.some((t) => t.key === MACHINE_UID_TAG && t.value === m.metadata.uid) &&
              i.state !== 'terminated' &&
              i.state !== 'shutting-down',
          ).length,
      refusedCredentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        stringData: { aws_access_key_id: 'AKIAREVOKEDKEY00000', aws_secret_access_key: 'revoked-secret' },
      }),
      refusalCode: 'AuthFailure',
      cleanup: async () => {
        await bed.stop();
        await emu.stop();
      },
    };
  };
  describeMissingCredentialsSecret('aws', setup);
  describeRefusedCredentialsSecret('aws', setup);
});
