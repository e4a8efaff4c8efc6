// Shared set-up for the EC2 emulator tests: real SDK clients pointed at the emulator, with fast retries.
import { EC2Client, EC2ServiceException, type RunInstancesCommandInput } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingClient } from '@aws-sdk/client-elastic-load-balancing';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { ConfiguredRetryStrategy } from '@smithy/util-retry';
import { expect } from 'chai';
import { EMULATOR_ACCESS_KEY, type Ec2Emulator } from '../../../sim/aws/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export const AMI_X86 = 'ami-0a1b2c3d4e5f00001';
export const AMI_ARM = 'ami-0a1b2c3d4e5f00002';
export const AMI_SDA1 = 'ami-0a1b2c3d4e5f00004';
export const SUBNET_PRIVATE_A = 'subnet-0a1b2c3d4e5f0a001';
export const SUBNET_PRIVATE_B = 'subnet-0a1b2c3d4e5f0a002';
export const SUBNET_PUBLIC_A = 'subnet-0a1b2c3d4e5f0b001';
export const SUBNET_WAVELENGTH = 'subnet-0a1b2c3d4e5f0c001';
export const SG_NODE = 'sg-0a1b2c3d4e5f00001';
export const VPC = 'vpc-0e1a2b3c4d5e6f701';
export const CLUSTER = 'test-cluster';

const credentials = { ...EMULATOR_ACCESS_KEY };
const fastRetry = (maxAttempts: number) => new ConfiguredRetryStrategy(maxAttempts, () => 5);
const requestHandler = { requestTimeout: 10_000, connectionTimeout: 2_000, throwOnRequestTimeout: true };

export function ec2Client(emu: Ec2Emulator, maxAttempts = 3): EC2Client {
  return new EC2Client({
    region: emu.region,
    endpoint: emu.endpoint,
    credentials,
    retryStrategy: fastRetry(maxAttempts),
    requestHandler,
  });
}

export function elbClient(emu: Ec2Emulator, maxAttempts = 3): ElasticLoadBalancingClient {
  return new ElasticLoadBalancingClient({
    region: emu.region,
    endpoint: emu.endpoint,
    credentials,
    retryStrategy: fastRetry(maxAttempts),
    requestHandler,
  });
}

export function elbv2Client(emu: Ec2Emulator, maxAttempts = 3): ElasticLoadBalancingV2Client {
  return new ElasticLoadBalancingV2Client({
    region: emu.region,
    endpoint: emu.endpoint,
    credentials,
    retryStrategy: fastRetry(maxAttempts),
    requestHandler,
  });
}

/** A minimal valid worker launch, like the OpenShift provider's. */
export function workerLaunch(name: string, extra: Partial<RunInstancesCommandInput> = {}): RunInstancesCommandInput {
  return {
    ImageId: AMI_X86,
    InstanceType: 'm5.large',
    MinCount: 1,
    MaxCount: 1,
    NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_A, Groups: [SG_NODE] }],
    TagSpecifications: [
      {
        ResourceType: 'instance',
        Tags: [
          { Key: `kubernetes.io/cluster/${CLUSTER}`, Value: 'owned' },
          { Key: 'Name', Value: name },
        ],
      },
    ],
    ...extra,
  };
}

/** Awaits a rejection and returns the error (failing the test if the call succeeded). */
export async function rejection(
  p: Promise<unknown>,
): Promise<Error & { name: string; $fault?: string; $metadata?: { httpStatusCode?: number; attempts?: number } }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { name: string };
  }
  expect.fail('expected the call to fail');
}

/** Awaits an AWS service error with the given code (name) and returns it. */
export async function awsError(p: Promise<unknown>, code: string, status?: number): Promise<EC2ServiceException> {
  const err = await rejection(p);
  expect(err.name, err.message).to.equal(code);
  if (status !== undefined) expect(err.$metadata?.httpStatusCode).to.equal(status);
  return err as EC2ServiceException;
}

/** Polls (bounded) until fn returns a truthy value; for outcomes that depend on a real server. */
export async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 3000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) expect.fail(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
