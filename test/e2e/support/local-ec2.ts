// The EC2 emulator of an `npm start` state directory, asked through the real SDK as an admin's aws CLI would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeInstancesCommand, EC2Client, type Instance } from '@aws-sdk/client-ec2';
import { EMULATOR_ACCESS_KEY } from '../../../sim/aws/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** The pending and running instances of the emulator `npm start` published in `<stateDir>/endpoints.json`. */
export async function liveInstances(stateDir: string): Promise<Instance[]> {
  const endpoints = JSON.parse(readFileSync(join(stateDir, 'endpoints.json'), 'utf8')) as {
    cloud: { aws: { endpoint: string; region: string } };
  };
  const ec2 = new EC2Client({
    endpoint: endpoints.cloud.aws.endpoint,
    region: endpoints.cloud.aws.region,
    credentials: { ...EMULATOR_ACCESS_KEY },
  });
  try {
    const out = await ec2.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'instance-state-name', Values: ['pending', 'running'] }] }),
    );
    return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
  } finally {
    ec2.destroy();
  }
}
