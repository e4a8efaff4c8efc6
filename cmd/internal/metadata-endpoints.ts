// Where the termination handler finds its cloud's instance metadata service: the overrides the clouds' own
// libraries read (the AWS SDKs' AWS_EC2_METADATA_SERVICE_ENDPOINT, Google's GCE_METADATA_HOST), else the
// link-local address every instance reaches on its cloud. Local runs and tests always set both, to an emulator.
import { metadataBaseOf } from '../../providers/gcp/preemption-notice.js';

export const AWS_METADATA_ENDPOINT_ENV = 'AWS_EC2_METADATA_SERVICE_ENDPOINT';
export const GCE_METADATA_HOST_ENV = 'GCE_METADATA_HOST';
/** IMDS on EC2; the reference reaches it through the AWS SDK's default. */
export const DEFAULT_AWS_METADATA_ENDPOINT = 'http://169.254.169.254';
/** The address the reference GCP handler polls. */
export const DEFAULT_GCE_METADATA_HOST = '169.254.169.254';

export interface MetadataEndpoints {
  /** Base URL of AWS IMDS. */
  aws: string;
  /** host[:port] of the GCE metadata server. */
  gceHost: string;
}

/** Reads and checks the two overrides; a malformed one is an error naming the variable and the form it needs. */
export function metadataEndpointsFromEnv(env: NodeJS.ProcessEnv): MetadataEndpoints {
  const aws = env[AWS_METADATA_ENDPOINT_ENV] || DEFAULT_AWS_METADATA_ENDPOINT;
  let url: URL | undefined;
  try {
    url = new URL(aws);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(
      `${AWS_METADATA_ENDPOINT_ENV} must be an http(s) URL such as ${DEFAULT_AWS_METADATA_ENDPOINT}, got ${JSON.stringify(aws)}`,
    );
  }
  const gceHost = env[GCE_METADATA_HOST_ENV] || DEFAULT_GCE_METADATA_HOST;
  try {
    metadataBaseOf(gceHost);
  } catch (err) {
    throw new Error(`${GCE_METADATA_HOST_ENV}: ${(err as Error).message}`, { cause: err });
  }
  return { aws, gceHost };
}
