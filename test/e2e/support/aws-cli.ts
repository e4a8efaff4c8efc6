// The real aws CLI for tests: whether it is installed, and one invocation against an emulator endpoint with
// the given keys and nothing from the user's own AWS configuration (no profile, no metadata service).
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

export function hasAwsCli(): boolean {
  return !spawnSync('aws', ['--version'], { stdio: 'ignore' }).error;
}

export interface AwsCliKeys {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Runs `aws <args> --endpoint-url <endpoint> --output json` in us-east-1; resolves with the parsed output. */
export async function awsCli<T>(endpoint: string, keys: AwsCliKeys, args: string[]): Promise<T> {
  const { stdout } = await promisify(execFile)('aws', [...args, '--endpoint-url', endpoint, '--output', 'json'], {
    timeout: 15_000,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_PAGER: '',
    },
  });
  return JSON.parse(stdout) as T;
}
